/**
 * Xero's wire formats for dates (docs/xero-api.md §7): calendar dates as midnight UTC in Microsoft JSON form,
 * timestamps in UTC, helper *String fields, and ISO-ish strings without offset on /connections.
 */
const DAY_MS = 86_400_000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayToMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

export function addDays(day: string, days: number): string {
  return isoDay(dayToMs(day) + days * DAY_MS);
}

/** "/Date(1700000000000+0000)/" for a YYYY-MM-DD calendar date. */
export function msDate(day: string): string {
  return `/Date(${dayToMs(day)}+0000)/`;
}

/** "/Date(1700000000123+0000)/" for a timestamp. */
export function msDateTime(ms: number): string {
  return `/Date(${ms}+0000)/`;
}

/** Envelope DateTimeUTC has no offset. */
export function msDateTimeNoOffset(ms: number): string {
  return `/Date(${ms})/`;
}

/** "2026-01-05T00:00:00" (DateString / DueDateString). */
export function dateString(day: string): string {
  return `${day}T00:00:00`;
}

/** "2019-12-07T18:46:19.5165400" as /connections spells it (UTC, no offset, 7 fractional digits). */
export function connectionDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}0000`;
}

/**
 * Parse a request date: "YYYY-MM-DD", "YYYY-MM-DDTHH:mm:ss", or Xero's own "/Date(ms+0000)/".
 * Returns the calendar day or null.
 */
export function parseRequestDay(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const ms = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/.exec(value);
  if (ms) return isoDay(Number(ms[1]));
  const m = /^(\d{4})-(\d{2})-(\d{2})(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (!m) return null;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  return Number.isNaN(dayToMs(day)) || isoDay(dayToMs(day)) !== day ? null : day;
}

/** If-Modified-Since accepts ISO (UTC implied when no offset) or an HTTP date. */
export function parseModifiedSince(value: string | undefined): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(trimmed)
    ? `${trimmed}${trimmed.includes('T') ? '' : 'T00:00:00'}Z`
    : trimmed;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
