import { z } from 'zod';

/**
 * Rules every text and id a client sends must keep, whatever the field (issue 16): the database refuses a NUL
 * and an id beyond its integer column, so they are refused here first, with a 400 and a message.
 */

/** The largest id our tables hold (PostgreSQL `integer`). */
export const MAX_DB_ID = 2_147_483_647;

/** C0 control characters but tab, line feed and carriage return; DEL; the C1 controls. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** A UTF-16 surrogate without its partner: not a character at all, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE = 'Text must not contain control characters or invalid Unicode';
export const INVALID_ID_MESSAGE = 'Invalid ID';

/** The answer to an id of Xero's (a GUID of 36 characters) longer than any Xero sends: 100 characters at most. */
export const XERO_ID_TOO_LONG_MESSAGE = 'Invalid Xero ID: at most 100 characters';

/** True when a text holds a control character (other than tab and line breaks) or a lone surrogate. */
export function hasUnsafeCharacters(value: string): boolean {
  return CONTROL_CHARACTER.test(value) || LONE_SURROGATE.test(value);
}

/**
 * The path of the first text anywhere in a parsed value (body, query string, route parameters) that breaks the
 * rule, e.g. `email` or `invoices.3.reference`; '' for the value itself; null when every text is safe.
 */
export function findUnsafeText(value: unknown, path = '', depth = 0): string | null {
  if (typeof value === 'string') return hasUnsafeCharacters(value) ? path : null;
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const where = path ? `${path}.${key}` : key;
    if (hasUnsafeCharacters(key)) return where;
    const found = findUnsafeText(item, where, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** A text field: at most `max` characters, no control characters (tab and line breaks allowed), no lone surrogates. */
export function textSchema(max: number) {
  return z
    .string()
    .max(max)
    .refine((value) => !hasUnsafeCharacters(value), UNSAFE_TEXT_MESSAGE);
}

/** One of our row ids as JSON sends it: a whole number from 1 to MAX_DB_ID. */
export function idSchema(message = INVALID_ID_MESSAGE) {
  return z.number({ error: message }).int(message).positive(message).max(MAX_DB_ID, message);
}

/** One of our row ids as a query string or a path sends it: digits only, from 1 to MAX_DB_ID, read as a number. */
export function idTextSchema(message = INVALID_ID_MESSAGE) {
  return z
    .string({ error: message })
    .trim()
    .regex(/^\d{1,10}$/, message)
    .transform(Number)
    .refine((id) => id >= 1 && id <= MAX_DB_ID, message);
}

/** An id a client may send either way (`organizationId: 12` or `"12"`), read as a number. */
export function idOrIdTextSchema(message = INVALID_ID_MESSAGE) {
  return z.union([z.number(), z.string().max(20, message)], { error: message }).transform((value, ctx) => {
    if (!isDbId(value)) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return Number(value);
  });
}

/** True when a value is one of our row ids, or its digits. */
export function isDbId(value: unknown): boolean {
  const id =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,10}$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isInteger(id) && id >= 1 && id <= MAX_DB_ID;
}

/**
 * `?refresh=` of the cached reads: `true` or `1` asks Xero first, `false`, `0` or none reads the cache. The one
 * parse of the flag for every route, read as a boolean.
 */
export const refreshFlagSchema = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** Xero's ids (InvoiceID, PaymentID, ContactID…) are GUIDs. */
const XERO_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when a value has the shape of a Xero id, so anything else is refused before it reaches Xero. */
export function isXeroId(value: string): boolean {
  return XERO_ID.test(value);
}

/** A Xero id in a path or a query: a GUID, else 400 "Invalid {label} ID". */
export function xeroIdSchema(label: string) {
  return z.string().regex(XERO_ID, `Invalid ${label} ID`);
}
