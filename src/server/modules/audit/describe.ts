/**
 * The activity log in words (issue 45 item 3): each audit action has one describer, registered beside the code
 * that records the action (`<module>.audit.ts`) and gathered in one list (`actions.ts`). A describer turns a
 * recorded line into the sentence a bookkeeper reads: names rather than ids, £ amounts rather than pence,
 * numbers rather than JSON. The CSV keeps the raw columns at its end.
 *
 * Adding an action: write its describer (with an example of the detail the code records) in the module's
 * `<module>.audit.ts`; a module with none yet gets one and a line in `actions.ts`. `AuditRecord.action` only
 * takes registered actions, and `audit-actions.test.ts` fails on an action recorded without a describer.
 */
import { formatCount } from '../../../shared/counts';
import { formatDateShort, isIsoDate } from '../../../shared/dates';
import { formatMoney } from '../../../shared/money';

/** One recorded line, as a describer reads it. */
export interface AuditLineFacts {
  action: string;
  result: 'success' | 'failure';
  target: string | null;
  /** What the target is to a person: an invoice's number rather than its id (`getAuditTargetLabel`). */
  targetLabel: string | null;
  /** The recorded detail; an empty object when none was recorded. */
  detail: Record<string, unknown>;
  organizationName: string | null;
  username: string | null;
}

/** Names of the ids a line holds, as Ledgerlink's copy of Xero has them (never a call to Xero). */
export interface AuditNames {
  /** "Sales (200)", or null when the account is not known. */
  account(id: unknown): string | null;
  contact(id: unknown): string | null;
  /** A VAT rate by its Xero tax type: "20% (VAT on Income)". */
  taxRate(code: unknown): string | null;
  contactGroup(id: unknown): string | null;
}

export interface AuditDescriber {
  /** The line in words: "Paid £120.00 on invoice INV-0042 from Business Current Account (090)". */
  describe(line: AuditLineFacts, names: AuditNames): string;
  /**
   * A line as the code records it (its detail and target): the tests describe it and check that a person
   * could read the answer (no JSON, no pence, no codes).
   */
  example: {
    result?: 'success' | 'failure';
    target?: string | null;
    detail?: Record<string, unknown>;
  };
}

/** A module's describers, keyed by action; the keys become the actions `AuditRecord` accepts. */
export function defineAuditActions<const T extends Record<string, AuditDescriber>>(describers: T): T {
  return describers;
}

/** Names nothing: what a describer gets when no copy of Xero's lists is at hand. */
export const NO_NAMES: AuditNames = {
  account: () => null,
  contact: () => null,
  taxRate: () => null,
  contactGroup: () => null,
};

// Reading a recorded detail: what was written years ago may lack a field or hold another type.

export function textOf(detail: Record<string, unknown>, key: string): string | null {
  const value = detail[key];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function numberOf(detail: Record<string, unknown>, key: string): number | null {
  const value = detail[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function recordOf(detail: Record<string, unknown>, key: string): Record<string, unknown> | null {
  const value = detail[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** £ from recorded pence: "£1,234.56"; null when the line recorded no amount. */
export function poundsOf(detail: Record<string, unknown>, key: string): string | null {
  const pence = numberOf(detail, key);
  return pence === null ? null : formatMoney(Math.round(pence));
}

/** "3 Mar 2026" for a recorded YYYY-MM-DD (or the start of an ISO timestamp); anything else as it is. */
export function dateText(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const day = value.slice(0, 10);
  return isIsoDate(day) ? formatDateShort(day) : value;
}

export { formatCount };

/** "invoice INV-0042", or "an invoice" when the line names none. */
export function invoiceText(line: AuditLineFacts, word = 'invoice'): string {
  const number = textOf(line.detail, 'invoiceNumber') ?? line.targetLabel;
  return number && !isXeroId(number) ? `${word} ${number}` : `an ${word}`;
}

/** Xero's ids are GUIDs: never shown to a person as a name. */
export function isXeroId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/** Why a line failed, as recorded ("— Xero said: Payment date is before the invoice date"), or "". */
export function failureText(line: AuditLineFacts): string {
  if (line.result !== 'failure') return '';
  const why = textOf(line.detail, 'error') ?? textOf(line.detail, 'reason');
  return why ? `: ${readableReason(why)}` : '';
}

/** Recorded reason codes in words; a sentence (Xero's message) as it is. */
const REASONS: Record<string, string> = {
  rate_limited: 'too many attempts, so sign-in was paused',
  invalid_credentials: 'wrong username or password',
  state_not_bound_to_browser: 'the answer from Xero came back to a different browser, so it was refused',
  wrong: 'wrong code',
  replayed: 'a code already used',
  password: 'wrong password',
  'not permitted': 'not permitted',
  token_exchange_failed: 'Xero’s answer could not be exchanged for access',
  invalid_grant: 'Xero said the authorisation was invalid or had expired',
  invalid_client: 'Xero did not recognise Ledgerlink’s credentials',
  invalid_request: 'Xero refused the request',
};
export function readableReason(reason: string): string {
  return REASONS[reason] ?? reason;
}

/**
 * "Sales (200)" from an account id, or the name the line recorded, or "an account" when Ledgerlink's copy of
 * Xero no longer names it (never its id).
 */
export function accountText(names: AuditNames, id: unknown, name?: string | null): string {
  return names.account(id) ?? (name ? name : 'an account');
}
