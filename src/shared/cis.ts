/**
 * Construction Industry Scheme (CIS) maths, on integer pence: what a contractor deducts from a subcontractor's
 * bill, how the bill is split, and how Ledgerlink books the deduction in Xero (issue 42).
 *
 * The law and HMRC's guidance:
 * - The deduction is "a sum equal to the relevant percentage of so much of the payment as is not shown to
 *   represent the direct cost ... of materials" (Finance Act 2004 s61(1)); the payment is taken "exclusive of
 *   VAT" and the materials "exclusive of VAT" (CISR13070, CISR61230; COG909250: "the amount from which the
 *   deduction is made is the payment excluding VAT"). CIS340 §3 lists the rates: 20 % for a registered
 *   subcontractor, 30 % for one HMRC could not verify, 0 % for gross payment status.
 * - Rounding: neither the Act, CIS340 nor the CISR manual says what to do with a fraction of a penny (20 % of
 *   3p is 0.6p; 30 % of 1p is 0.3p). Ledgerlink rounds the deduction DOWN to the penny, so a contractor never
 *   withholds more than the relevant percentage of the labour: at most 1p less, never 1p more.
 *
 * docs/product/features.md §9 ("CIS deduction is 20% of the bill total; amount due 80%") is the 20 % case of a
 * bill that is all labour and carries no VAT; its headings stay, its sums follow the rules above.
 */
import { getDateParts, getDaysBetween, createIsoDate } from './dates';
import { assertPence, MAX_AMOUNT_PENCE, roundHalfUp } from './money';

/** CIS standard deduction rate, percent (docs/product/features.md §9). */
export const CIS_DEDUCTION_PERCENT = 20;
/** Share of the total paid to the subcontractor, percent (docs/product/features.md §9). */
export const CIS_AMOUNT_DUE_PERCENT = 80;

/** A CIS deduction rate HMRC sets, in percent: 0 gross payment status, 20 registered, 30 not verified. */
export type CisRate = 0 | 20 | 30;

/**
 * The rate when `value` is one of HMRC's three (0, 20, 30), else null. Xero writes a contact's or a bill's CIS
 * rate as a percent (20) and sometimes as a fraction (0.2); a string ("20") reads as its number.
 */
export function toCisRate(value: unknown): CisRate | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return null;
  const percent = n > 0 && n < 1 ? Math.round(n * 100) : n;
  return percent === 0 || percent === 20 || percent === 30 ? percent : null;
}

/** The split of a CIS bill total, all in pence. */
interface CisSplit {
  totalPence: number;
  cisDeductionPence: number;
  amountDuePence: number;
}

/**
 * The deduction on `labourPence` (the payment excluding VAT and materials) at `rate` percent, rounded DOWN to
 * the penny (see the file's comment: HMRC gives no rounding rule, and rounding down never over-deducts).
 */
export function getCisDeductionPence(labourPence: number, rate: CisRate = CIS_DEDUCTION_PERCENT): number {
  const labour = BigInt(Math.max(0, assertPence(labourPence)));
  return assertPence(Number((labour * BigInt(rate)) / 100n));
}

/** Amount due of an all-labour bill without VAT: the total less its deduction. */
export function getCisAmountDuePence(totalPence: number, rate: CisRate = CIS_DEDUCTION_PERCENT): number {
  return assertPence(totalPence - getCisDeductionPence(totalPence, rate));
}

/**
 * Split an all-labour bill without VAT into deduction and amount due (docs/product/features.md §9 at 20 %); the
 * parts add up to the total.
 */
export function splitCisTotal(totalPence: number, rate: CisRate = CIS_DEDUCTION_PERCENT): CisSplit {
  const cisDeductionPence = getCisDeductionPence(totalPence, rate);
  return {
    totalPence: assertPence(totalPence),
    cisDeductionPence,
    amountDuePence: totalPence - cisDeductionPence,
  };
}

/**
 * Gross from net: the labour whose deduction at `rate` leaves `netPence` ("Gross from net is net / 0.8",
 * docs/product/features.md §9, at 20 %). Of the amounts that leave that net, the one nearest net ÷ (1 − rate)
 * (the larger on a tie), so {@link getCisNetFromGrossPence} of the result is `netPence` again.
 */
export function getCisGrossFromNetPence(netPence: number, rate: CisRate = CIS_DEDUCTION_PERCENT): number {
  const net = assertPence(netPence);
  if (net <= 0 || rate === 0) return net;
  const keep = 100 - rate;
  // net × 100 / keep, as a fraction: candidates around it, in whole pence.
  const base = Math.floor((net * 100) / keep);
  let best: number | null = null;
  for (let gross = base - 2; gross <= base + 3; gross++) {
    if (gross < 0 || gross > MAX_AMOUNT_PENCE || getCisAmountDuePence(gross, rate) !== net) continue;
    const distance = Math.abs(gross * keep - net * 100);
    const bestDistance = best === null ? Infinity : Math.abs(best * keep - net * 100);
    if (distance <= bestDistance) best = gross;
  }
  // Past the largest amount: the largest amount (its net is then below the one asked, never above).
  return assertPence(best ?? Math.min(base, MAX_AMOUNT_PENCE));
}

/** The total from the amount due of an all-labour bill (docs/product/features.md §9 "total = amountDue / 0.8"). */
export function getCisTotalFromAmountDuePence(
  amountDuePence: number,
  rate: CisRate = CIS_DEDUCTION_PERCENT,
): number {
  return getCisGrossFromNetPence(amountDuePence, rate);
}

/**
 * Net from gross (the "Converted to net (80%)" direction of docs/product/features.md §2): the labour less its
 * deduction.
 */
export function getCisNetFromGrossPence(grossPence: number, rate: CisRate = CIS_DEDUCTION_PERCENT): number {
  return getCisAmountDuePence(grossPence, rate);
}

/**
 * How a subcontractor's bill carries VAT (issue 42): `none` when they charge none (no VAT number on the Xero
 * contact, or its purchases tax rate is "No VAT"); `reverse-charge` when the organisation applies the VAT
 * domestic reverse charge for construction services and the subcontractor is VAT-registered (the contractor
 * accounts for the VAT: the bill's total carries none); `standard` otherwise.
 */
export type CisVatTreatment = 'none' | 'standard' | 'reverse-charge';

/** The VAT treatment of a subcontractor's bills, from their Xero contact and the organisation's setting. */
export function getCisVatTreatment(
  contact: { taxNumber: string | null | undefined; purchasesTaxType: string | null | undefined },
  reverseCharge: boolean,
): CisVatTreatment {
  const registered = (contact.taxNumber ?? '').trim() !== '' && contact.purchasesTaxType !== 'NONE';
  if (!registered) return 'none';
  return reverseCharge ? 'reverse-charge' : 'standard';
}

/**
 * VAT of one bill line priced excluding VAT, as Xero computes it: per line, half up to the penny. `percent` is
 * the line's VAT rate (20, 5, 17.5 …); 0 for no VAT and for the reverse charge, whose VAT the bill's total does
 * not carry.
 */
export function getLineVatPence(netPence: number, percent: number): number {
  if (percent <= 0 || netPence === 0) return 0;
  const rateE4 = BigInt(Math.round(percent * 10_000));
  return assertPence(Number(roundHalfUp(BigInt(assertPence(netPence)) * rateE4, 1_000_000n)));
}

/**
 * VAT of one bill line priced including VAT, as Xero computes it (Xero's LineAmountTypes "Inclusive"): the
 * line's share of VAT, half up to the penny.
 */
export function getInclusiveLineVatPence(grossPence: number, percent: number): number {
  if (percent <= 0 || grossPence === 0) return 0;
  const rateE4 = BigInt(Math.round(percent * 10_000));
  return assertPence(Number(roundHalfUp(BigInt(assertPence(grossPence)) * rateE4, 1_000_000n + rateE4)));
}

/**
 * A CIS bill in figures (issue 42, docs/xero-api.md §4.8). `totalPence` is the gross bill total before the
 * deduction (labour + materials + VAT); the deduction is `rate` × labour (the total less VAT and materials),
 * rounded down; `amountDuePence` is the total less the deduction, what the subcontractor is paid. A null rate
 * (not a CIS subcontractor) deducts nothing.
 */
export interface CisBillFigures {
  rate: CisRate | null;
  labourPence: number;
  materialsPence: number;
  vatPence: number;
  totalPence: number;
  cisDeductionPence: number;
  amountDuePence: number;
}

/** Splits a bill whose labour, materials (both excluding VAT) and VAT are known. */
export function splitCisBill(input: {
  labourPence: number;
  materialsPence: number;
  vatPence: number;
  rate: CisRate | null;
}): CisBillFigures {
  const labourPence = assertPence(input.labourPence);
  const materialsPence = assertPence(input.materialsPence);
  const vatPence = assertPence(input.vatPence);
  const totalPence = assertPence(labourPence + materialsPence + vatPence);
  const cisDeductionPence = input.rate === null ? 0 : getCisDeductionPence(labourPence, input.rate);
  return {
    rate: input.rate,
    labourPence,
    materialsPence,
    vatPence,
    totalPence,
    cisDeductionPence,
    amountDuePence: totalPence - cisDeductionPence,
  };
}

/**
 * A new bill's figures from the amounts typed (labour and materials, excluding VAT), the subcontractor's rate
 * and the VAT percent its lines carry (0 for no VAT and for the reverse charge). VAT is worked out per line, as
 * Xero does on a bill priced excluding VAT.
 */
export function createCisBillFigures(input: {
  labourPence: number;
  materialsPence: number;
  rate: CisRate | null;
  vatPercent: number;
}): CisBillFigures {
  const vatPence =
    getLineVatPence(input.labourPence, input.vatPercent) +
    getLineVatPence(input.materialsPence, input.vatPercent);
  return splitCisBill({ ...input, vatPence });
}

/**
 * The description of the deduction line on a bill Ledgerlink raises: exactly this wording, so whoever reads the
 * bill (the CIS return, a bookkeeper in Xero) can read the rate from it.
 */
export function getCisDeductionLineDescription(rate: CisRate): string {
  return `CIS deduction at ${rate}%`;
}

/**
 * A deduction line's description, as Ledgerlink writes it and as a bookkeeper may retype it in Xero ("CIS
 * deduction at 30 %", any case): the rate is the number in it.
 */
export const CIS_DEDUCTION_LINE_RE = /^\s*CIS deduction at (0|20|30)\s?%\s*$/i;

/** The rate a deduction line's description names, or null when it is not one of Ledgerlink's. */
export function readCisDeductionLineRate(description: string | null | undefined): CisRate | null {
  const match = CIS_DEDUCTION_LINE_RE.exec(description ?? '');
  return match ? toCisRate(match[1]) : null;
}

/** A bill line as the CIS rules read it: its account, description, amount and VAT, in pence. */
export interface CisBillLine {
  accountCode: string | null;
  description: string | null;
  lineAmountPence: number;
  taxAmountPence: number;
}

/**
 * Whether a line is Ledgerlink's deduction line: never above zero, and on the deductions account or worded as
 * one (so a later change of the deductions account does not lose the bills booked before it).
 */
export function isCisDeductionLine(line: CisBillLine, deductionAccountCode: string | null): boolean {
  if (line.lineAmountPence > 0) return false;
  if (deductionAccountCode !== null && line.accountCode === deductionAccountCode) return true;
  return readCisDeductionLineRate(line.description) !== null;
}

/** The accounts that tell a document's lines apart, as they stood when it is read. */
export interface CisLineRule {
  /** The liability account Ledgerlink books deductions to (Settings); null until chosen. */
  deductionAccountCode: string | null;
  /** Accounts whose lines are materials: the CIS settings' ones and Xero's CIS Materials account. */
  materialsAccountCodes: readonly string[];
  /** Codes of Xero's CIS Labour Expense account: a bill on it was entered with Xero's own CIS. */
  cisLabourAccountCodes?: readonly string[];
}

/** A bill or a supplier credit note as Xero has it, the parts CIS reads. */
export interface CisDocumentLines {
  lineAmountTypes: string | null;
  lines: readonly CisBillLine[];
  /** Xero's CISDeduction in pence as read (null when Xero sent none; a single read of any bill may say 0). */
  xeroDeductionPence: number | null;
  /** Xero's CISRate as read (20, or 0.2), null when Xero sent none. */
  xeroRate: number | string | null;
}

/**
 * THE reading of a CIS document's lines (issue 42), used by CIS Bills (`readCisBill`) and CIS Returns
 * (src/shared/cis-figures.ts `getDocumentCisFigures`) alike, so the two screens cannot disagree about a bill:
 * - the deduction is what the bill holds: −(its deduction lines, see {@link isCisDeductionLine}) plus Xero's
 *   own CISDeduction when above 0 (a bill a person entered with Xero's CIS; Xero's 0.00 on a single read of an
 *   ordinary bill is no deduction, so a single read and a list read agree);
 * - the gross is every other line excluding VAT (CISR61140: the payment excluding VAT); the materials are the
 *   lines on a materials account, excluding VAT (CISR13070); the labour is the gross less the materials;
 * - the rate is the one the document says it was deducted at (`at N%`, or Xero's CISRate beside its
 *   deduction), null when it says none or more than one.
 */
export interface CisDocumentReading {
  grossPence: number;
  labourPence: number;
  materialsPence: number;
  vatPence: number;
  /** Deducted on the bill's own lines (Ledgerlink's booking). */
  lineDeductionPence: number;
  /** Deducted by Xero's own CIS (CISDeduction above 0), else 0. */
  xeroDeductionPence: number;
  /** The whole deduction the document holds. */
  deductionPence: number;
  deductionLines: number;
  rateUsed: CisRate | null;
  /** Any line on Xero's CIS Labour Expense account (entered with Xero's own CIS). */
  onXeroCisLabour: boolean;
}

export function readCisDocument(doc: CisDocumentLines, rule: CisLineRule): CisDocumentReading {
  const inclusive = doc.lineAmountTypes === 'Inclusive';
  const materials = new Set(rule.materialsAccountCodes);
  const labourAccounts = new Set(rule.cisLabourAccountCodes ?? []);
  let grossPence = 0;
  let materialsPence = 0;
  let vatPence = 0;
  let lineDeductionPence = 0;
  let deductionLines = 0;
  let onXeroCisLabour = false;
  const rates = new Set<CisRate>();
  for (const line of doc.lines) {
    const net = inclusive ? line.lineAmountPence - line.taxAmountPence : line.lineAmountPence;
    // The bill's VAT is every line's (a deduction line carries none when Ledgerlink books it).
    vatPence += line.taxAmountPence;
    if (isCisDeductionLine(line, rule.deductionAccountCode)) {
      lineDeductionPence -= net;
      deductionLines += 1;
      const rate = readCisDeductionLineRate(line.description);
      if (rate !== null) rates.add(rate);
      continue;
    }
    grossPence += net;
    if (line.accountCode !== null && materials.has(line.accountCode)) materialsPence += net;
    if (line.accountCode !== null && labourAccounts.has(line.accountCode)) onXeroCisLabour = true;
  }
  const xeroDeductionPence = Math.max(0, doc.xeroDeductionPence ?? 0);
  const xeroRate = toCisRate(doc.xeroRate);
  if (xeroDeductionPence > 0 && xeroRate !== null) rates.add(xeroRate);
  return {
    grossPence,
    labourPence: Math.max(0, grossPence - materialsPence),
    materialsPence,
    vatPence,
    lineDeductionPence,
    xeroDeductionPence,
    deductionPence: lineDeductionPence + xeroDeductionPence,
    deductionLines,
    rateUsed: rates.size === 1 ? ([...rates][0] ?? null) : null,
    onXeroCisLabour,
  };
}

/** What tells a bill's lines apart, and the subcontractor's rate in Xero's CIS settings for the contact. */
export interface CisBillContext extends CisLineRule {
  cisLabourAccountCodes: readonly string[];
  /** The subcontractor's rate in Xero's CIS settings for the contact; null when Xero has none (not CIS). */
  contactRate: CisRate | null;
}

/**
 * A bill read for CIS Bills (issue 42): who booked its deduction and its figures. `ledgerlink`: it carries a
 * deduction line (Ledgerlink's booking); `xero`: entered with Xero's own CIS (Xero's CISDeduction above 0, or a
 * CIS subcontractor's bill on Xero's CIS Labour Expense account); in both the deduction is what the bill holds
 * (what Xero shows as due and what the CIS return counts: {@link readCisDocument}). `none`: no deduction booked
 * yet: its figures say what the deduction should be at the contact's rate (what approving it books).
 * `bookedPence` is the deduction the bill holds now.
 */
export interface CisBillReading extends CisBillFigures {
  source: 'ledgerlink' | 'xero' | 'none';
  bookedPence: number;
}

/** Reads a bill's CIS figures for CIS Bills, from the one reading of its lines ({@link readCisDocument}). */
export function readCisBill(
  bill: {
    lineAmountTypes: string | null;
    lines: readonly CisBillLine[];
    /** Xero's CISDeduction and CISRate (null when Xero sent none). */
    xeroCisDeductionPence: number | null;
    xeroCisRate: number | null;
  },
  context: CisBillContext,
): CisBillReading {
  const read = readCisDocument(
    {
      lineAmountTypes: bill.lineAmountTypes,
      lines: bill.lines,
      xeroDeductionPence: bill.xeroCisDeductionPence,
      xeroRate: bill.xeroCisRate,
    },
    context,
  );
  const parts = {
    labourPence: read.labourPence,
    materialsPence: read.materialsPence,
    vatPence: read.vatPence,
  };
  const source =
    read.deductionLines > 0
      ? 'ledgerlink'
      : read.xeroDeductionPence > 0 || (context.contactRate !== null && read.onXeroCisLabour)
        ? 'xero'
        : 'none';
  if (source === 'none')
    return { ...splitCisBill({ ...parts, rate: context.contactRate }), source, bookedPence: 0 };
  const rate =
    source === 'xero'
      ? (toCisRate(bill.xeroCisRate) ?? read.rateUsed ?? context.contactRate)
      : (read.rateUsed ?? context.contactRate);
  const figures = splitCisBill({ ...parts, rate });
  return {
    ...figures,
    cisDeductionPence: read.deductionPence,
    amountDuePence: figures.totalPence - read.deductionPence,
    source,
    bookedPence: read.deductionPence,
  };
}

/**
 * The UK tax year holding a date: it starts on 6 April (docs/product/features.md §9). Returns the calendar
 * years it starts and ends in and its first day.
 */
export function getUkTaxYear(isoDate: string): { startYear: number; endYear: number; startDate: string } {
  const { year, month, day } = getDateParts(isoDate);
  const startYear = month > 4 || (month === 4 && day >= 6) ? year : year - 1;
  return { startYear, endYear: startYear + 1, startDate: createIsoDate(startYear, 4, 6) };
}

/**
 * Tax week of a date: week 1 is 6–12 April, each week is 7 days from the start of the tax year; the one
 * or two days left at the end of the year (5 April, and 4 April in a year ending in a leap year) form week
 * 53, as in HMRC's payroll calendar.
 */
export function getUkTaxWeek(isoDate: string): number {
  const { startDate } = getUkTaxYear(isoDate);
  return Math.floor(getDaysBetween(startDate, isoDate) / 7) + 1;
}

/**
 * Tax-week reference of a CIS bill (docs/product/features.md §9): "from the UK tax year starting 6 April, the
 * 2-digit week number followed by the 2-digit end year". The end year is the calendar year the tax year ends
 * in (2025/26 → "26"), matching the placeholder "like 0123" of docs/product/features.md §2. 6 April 2025 →
 * "0126"; 5 April 2026 → "5326".
 */
export function getTaxWeekReference(isoDate: string): string {
  const week = getUkTaxWeek(isoDate);
  const { endYear } = getUkTaxYear(isoDate);
  return `${String(week).padStart(2, '0')}${String(endYear % 100).padStart(2, '0')}`;
}
