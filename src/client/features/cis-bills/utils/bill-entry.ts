import { createCisBillFigures, type CisBillFigures, type CisRate, type CisVatTreatment } from '@/shared/cis';
import { describeCisRate, isCisChecked, type CisBillSetup, type CisContact } from '@/shared/cis-bills';

/**
 * What the screen knows of a subcontractor's CIS and VAT (issue 42): `checking` while Xero's CIS settings for
 * the contact are read; `cis` with its rate; `not-cis` when Xero marks the contact as not a CIS subcontractor;
 * `unknown` when CIS is on in Xero without a rate Ledgerlink knows.
 */
export interface ContactTax {
  state: 'checking' | 'cis' | 'not-cis' | 'unknown';
  rate: CisRate | null;
  vatTreatment: CisVatTreatment;
  /** The VAT percent a line carries on the bill's total (0 for none and for the reverse charge). */
  vatPercent: number;
  /** The percent the reverse charge or the standard rate shows. */
  vatShownPercent: number;
}

/**
 * A contact's CIS and VAT as the screen shows them. The reverse charge follows the organisation's setting
 * (read when the screen opens), so a change in Settings shows at once; the server decides the bill.
 */
export function getContactTax(
  contact: CisContact | undefined,
  setup: Pick<CisBillSetup, 'reverseCharge'> | undefined,
): ContactTax {
  const shown = contact?.vatPercent ?? 0;
  const registered = contact?.vatTreatment !== undefined && contact.vatTreatment !== 'none';
  const vatTreatment: CisVatTreatment = !registered
    ? 'none'
    : (setup?.reverseCharge ?? contact?.vatTreatment === 'reverse-charge')
      ? 'reverse-charge'
      : 'standard';
  const vat = {
    vatTreatment,
    vatPercent: vatTreatment === 'standard' ? shown : 0,
    vatShownPercent: vatTreatment === 'none' ? 0 : shown,
  };
  if (!contact || !isCisChecked(contact)) return { state: 'checking', rate: null, ...vat };
  const rate = contact.cisRate ?? null;
  if (rate !== null) return { state: 'cis', rate, ...vat };
  // hasValidUTR false without a rate: Xero marks the contact as not CIS (or CIS without a rate).
  return { state: contact.hasValidUTR === false ? 'not-cis' : 'unknown', rate: null, ...vat };
}

/** The figures the entry row shows for what is typed, or null until the subcontractor's CIS is known. */
export function previewBill(
  tax: ContactTax,
  amounts: { labourPence: number | null; materialsPence: number },
): CisBillFigures | null {
  if (amounts.labourPence === null || tax.state === 'checking' || tax.state === 'unknown') return null;
  return createCisBillFigures({
    labourPence: amounts.labourPence,
    materialsPence: amounts.materialsPence,
    rate: tax.rate,
    vatPercent: tax.vatPercent,
  });
}

/** The VAT a bill carries, in words: "No VAT", "Reverse charge (20 %)", or its percent. */
export function describeVat(treatment: CisVatTreatment | undefined, percent: number): string {
  if (treatment === 'none') return 'No VAT';
  if (treatment === 'reverse-charge') return `Reverse charge (${percent} %)`;
  return `${percent} % VAT`;
}

/** The note under a deduction: the rate when it is not the spec's 20 %, or who booked it (issue 42). */
export function describeDeduction(
  rate: CisRate | null | undefined,
  source?: 'ledgerlink' | 'xero' | 'none',
): string | null {
  if (source === 'xero') return `${rate ?? '?'} % — Xero's own CIS`;
  return describeCisRate(rate === undefined ? 20 : rate);
}
