/**
 * Calendar-date rules shared by client and server.
 *
 * A business date is a `YYYY-MM-DD` string (an "ISO date"): it names a day in UK time and carries no
 * clock time, so it never shifts across the clocks changing in March and October. All arithmetic on ISO
 * dates is done on UTC midnights (where every day is exactly 24 h), and only "what day is it now" and the
 * conversion of Xero timestamps consult the Europe/London time zone.
 */
import { z } from 'zod';

/** The time zone of the business (UK). */
export const UK_TIME_ZONE = 'Europe/London';

const ISO_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const MONTHS_SHORT = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;
/** January … December. */
export const MONTHS_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** Whether text is a real calendar date written `YYYY-MM-DD` (so 2025-02-29 is false). */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE_RE.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return (
    date.getUTCFullYear() === Number(match[1]) &&
    date.getUTCMonth() === Number(match[2]) - 1 &&
    date.getUTCDate() === Number(match[3]) &&
    Number(match[1]) >= 1000
  );
}

/**
 * A calendar date on the wire: `YYYY-MM-DD` (docs/product/features.md §7 "yyyy-MM-dd"; docs/code-style.md §3
 * "Dates cross the wire as ISO strings").
 */
export const isoDateSchema = z.string().refine(isIsoDate, 'Date must be a valid date written YYYY-MM-DD');

/**
 * The dates a document sent to Xero may carry (issue 28): Xero publishes no range for `Date` (its OpenAPI file
 * and docs/xero-api.md say only `YYYY-MM-DD`), so Ledgerlink keeps to the one HMRC's Making Tax Digital APIs
 * accept, where these figures end up (CIS returns, VAT): 1 January 1900 to 31 December 2099. A bill dated
 * 9999-12-31 is a typing slip, refused before anything is recorded or sent.
 */
export const EARLIEST_DOCUMENT_DATE = '1900-01-01';
export const LATEST_DOCUMENT_DATE = '2099-12-31';
export const DOCUMENT_DATE_RANGE_MESSAGE = 'Date must be between 1 Jan 1900 and 31 Dec 2099';

/** A real `YYYY-MM-DD` date inside the range a document sent to Xero may carry. */
export function isDocumentDate(text: string): boolean {
  return isIsoDate(text) && text >= EARLIEST_DOCUMENT_DATE && text <= LATEST_DOCUMENT_DATE;
}

/**
 * A date a request asks Ledgerlink to send to Xero: `YYYY-MM-DD`, within the document range. `formatMessage`
 * is the answer to text that is not a date at all (the form's own wording where the product gives one).
 */
export function documentDateSchema(formatMessage = 'Date must be a valid date written YYYY-MM-DD') {
  return z
    .string({ error: formatMessage })
    .max(10, formatMessage)
    .refine(isIsoDate, formatMessage)
    .refine((text) => !isIsoDate(text) || isDocumentDate(text), DOCUMENT_DATE_RANGE_MESSAGE);
}

/** Split an ISO date into numbers; throws on anything that is not a valid `YYYY-MM-DD`. */
export function getDateParts(isoDate: string): { year: number; month: number; day: number } {
  if (!isIsoDate(isoDate)) throw new RangeError(`Not a YYYY-MM-DD date: ${isoDate}`);
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

/** Build an ISO date from year, month (1–12) and day, normalising overflow (day 0 = last of previous month). */
export function createIsoDate(year: number, month: number, day: number): string {
  return fromUtcMs(Date.UTC(year, month - 1, day));
}

function toUtcMs(isoDate: string): number {
  const { year, month, day } = getDateParts(isoDate);
  return Date.UTC(year, month - 1, day);
}

function fromUtcMs(ms: number): string {
  const date = new Date(ms);
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  return `${year}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCDate()).padStart(2, '0')}`;
}

/** Add (or with a negative count subtract) whole calendar days to an ISO date. */
export function addDays(isoDate: string, days: number): string {
  return fromUtcMs(toUtcMs(isoDate) + days * DAY_MS);
}

/** Whole calendar days from `from` to `to` (positive when `to` is later). */
export function getDaysBetween(from: string, to: string): number {
  return Math.round((toUtcMs(to) - toUtcMs(from)) / DAY_MS);
}

/** Day of the week of an ISO date, ISO numbering: Monday 1 … Sunday 7. */
export function getIsoWeekday(isoDate: string): number {
  const day = new Date(toUtcMs(isoDate)).getUTCDay();
  return day === 0 ? 7 : day;
}

/**
 * Monday of the Monday–Sunday week holding the date (weeks run Monday to Sunday, docs/architecture.md §4
 * Stock Journal).
 */
export function getWeekStart(isoDate: string): string {
  return addDays(isoDate, 1 - getIsoWeekday(isoDate));
}

/** Sunday of the Monday–Sunday week holding the date. */
export function getWeekEnd(isoDate: string): string {
  return addDays(getWeekStart(isoDate), 6);
}

/** First day of the date's calendar month. */
export function getMonthStart(isoDate: string): string {
  const { year, month } = getDateParts(isoDate);
  return createIsoDate(year, month, 1);
}

/** Last day of the date's calendar month (28–31, leap years included). */
export function getMonthEnd(isoDate: string): string {
  const { year, month } = getDateParts(isoDate);
  return createIsoDate(year, month + 1, 0);
}

/** Whether two ISO dates fall in the same calendar month. */
export function isSameMonth(a: string, b: string): boolean {
  return a.slice(0, 7) === b.slice(0, 7);
}

/**
 * Split an inclusive date range at month ends (docs/product/features.md §2 Stock Journal: "first to the end
 * of the start month, then the next month start through the period end"). A range inside one month comes back
 * whole.
 */
export function splitRangeByMonth(start: string, end: string): Array<{ start: string; end: string }> {
  if (toUtcMs(end) < toUtcMs(start)) throw new RangeError(`Range ends before it starts: ${start} to ${end}`);
  const parts: Array<{ start: string; end: string }> = [];
  let cursor = start;
  while (!isSameMonth(cursor, end)) {
    const monthEnd = getMonthEnd(cursor);
    parts.push({ start: cursor, end: monthEnd });
    cursor = addDays(monthEnd, 1);
  }
  parts.push({ start: cursor, end });
  return parts;
}

/** Compare two ISO dates for sorting (they sort as text). */
export function compareIsoDates(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

let londonFormat: Intl.DateTimeFormat | undefined;

function getLondonParts(instant: Date): {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
} {
  // One formatter for the process: building an Intl.DateTimeFormat costs far more than using it.
  londonFormat ??= new Intl.DateTimeFormat('en-GB', {
    timeZone: UK_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const parts = londonFormat.formatToParts(instant);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
  };
}

/**
 * UK dates by UTC hour: the UK's offset from UTC is a whole hour and changes only on the hour (01:00 UTC), so
 * every instant of one UTC hour falls on one UK date. Xero's dates are midnights, so a page of invoices asks
 * for a few hours many times (formatToParts was the most of a first visit's date work: issue 32).
 */
const ukDateByHour = new Map<number, string>();
const HOUR_MS = 3_600_000;

/** The calendar date of an instant in UK time (Europe/London, GMT or BST). */
export function toUkIsoDate(instant: Date | number): string {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('Invalid instant');
  const hour = Math.floor(ms / HOUR_MS);
  const known = ukDateByHour.get(hour);
  if (known !== undefined) return known;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid instant');
  const { year, month, day } = getLondonParts(date);
  const iso = createIsoDate(year, month, day);
  if (ukDateByHour.size >= 10_000) ukDateByHour.clear();
  ukDateByHour.set(hour, iso);
  return iso;
}

/** Today's date in the UK (default `now` is the current instant). */
export function getUkToday(now: Date = new Date()): string {
  return toUkIsoDate(now);
}

/**
 * The default sales range: the current calendar month, first to last day, in UK time
 * (docs/product/features.md §2 Stock Journal "default to first and last day of the current month";
 * docs/product/features.md §9).
 */
export function getCurrentMonthRange(now: Date = new Date()): { fromDate: string; toDate: string } {
  const today = getUkToday(now);
  return { fromDate: getMonthStart(today), toDate: getMonthEnd(today) };
}

const XERO_MS_RE = /^-?\d{1,16}$/;
const XERO_OFFSET_RE = /^[+-]\d{4}$/;

/** Split `/Date(ms±hhmm)/` into milliseconds and the optional offset; null for anything else. */
function splitXeroDate(value: string): { ms: number; offset: string | null } | null {
  const text = value.trim();
  if (!text.startsWith('/Date(') || !text.endsWith(')/')) return null;
  const inner = text.slice(6, -2);
  const offsetAt = Math.max(inner.lastIndexOf('+'), inner.lastIndexOf('-'));
  const hasOffset = offsetAt > 0;
  const msText = hasOffset ? inner.slice(0, offsetAt) : inner;
  const offset = hasOffset ? inner.slice(offsetAt) : null;
  if (!XERO_MS_RE.test(msText) || (offset !== null && !XERO_OFFSET_RE.test(offset))) return null;
  const ms = Number(msText);
  if (Math.abs(ms) > 8.64e15) return null;
  return { ms, offset };
}

/**
 * Convert a Xero Microsoft-JSON date such as `/Date(1539993600000+0000)/` to an ISO date.
 *
 * The number is Unix milliseconds. Xero encodes calendar dates (Date, DueDate) as midnight UTC of the day;
 * timestamps (UpdatedDateUTC) are real instants. With no offset or `+0000` the result is the calendar date
 * in Europe/London: for a calendar date that is the same day (London is UTC or UTC+1, so midnight UTC
 * never changes day), and for a timestamp it is the UK day the event happened. With any other explicit
 * offset (Xero documents that "+1300" can appear) the offset is applied and the wall-clock date in that
 * offset is returned, because that is the day the provider meant. Returns null for text that is not a
 * Xero date.
 */
export function convertXeroDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const parsed = splitXeroDate(value);
  if (!parsed) return null;
  const { ms, offset } = parsed;
  if (offset && offset !== '+0000' && offset !== '-0000') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const minutes = Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5));
    return fromUtcMs(ms + sign * minutes * 60_000);
  }
  return toUkIsoDate(ms);
}

/**
 * Convert a Xero timestamp `/Date(ms±hhmm)/` to an ISO-8601 instant in UTC (`2025-03-30T01:30:00.000Z`),
 * the offset being informational in Microsoft JSON dates. Null for anything else.
 */
export function convertXeroTimestamp(value: string | null | undefined): string | null {
  if (!value) return null;
  const parsed = splitXeroDate(value);
  return parsed ? new Date(parsed.ms).toISOString() : null;
}

/**
 * Display an ISO date as dd/mm/yyyy (en-GB), as on Add Invoices (docs/product/features.md §9): "2025-04-06" →
 * "06/04/2025".
 */
export function formatDateNumeric(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `${String(day).padStart(2, '0')}/${String(month).padStart(2, '0')}/${year}`;
}

/**
 * Display an ISO date as dd MMM yyyy (docs/product/features.md §9), e.g. the CIS draft bills column: "06 Apr
 * 2025".
 */
export function formatDateMedium(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `${String(day).padStart(2, '0')} ${MONTHS_SHORT[month - 1]} ${year}`;
}

/**
 * Display an ISO date as d MMM yyyy (docs/product/features.md §9), as in the stock journal reference: "6 Apr
 * 2025".
 */
export function formatDateShort(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `${day} ${MONTHS_SHORT[month - 1]} ${year}`;
}

/**
 * Display an ISO date like date-fns `PPP` with its default locale (docs/product/features.md §9 "PPP
 * elsewhere"): "April 6th, 2025".
 */
export function formatDateLong(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  const suffix =
    day % 10 === 1 && day !== 11
      ? 'st'
      : day % 10 === 2 && day !== 12
        ? 'nd'
        : day % 10 === 3 && day !== 13
          ? 'rd'
          : 'th';
  return `${MONTHS_LONG[month - 1]} ${day}${suffix}, ${year}`;
}

/**
 * Parse dd/mm/yyyy (as typed in en-GB) to an ISO date; null when it is not a real date.
 */
export function parseDateNumeric(text: string): string | null {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text.trim());
  if (!match) return null;
  const iso = `${match[3]}-${match[2]!.padStart(2, '0')}-${match[1]!.padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : null;
}
