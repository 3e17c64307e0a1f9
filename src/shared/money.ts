/**
 * Money rules shared by client and server.
 *
 * Representation (docs/architecture.md §5, docs/code-style.md §3): every calculation works on integer pence.
 * Amounts cross the wire as JSON numbers in pounds with at most 2 decimals (the spec's client sends and reads
 * numbers, e.g. `cashAmount (number)` in docs/product/features.md §7); they are converted to pence at the
 * boundary with {@link toPence} and back with {@link fromPence}. A number such as 12.34 cannot be stored
 * exactly in binary floating point, but pence ÷ 100 always yields the double nearest to the 2-decimal value,
 * so the round trip is exact.
 *
 * Rounding: {@link roundHalfUp} (half away from zero) is the default everywhere a fraction of a penny
 * appears. It is the "nearest penny" rule of HMRC guidance and what an accountant checking by hand does.
 * Xero's own documentation ("Rounding in Xero") says only that it rounds per line to 2 decimals; the
 * rule it applies to an exact half is not documented, and third-party sources disagree, so where Xero
 * computes a figure we show Xero's returned value instead of ours. {@link roundHalfEven} (banker's) is
 * provided for comparisons with systems that use it. The CIS 20 % deduction never meets a tie (a fifth
 * of a whole number of pence is never exactly half a penny), so the choice only matters for
 * gross-from-net and journal amounts.
 */
import { z } from 'zod';

/** Amount tolerance of docs/product/features.md §9: 0.01, in pence. */
export const AMOUNT_TOLERANCE_PENCE = 1;

/** Largest amount accepted anywhere: £999,999,999.99 (keeps pence × 10^6 intermediate maths exact). */
export const MAX_AMOUNT_PENCE = 99_999_999_999;

const DIGITS_RE = /^\d+$/;

interface DecimalParts {
  sign: '' | '-' | '+';
  whole: string;
  fraction: string;
}

/**
 * Split decimal text into sign, whole digits and fraction digits; null when it is not plain decimal text.
 * `allowEmptyWhole` accepts ".5" and "" (what a user may type).
 */
function splitDecimal(text: string, allowEmptyWhole = false): DecimalParts | null {
  let rest = text;
  let sign: DecimalParts['sign'] = '';
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] as '-' | '+';
    rest = rest.slice(1);
  }
  const pieces = rest.split('.');
  if (pieces.length > 2) return null;
  const whole = pieces[0] ?? '';
  const fraction = pieces[1] ?? '';
  if (whole === '' ? !allowEmptyWhole : !DIGITS_RE.test(whole)) return null;
  if (fraction !== '' && !DIGITS_RE.test(fraction)) return null;
  return { sign, whole, fraction };
}

/** Error raised when a value cannot be represented as whole pence. */
export class MoneyError extends RangeError {
  override name = 'MoneyError';
}

/**
 * Expand a finite number into a plain decimal string using its shortest round-trip form (so 1.005 is
 * "1.005", not the binary 1.00499999…), without exponent notation.
 */
function expandNumber(value: number): string {
  const text = String(value);
  const [mantissa = '', exponent] = text.toLowerCase().split('e');
  if (exponent === undefined) return text;
  const parts = splitDecimal(mantissa);
  if (!parts) return text;
  const sign = parts.sign === '-' ? '-' : '';
  const digits = parts.whole + parts.fraction;
  const pointAt = parts.whole.length + Number(exponent);
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/**
 * Divide two integers and round to the nearest integer, halves away from zero (the default rounding,
 * see the module comment). Works on bigint so intermediate products never lose precision.
 */
export function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new MoneyError('Division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const remainder = n % d;
  const rounded = remainder * 2n >= d ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

/**
 * Divide two integers and round to the nearest integer, exact halves to the even neighbour (banker's
 * rounding). Provided for comparison with systems that use it; see the module comment for why it is not
 * the default.
 */
export function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new MoneyError('Division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const twice = (n % d) * 2n;
  let rounded = quotient;
  if (twice > d || (twice === d && quotient % 2n === 1n)) rounded = quotient + 1n;
  return negative ? -rounded : rounded;
}

/** Throw unless the value is a whole number of pence within the supported range. */
export function assertPence(pence: number): number {
  if (!Number.isSafeInteger(pence) || Math.abs(pence) > MAX_AMOUNT_PENCE) {
    throw new MoneyError(`Not a whole number of pence within range: ${pence}`);
  }
  return pence === 0 ? 0 : pence; // normalise -0
}

/**
 * Parse an amount in pounds (a number or a decimal string such as "1234.5", "-0.01", "£1,234.56") into
 * integer pence. Returns null for anything that is not a finite amount with at most 2 decimals
 * (docs/product/features.md §5 "Amount format: up to 2 decimals"; docs/product/features.md §9), so "1.005"
 * and 1.005 are rejected, never rounded. Empty text is null too.
 */
export function findPence(value: number | string): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = expandNumber(value);
  } else {
    text = value
      .trim()
      .replace(/^(-?)£/, '$1')
      .replace(/,(?=\d{3}(?:\D|$))/g, '');
  }
  const parts = splitDecimal(text);
  if (!parts || parts.fraction.length > 2 || parts.whole.length > 15) return null;
  const pence = Number(parts.whole) * 100 + Number(parts.fraction.padEnd(2, '0'));
  if (!Number.isSafeInteger(pence) || pence > MAX_AMOUNT_PENCE) return null;
  const signed = parts.sign === '-' ? -pence : pence;
  return signed === 0 ? 0 : signed;
}

/**
 * Convert pounds to integer pence, rejecting input with more than 2 decimals (docs/product/features.md §9
 * "Amount format: up to 2 decimals"). Throws {@link MoneyError}; use {@link findPence} for a null result
 * instead.
 */
export function toPence(value: number | string): number {
  const pence = findPence(value);
  if (pence === null) throw new MoneyError(`Not an amount with at most 2 decimals: ${String(value)}`);
  return pence;
}

/** Convert integer pence to pounds as a JSON number (exactly the nearest double to the 2-decimal value). */
export function fromPence(pence: number): number {
  const value = assertPence(pence) / 100;
  return value === 0 ? 0 : value;
}

/**
 * Round any pounds figure (for example a computed ratio) to integer pence, halves away from zero, using
 * the number's decimal form so 1.005 becomes 101 pence and not 100 (module comment, rounding).
 */
export function roundPoundsToPence(value: number): number {
  if (!Number.isFinite(value)) throw new MoneyError(`Not a finite amount: ${value}`);
  // Fast path: a figure within a millionth of a whole penny rounds to that penny under any rule (the usual
  // case of a 2-decimal amount, whose ×100 is off by float noise only). Everything else is rounded exactly.
  const scaled = value * 100;
  const nearest = Math.round(scaled);
  if (Math.abs(scaled - nearest) < 1e-6 && Math.abs(nearest) <= MAX_AMOUNT_PENCE)
    return nearest === 0 ? 0 : nearest;
  const parts = splitDecimal(expandNumber(value));
  if (!parts) throw new MoneyError(`Not a finite amount: ${value}`);
  const scale = 10n ** BigInt(parts.fraction.length);
  const rounded = roundHalfUp(BigInt(`${parts.whole}${parts.fraction}`) * 100n, scale);
  return assertPence(Number(parts.sign === '-' ? -rounded : rounded));
}

/** Add amounts in pence; throws when the total leaves the supported range (no silent float overflow). */
export function sumPence(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total = assertPence(total + assertPence(value));
  return total;
}

/**
 * Multiply pence by a rational factor numerator/denominator and round half up to whole pence. Used for
 * percentages (e.g. 20 % = 20/100) so no float ever touches the amount.
 */
export function multiplyPence(pence: number, numerator: number, denominator: number): number {
  const result = roundHalfUp(BigInt(assertPence(pence)) * BigInt(numerator), BigInt(denominator));
  return assertPence(Number(result));
}

/**
 * Amounts smaller than 0.01 count as zero (docs/product/shell.md §9): true when |amount| < 0.01. A non-finite
 * figure (NaN from an empty field, Infinity) also counts as zero, so the screen shows "£0.00" rather than
 * "£NaN".
 */
export function isEffectivelyZero(pounds: number): boolean {
  return !Number.isFinite(pounds) || Math.abs(pounds) < 0.01 - 1e-9;
}

/**
 * Currency symbol rule of docs/product/shell.md §9 / docs/product/features.md §9: "£" for GBP and "$"
 * otherwise.
 */
export function getCurrencySymbol(currency: string | null | undefined = 'GBP'): '£' | '$' {
  return (currency ?? 'GBP').toUpperCase() === 'GBP' ? '£' : '$';
}

/** Format pence as a plain decimal with 2 places and no symbol or separators: 123456 → "1234.56". */
export function formatPenceAsDecimal(pence: number): string {
  const value = assertPence(pence);
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function groupThousands(digits: string): string {
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  return groups.join(',');
}

/**
 * Format pence as money (docs/product/shell.md §9: £, 2 decimals and thousands separators; "£" for GBP, "$"
 * otherwise): 123456 → "£1,234.56", -5 → "-£0.05", 0 → "£0.00".
 */
export function formatMoney(pence: number, currency: string | null | undefined = 'GBP'): string {
  const value = assertPence(pence);
  const abs = Math.abs(value);
  const pounds = groupThousands(String(Math.trunc(abs / 100)));
  const sign = value < 0 ? '-' : '';
  return `${sign}${getCurrencySymbol(currency)}${pounds}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Format an amount in pounds (a wire number) as money. Amounts smaller than 0.01 count as zero and show
 * "£0.00", never "-£0.00" (docs/product/shell.md §9); other figures are rounded half up to the penny first.
 */
export function formatPounds(pounds: number, currency: string | null | undefined = 'GBP'): string {
  if (isEffectivelyZero(pounds)) return formatMoney(0, currency);
  return formatMoney(roundPoundsToPence(pounds), currency);
}

/**
 * Whether text typed into an amount box is acceptable: only digits with at most two decimals, empty
 * allowed (docs/product/features.md §5 Pay Invoices, "Payment amounts accept only digits with at most two
 * decimals").
 */
export function isAmountInput(text: string): boolean {
  if (text === '') return true;
  const parts = splitDecimal(text, true);
  return parts !== null && parts.sign === '' && parts.fraction.length <= 2;
}

/** Parse amount-box text to pence; empty or invalid text gives 0 (how the client treats it in sums). */
export function parseAmountInput(text: string | null | undefined): number {
  const trimmed = (text ?? '').trim();
  if (trimmed === '' || trimmed === '.') return 0;
  return findPence(trimmed.startsWith('.') ? `0${trimmed}` : trimmed) ?? 0;
}

function checkTwoDecimals(value: number, ctx: z.RefinementCtx): void {
  if (findPence(value) === null) {
    ctx.addIssue({ code: 'custom', message: 'Amount must have at most 2 decimals' });
  }
}

/** A money amount on the wire: a finite JSON number in pounds with at most 2 decimals, within range. */
export const moneyAmountSchema = z
  .number()
  .finite()
  .min(-MAX_AMOUNT_PENCE / 100)
  .max(MAX_AMOUNT_PENCE / 100)
  .superRefine(checkTwoDecimals);

/** A money amount of zero or more (2 decimals at most). */
export const nonNegativeMoneySchema = moneyAmountSchema.refine((v) => v >= 0, 'Amount must not be negative');

/** A money amount above zero (2 decimals at most). */
export const positiveMoneySchema = moneyAmountSchema.refine((v) => v > 0, 'Amount must be greater than 0');

/** Integer pence (internal representation, e.g. between server layers). */
export const penceSchema = z.number().int().min(-MAX_AMOUNT_PENCE).max(MAX_AMOUNT_PENCE);
export type Pence = z.infer<typeof penceSchema>;
