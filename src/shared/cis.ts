/**
 * Construction Industry Scheme (CIS) maths of docs/product/features.md §9, on integer pence.
 *
 * "CIS deduction is 20% of the bill total; amount due 80%. If only amountDue is known, total = amountDue /
 * 0.8. Gross from net is net / 0.8."
 *
 * Rounding: the deduction is rounded half up to the penny and the amount due is the total minus the
 * deduction, so deduction + amount due = total always holds to the penny. A fifth of a whole number of
 * pence is never exactly half a penny, so the deduction never meets a tie. Gross from net (÷ 0.8 = × 5/4)
 * can meet a tie; it is rounded half up, and the result always splits back to the same net (tested).
 */
import { getDateParts, getDaysBetween, createIsoDate } from './dates';
import { assertPence, multiplyPence } from './money';

/** CIS standard deduction rate, percent (docs/product/features.md §9). */
export const CIS_DEDUCTION_PERCENT = 20;
/** Share of the total paid to the subcontractor, percent (docs/product/features.md §9). */
export const CIS_AMOUNT_DUE_PERCENT = 80;

/** The split of a CIS bill total, all in pence. */
interface CisSplit {
  totalPence: number;
  cisDeductionPence: number;
  amountDuePence: number;
}

/** CIS deduction: 20 % of the bill total, rounded half up to the penny (docs/product/features.md §9). */
export function getCisDeductionPence(totalPence: number): number {
  return multiplyPence(totalPence, CIS_DEDUCTION_PERCENT, 100);
}

/** Amount due: the bill total minus the 20 % deduction, i.e. 80 % (docs/product/features.md §9). */
export function getCisAmountDuePence(totalPence: number): number {
  return assertPence(totalPence - getCisDeductionPence(totalPence));
}

/**
 * Split a CIS bill total into deduction (20 %) and amount due (80 %); the parts add up to the total
 * (docs/product/features.md §9).
 */
export function splitCisTotal(totalPence: number): CisSplit {
  const cisDeductionPence = getCisDeductionPence(totalPence);
  return {
    totalPence: assertPence(totalPence),
    cisDeductionPence,
    amountDuePence: totalPence - cisDeductionPence,
  };
}

/**
 * Total from amount due: "If only amountDue is known, total = amountDue / 0.8" (docs/product/features.md §9),
 * i.e. × 5/4, rounded half up. {@link splitCisTotal} of the result gives back the same amount due.
 */
export function getCisTotalFromAmountDuePence(amountDuePence: number): number {
  return multiplyPence(amountDuePence, 5, 4);
}

/**
 * Gross from net: "Gross from net is net / 0.8" (docs/product/features.md §9). Same rule as total from amount
 * due.
 */
export function getCisGrossFromNetPence(netPence: number): number {
  return getCisTotalFromAmountDuePence(netPence);
}

/**
 * Net from gross (the "Converted to net (80%)" direction of docs/product/features.md §2): the amount due of
 * that gross.
 */
export function getCisNetFromGrossPence(grossPence: number): number {
  return getCisAmountDuePence(grossPence);
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
