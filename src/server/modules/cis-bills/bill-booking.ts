import {
  readCisBill,
  toCisRate,
  type CisBillContext,
  type CisBillReading,
  type CisRate,
  type CisVatTreatment,
} from '../../../shared/cis';
import { NO_DEDUCTION_ACCOUNT_MESSAGE } from '../../../shared/cis-bills';
import type { VerifiedRate } from '../../../shared/hmrc-filing';
import { AppError } from '../../lib/app-error';
import type { CachedLine } from '../../xero/sync/mappers';
import {
  CIS_SYSTEM_ACCOUNTS,
  type CachedAccount,
  type CachedBill,
  type CachedContact,
  type CisBillSettings,
} from './cis-bills.repository';
import { isCisCheckCurrent } from '../../../shared/cis-bills';
import type { CachedTaxRate } from '../../xero/cache/cache.repository';

/**
 * How Ledgerlink books a subcontractor's bill in Xero (issue 42, docs/decisions/034-cis-bill-booking.md):
 * labour and materials lines with VAT as the subcontractor charges it, and the CIS deduction as a line of its
 * own on the organisation's deductions account (an ordinary liability account: Xero's API refuses its CIS
 * system accounts on line items), so Xero's total is what the subcontractor is paid.
 */

/** What Xero's CIS settings for a contact say, as a bill needs it. */
export type ContactCis =
  | { state: 'cis'; rate: CisRate }
  /** Xero marks the contact as not a CIS subcontractor. */
  | { state: 'not-cis'; rate: null }
  /** CIS enabled without a rate Ledgerlink knows, or the settings not read: no deduction can be worked out. */
  | { state: 'unknown'; rate: null };

/**
 * The contact's CIS state: the rate a contact is given. HMRC's answer to a verification from Ledgerlink when there
 * is one (issue 43: "it is the rate the deduction uses"; the screens say where Xero's contact says otherwise),
 * else its cached Xero CIS settings (current ones only: issue 19).
 */
export function readContactCis(
  contact: CachedContact | null | undefined,
  verified?: VerifiedRate | undefined,
): ContactCis {
  if (verified) return { state: 'cis', rate: verified.rate };
  return readXeroContactCis(contact);
}

/** What Xero's CIS settings for the contact say (current ones only: issue 19). */
export function readXeroContactCis(contact: CachedContact | null | undefined): ContactCis {
  if (!contact || !isCisCheckCurrent(contact) || contact.cisEnabled === null)
    return { state: 'unknown', rate: null };
  if (contact.cisEnabled !== true) return { state: 'not-cis', rate: null };
  const rate = toCisRate(contact.cisRate);
  return rate === null ? { state: 'unknown', rate: null } : { state: 'cis', rate };
}

/** The VAT a subcontractor's bill carries: its treatment, the tax type on its lines and its percent. */
export interface BillVat {
  treatment: CisVatTreatment;
  /** The lines' TaxType; null for no VAT (the bill goes as NoTax). */
  taxType: string | null;
  /** The percent VAT is worked out at on the bill's total: 0 for none and for the reverse charge. */
  percent: number;
  /** The percent to show: the reverse charge shows its 20 % or 5 % though the total carries none. */
  displayPercent: number;
  lineAmountTypes: 'Exclusive' | 'NoTax';
  /** Why a bill cannot be raised with this VAT (a rate Xero lacks); null when it can. */
  problem: string | null;
}

/** The reverse-charge rates for bills, by the standard rate they stand for: 5 % work has its own (DRCHARGE5). */
const DRC_FOR_BILLS: Record<'20' | '5', readonly string[]> = {
  // Xero names its bill-side rates DRCHARGE20 / DRCHARGE5; its developer docs' table labels them the other
  // way round, so whichever of the pair applies to expenses is taken (docs/xero-api.md §4.8).
  '20': ['DRCHARGE20', 'DRCHARGESUPPLY20'],
  '5': ['DRCHARGE5', 'DRCHARGESUPPLY5'],
};

const isReverseChargeType = (taxType: string | null | undefined) => /^DRCHARGE/.test(taxType ?? '');

/**
 * The VAT of a subcontractor's bills (issue 42): none when the contact has no VAT number or its purchases rate
 * is "No VAT"; the domestic reverse charge (Xero UK's DRCHARGE20) when the organisation applies it; else the
 * standard rate: the contact's own purchases rate in Xero when it carries VAT, else the organisation's default
 * bill VAT rate (Settings), else 20 % (VAT on Expenses). `rates` are the organisation's bill tax rates.
 */
export function resolveBillVat(
  contact: Pick<CachedContact, 'taxNumber' | 'accountsPayableTaxType'>,
  settings: Pick<CisBillSettings, 'reverseCharge'>,
  rates: readonly CachedTaxRate[],
  defaultBillVatRateId: string | null,
): BillVat {
  const registered = (contact.taxNumber ?? '').trim() !== '' && contact.accountsPayableTaxType !== 'NONE';
  if (!registered)
    return {
      treatment: 'none',
      taxType: null,
      percent: 0,
      displayPercent: 0,
      lineAmountTypes: 'NoTax',
      problem: null,
    };
  const byType = new Map(rates.map((r) => [r.taxType, r] as const));
  const percentOf = (rate: CachedTaxRate | undefined) => (rate ? Number(rate.rate) : 0);
  const standard = [contact.accountsPayableTaxType, defaultBillVatRateId, 'INPUT2']
    .map((taxType) => (taxType ? byType.get(taxType) : undefined))
    .find((rate) => rate !== undefined && percentOf(rate) > 0 && !isReverseChargeType(rate.taxType));
  if (settings.reverseCharge) {
    const reduced = standard !== undefined && percentOf(standard) === 5;
    const candidates = DRC_FOR_BILLS[reduced ? '5' : '20'];
    const drc = candidates.map((t) => byType.get(t)).find((r) => r !== undefined);
    return {
      treatment: 'reverse-charge',
      taxType: drc?.taxType ?? null,
      percent: 0,
      displayPercent: reduced ? 5 : 20,
      lineAmountTypes: 'Exclusive',
      problem: drc
        ? null
        : `Xero has no domestic reverse charge tax rate for bills (${candidates[0]}): add them in Xero (Accounting › Advanced › Tax rates › Add Domestic Reverse Charge Tax Rates), or switch the reverse charge off in Settings → CIS month-end.`,
    };
  }
  return {
    treatment: 'standard',
    taxType: standard?.taxType ?? null,
    percent: percentOf(standard),
    displayPercent: percentOf(standard),
    lineAmountTypes: 'Exclusive',
    problem: standard
      ? null
      : 'Xero has no VAT rate for bills (20% (VAT on Expenses)): choose the default bill VAT rate in Settings.',
  };
}

/** Whether an account is one of Xero's CIS system accounts. */
export function isCisSystemAccount(account: Pick<CachedAccount, 'systemAccount'>): boolean {
  return account.systemAccount !== null && CIS_SYSTEM_ACCOUNTS.includes(account.systemAccount);
}

/**
 * What tells a bill's lines apart (src/shared/cis.ts `CisBillContext`): the deductions account, the materials
 * accounts (the settings' ones and Xero's CIS Materials), Xero's CIS Labour Expense, and the contact's rate.
 */
export function createBillContext(
  settings: CisBillSettings,
  accounts: readonly Pick<CachedAccount, 'code' | 'systemAccount'>[],
  contactRate: CisRate | null,
): CisBillContext {
  const codesOf = (system: string) =>
    accounts.filter((a) => a.systemAccount === system && a.code).map((a) => a.code ?? '');
  return {
    deductionAccountCode: settings.deductionAccountCode,
    materialsAccountCodes: [...settings.materialsAccountCodes, ...codesOf('CISMATERIALS')],
    cisLabourAccountCodes: codesOf('CISLABOUREXPENSE'),
    contactRate,
  };
}

/** A cached bill read for CIS (src/shared/cis.ts `readCisBill`). */
export function readCachedBill(row: CachedBill, context: CisBillContext): CisBillReading {
  const cached = (row.lines as CachedLine[] | null) ?? [];
  const lines = cached.map((l) => ({
    accountCode: l.accountCode,
    description: l.description,
    lineAmountPence: l.lineAmountPence,
    taxAmountPence: l.taxAmountPence,
  }));
  // A bill cached from a read without its lines (Xero leaves them out of unpaged lists): its totals as one
  // labour line, so its figures are still the bill's.
  const taxPence = row.totalTaxPence ?? 0;
  if (lines.length === 0 && (row.totalPence ?? 0) !== 0)
    lines.push({
      accountCode: null,
      description: null,
      lineAmountPence: (row.totalPence ?? 0) - taxPence,
      taxAmountPence: taxPence,
    });
  return readCisBill(
    {
      lineAmountTypes: cached.length === 0 ? 'Exclusive' : row.lineAmountTypes,
      lines,
      xeroCisDeductionPence: row.cisDeductionPence,
      xeroCisRate: row.cisRate === null ? null : Number(row.cisRate),
    },
    context,
  );
}

/** The VAT treatment a cached bill's lines show (reverse charge by its tax types, else VAT or none). */
export function readBillVatTreatment(row: CachedBill): CisVatTreatment {
  const lines = (row.lines as CachedLine[] | null) ?? [];
  if (lines.some((l) => isReverseChargeType(l.taxType))) return 'reverse-charge';
  return row.totalTaxPence > 0 ? 'standard' : 'none';
}

/**
 * The deductions account a bill with a deduction goes to: chosen in Settings, still an active ordinary
 * liability account in Xero. Refused with the message that says where to choose it.
 */
export function checkDeductionAccount(
  settings: Pick<CisBillSettings, 'deductionAccountCode'>,
  account: CachedAccount | null,
): string {
  const code = settings.deductionAccountCode;
  if (!code) throw new AppError('UNPROCESSABLE', NO_DEDUCTION_ACCOUNT_MESSAGE);
  if (!account || account.status !== 'ACTIVE' || account.class !== 'LIABILITY' || account.systemAccount)
    throw new AppError(
      'UNPROCESSABLE',
      `The CIS deductions account (${code}) is no longer an active ordinary liability account in Xero. Choose another in Settings → CIS month-end.`,
    );
  return code;
}
