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

/** The rate when `value` is one of HMRC's three (0, 20, 30), else null. */
export function toCisRate(value: unknown): CisRate | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return n === 0 || n === 20 || n === 30 ? n : null;
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

const DEDUCTION_LINE_RE = /^CIS deduction at (0|20|30)%$/;

/** The rate a deduction line's description names, or null when it is not one of Ledgerlink's. */
export function readCisDeductionLineRate(description: string | null | undefined): CisRate | null {
  const match = DEDUCTION_LINE_RE.exec((description ?? '').trim());
  return match ? toCisRate(match[1]) : null;
}

/** A bill line as the CIS rules read it: its account, description, amount and VAT, in pence. */
export interface CisBillLine {
  accountCode: string | null;
  description: string | null;
  lineAmountPence: number;
  taxAmountPence: number;
}

/** What tells a bill's lines apart: the organisation's CIS settings, Xero's CIS accounts, the contact's rate. */
export interface CisBillContext {
  /** The liability account Ledgerlink books deductions to (Settings); null until chosen. */
  deductionAccountCode: string | null;
  /** Accounts whose lines are materials: the CIS settings' ones and Xero's CIS Materials account. */
  materialsAccountCodes: readonly string[];
  /** Codes of Xero's CIS Labour Expense account: a bill on it was entered with Xero's own CIS. */
  cisLabourAccountCodes: readonly string[];
  /** The subcontractor's rate in Xero's CIS settings for the contact; null when Xero has none (not CIS). */
  contactRate: CisRate | null;
}

/**
 * A bill read for CIS (issue 42): who booked its deduction and its figures. `ledgerlink`: it carries a
 * deduction line (Ledgerlink's booking); `xero`: entered with Xero's own CIS (a CIS subcontractor's bill on
 * Xero's CIS Labour Expense account, or with a CISDeduction above 0), counted as Xero says; `none`: no
 * deduction booked yet — its figures say what the deduction should be at the contact's rate. `bookedPence`
 * is the deduction the bill holds now (the deduction line's, or Xero's).
 */
export interface CisBillReading extends CisBillFigures {
  source: 'ledgerlink' | 'xero' | 'none';
  bookedPence: number;
}

/** Whether a line is Ledgerlink's deduction line: below zero, on the deductions account or worded as one. */
export function isCisDeductionLine(line: CisBillLine, deductionAccountCode: string | null): boolean {
  if (line.lineAmountPence >= 0) return false;
  if (deductionAccountCode && line.accountCode === deductionAccountCode) return true;
  return readCisDeductionLineRate(line.description) !== null;
}

/**
 * Reads a bill's CIS figures from its lines (Xero's amounts, in pence). Lines are labour unless they are on a
 * materials account or are the deduction line; VAT is the VAT of the other lines.
 */
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
  const inclusive = bill.lineAmountTypes === 'Inclusive';
  const deductionLines = bill.lines.filter((l) => isCisDeductionLine(l, context.deductionAccountCode));
  const others = bill.lines.filter((l) => !deductionLines.includes(l));
  const materials = new Set(context.materialsAccountCodes);
  const net = (l: CisBillLine) => (inclusive ? l.lineAmountPence - l.taxAmountPence : l.lineAmountPence);
  const vatPence = others.reduce((sum, l) => sum + l.taxAmountPence, 0);
  const materialsPence = others
    .filter((l) => l.accountCode !== null && materials.has(l.accountCode))
    .reduce((sum, l) => sum + net(l), 0);
  const netPence = others.reduce((sum, l) => sum + net(l), 0);
  const labourPence = Math.max(0, netPence - materialsPence);
  const bookedLine = -deductionLines.reduce((sum, l) => sum + l.lineAmountPence, 0);

  if (deductionLines.length > 0) {
    const rate = readCisDeductionLineRate(deductionLines[0]?.description) ?? context.contactRate;
    return {
      ...splitCisBill({ labourPence, materialsPence, vatPence, rate }),
      source: 'ledgerlink',
      bookedPence: bookedLine,
    };
  }
  const labourAccounts = new Set(context.cisLabourAccountCodes);
  const onXeroCis = others.some((l) => l.accountCode !== null && labourAccounts.has(l.accountCode));
  const xeroDeduction = bill.xeroCisDeductionPence ?? 0;
  if (context.contactRate !== null && (onXeroCis || xeroDeduction > 0)) {
    const figures = splitCisBill({
      labourPence,
      materialsPence,
      vatPence,
      rate: toCisRate(bill.xeroCisRate) ?? context.contactRate,
    });
    return {
      ...figures,
      cisDeductionPence: xeroDeduction,
      amountDuePence: figures.totalPence - xeroDeduction,
      source: 'xero',
      bookedPence: xeroDeduction,
    };
  }
  return {
    ...splitCisBill({ labourPence, materialsPence, vatPence, rate: context.contactRate }),
    source: 'none',
    bookedPence: 0,
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
