/**
 * Money arithmetic in integers: amounts are pence, quantities and unit amounts are stored with four
 * decimals (×10 000), tax rates with four decimals (20% = 200 000). No float ever touches a total.
 */

/** Divide and round half away from zero (how Xero rounds line tax and line amounts). */
export function divRound(numerator: bigint, denominator: bigint): bigint {
  if (denominator < 0n) return divRound(-numerator, -denominator);
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  const q = (abs * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

/** Parse a JSON number or numeric string into an integer with `dp` decimals; null when not a finite number. */
export function toScaled(value: unknown, dp: number): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = value.toFixed(Math.min(dp + 4, 20));
  } else if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) {
    text = value.trim();
  } else {
    return null;
  }
  const negative = text.startsWith('-');
  const [intPart = '0', fracPart = ''] = text.replace('-', '').split('.');
  const frac = (fracPart + '0'.repeat(dp + 1)).slice(0, dp + 1);
  const raw = BigInt(intPart + frac);
  const rounded = divRound(raw, 10n);
  const result = Number(negative ? -rounded : rounded);
  return Object.is(result, -0) ? 0 : result;
}

/** Whether the value carries more than `dp` decimals (e.g. 10.005 as money). */
export function hasMoreDecimals(value: unknown, dp: number): boolean {
  if (typeof value !== 'number' && typeof value !== 'string') return false;
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (/e/i.test(text)) return false;
  const frac = text.split('.')[1] ?? '';
  return frac.replace(/0+$/, '').length > dp;
}

export const penceFrom = (value: unknown): number | null => toScaled(value, 2);

/** Integer pence → JSON number of pounds (the wire format). */
export function pounds(pence: number): number {
  return Math.round(pence) / 100;
}

/** Integer ×10 000 → JSON number. */
export function fromE4(value: number): number {
  return value / 10000;
}

export interface LineInput {
  quantityE4: number;
  unitE4: number;
  /** Discount percent ×100 (12.5% = 1250), 0 when none. */
  discountE2: number;
}

/** Line amount in pence = round(quantity × unit amount × (1 − discount)). */
export function lineAmountPence({ quantityE4, unitE4, discountE2 }: LineInput): number {
  const gross = BigInt(quantityE4) * BigInt(unitE4) * BigInt(10000 - discountE2);
  // quantity ×1e4, unit ×1e4 (pounds), discount factor ×1e4 → pounds ×1e12 → pence ×1e10.
  return Number(divRound(gross, 10_000_000_000n));
}

export type LineAmountTypes = 'Exclusive' | 'Inclusive' | 'NoTax';

/** Tax on one line, rounded per line as Xero does. rateE4 is the percentage ×10 000 (20% = 200 000). */
export function lineTaxPence(lineAmount: number, rateE4: number, mode: LineAmountTypes): number {
  if (mode === 'NoTax' || rateE4 === 0) return 0;
  const amount = BigInt(lineAmount);
  const rate = BigInt(rateE4);
  if (mode === 'Exclusive') return Number(divRound(amount * rate, 1_000_000n));
  return Number(divRound(amount * rate, 1_000_000n + rate));
}

export interface Totals {
  subTotal: number;
  totalTax: number;
  total: number;
}

/** Document totals from per-line amounts and taxes (pence). */
export function documentTotals(
  lines: { lineAmount: number; taxAmount: number }[],
  mode: LineAmountTypes,
): Totals {
  const sumLines = lines.reduce((s, l) => s + l.lineAmount, 0);
  const totalTax = lines.reduce((s, l) => s + l.taxAmount, 0);
  if (mode === 'Inclusive') return { subTotal: sumLines - totalTax, totalTax, total: sumLines };
  return { subTotal: sumLines, totalTax, total: sumLines + totalTax };
}

/** "1,234.56" for messages. */
export function formatPounds(pence: number): string {
  const sign = pence < 0 ? '-' : '';
  const abs = Math.abs(pence);
  return `${sign}${Math.floor(abs / 100).toLocaleString('en-GB')}.${String(abs % 100).padStart(2, '0')}`;
}
