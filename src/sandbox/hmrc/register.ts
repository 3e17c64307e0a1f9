/**
 * What HMRC knows in the sandbox: the contractor schemes that may file (with their Government Gateway
 * credentials) and the register of subcontractors a verification is checked against, seeded to match the Xero
 * sandbox's Demo Builders Ltd (src/sandbox/seed.ts SUBCONTRACTORS: the same names, so a demo verifies them).
 */

export type TaxTreatment = 'gross' | 'net' | 'unmatched';

export interface SchemeRecord {
  name: string;
  /** Government Gateway credentials enrolled for the scheme's CIS. */
  senderId: string;
  password: string;
  taxOfficeNumber: string;
  taxOfficeReference: string;
  utr: string;
  accountsOfficeReference: string;
}

export interface RegisteredSubcontractor {
  /** The name HMRC holds: the trading name (company, partnership, or a sole trader trading under a name). */
  name: string;
  type: 'soletrader' | 'company' | 'partnership' | 'trust';
  utr: string;
  nino: string | null;
  crn: string | null;
  /** gross (0 %), net (20 %), or unmatched: HMRC cannot match them (30 %). */
  treatment: TaxTreatment;
}

export const DEMO_SCHEME: SchemeRecord = {
  name: 'Demo Builders Ltd',
  senderId: 'DEMOBUILDERS01',
  password: 'demo-gateway-password',
  taxOfficeNumber: '120',
  taxOfficeReference: 'DB45678',
  utr: '5012345678',
  accountsOfficeReference: '120PD00456789',
};

/** Demo Builders Ltd's subcontractors, as HMRC has them (Xero's CIS rate for each is in the Xero seed). */
const SUBCONTRACTORS: Array<[name: string, type: RegisteredSubcontractor['type'], treatment: TaxTreatment]> =
  [
    ['Hughes Groundworks Ltd', 'company', 'net'],
    ['A. Patel Plastering', 'soletrader', 'net'],
    ['Northside Electrical Ltd', 'company', 'gross'],
    ['J. Murphy Roofing', 'soletrader', 'net'],
    ['Stone & Sons Brickwork', 'partnership', 'unmatched'],
    ['K. Nowak Carpentry', 'soletrader', 'net'],
    ['T. Evans Plumbing & Heating', 'soletrader', 'net'],
    ['Bright Spark Electrics', 'soletrader', 'gross'],
    ["M. O'Connor Scaffolding", 'soletrader', 'net'],
    ['R. Singh Tiling', 'soletrader', 'unmatched'],
    ['Coastal Drylining Ltd', 'company', 'net'],
    ['D. Walsh Joinery', 'soletrader', 'net'],
  ];

export function seedRegister(): RegisteredSubcontractor[] {
  return SUBCONTRACTORS.map(([name, type, treatment], i) => ({
    name,
    type,
    // Deterministic 10-digit references: the demo fills them in Ledgerlink from here (src/server/hmrc-demo.ts).
    utr: String(7_100_000_000 + i * 11_111),
    nino: type === 'soletrader' ? `AB${String(120_000 + i).padStart(6, '0')}C` : null,
    crn: type === 'company' ? String(10_450_000 + i).padStart(8, '0') : null,
    treatment,
  }));
}

/** How HMRC compares names: case, spacing, accents and "&"/"and" do not count. */
export function sameName(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/\band\b/g, '&')
      .replace(/[^a-z0-9&]+/g, ' ')
      .trim();
  return norm(a) === norm(b);
}
