import { createHash } from 'node:crypto';

/**
 * The write ledger's rules, defined once (issue 28; docs/decisions/015-write-ledger.md): the states a write
 * moves through, the kinds of write, which states are open, and when an open write may be settled by asking
 * Xero. The ledger (index.ts re-exports all of this), its table and every feature use these; no
 * feature spells a state, a kind or a time limit of its own. No I/O here, so the rules are unit-tested alone.
 */

/** pending → sent → confirmed | failed, or unknown (the answer was lost), or needs_review (no way to tell). */
export const XERO_WRITE_STATES = [
  'pending',
  'sent',
  'confirmed',
  'failed',
  'unknown',
  'needs_review',
] as const;
export type XeroWriteState = (typeof XERO_WRITE_STATES)[number];

/** Writes the ledger has not settled yet: Xero may or may not have them. */
export const OPEN_WRITE_STATES = ['pending', 'sent', 'unknown'] as const satisfies readonly XeroWriteState[];

/** Writes that may have reached Xero (or are on their way): every state but failed. */
export const LIVE_WRITE_STATES = [
  ...OPEN_WRITE_STATES,
  'confirmed',
  'needs_review',
] as const satisfies readonly XeroWriteState[];

export type OpenWriteState = (typeof OPEN_WRITE_STATES)[number];

export function isOpenWriteState(state: unknown): state is OpenWriteState {
  return (OPEN_WRITE_STATES as readonly unknown[]).includes(state);
}

/**
 * Every kind of write the ledger records; a finder, a retrier and a feature's write are filed under one of
 * these. `cash.pending` is pending cash kept in Ledgerlink (nothing is sent to Xero), recorded so a retried
 * action adds it once.
 */
export const WRITE_KINDS = [
  'payment',
  'payment.delete',
  'invoice.create',
  'invoice.approve',
  'cash.pending',
  'bill.create',
  'bill.update',
  'bill.approve',
  'bill.delete',
  'journal.create',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** The kinds of payment write (Pay Invoices' and Add Invoices' payments, and their deletions). */
export const PAYMENT_WRITE_KINDS = ['payment', 'payment.delete'] as const satisfies readonly WriteKind[];

/** Each server instance writes its heartbeat this often (table ledger_instances). */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/**
 * An instance whose heartbeat is older than this (four missed beats) is dead: a write it left `sent` lost its
 * answer with it and is settled by look-up at once, so a same-key retry after a kill -9 is answered within
 * seconds of the restart (issue 28 item 5).
 */
export const HEARTBEAT_STALE_MS = 4 * HEARTBEAT_INTERVAL_MS;
/**
 * The longest a live instance may wait on one write's answer: Xero's 30 s timeout, the 429 back-off and the
 * queue ahead of it. A write `sent` longer ago than this lost its answer even though its instance still beats
 * (a request that never returned), and is looked up too.
 */
export const MAX_IN_FLIGHT_MS = 2 * 60_000;

/**
 * Each instance's reconciler looks for stale writes this often (and at start): a write a crashed instance
 * left open is settled within seconds even when nobody retries it.
 */
export const RECONCILE_INTERVAL_MS = 10_000;

/** What the staleness rule needs to know of a write. */
export interface OpenWriteFacts {
  state: XeroWriteState;
  sentAt: Date | null;
  createdAt: Date;
}

/**
 * The staleness rule, one for every write kind: may this write be settled now, by asking Xero (sent or
 * unknown) or by failing it (pending: it was never sent)? An unknown write lost its answer, so yes at once; a
 * pending or sent one when the instance that holds it is dead, or when it has been in flight longer than any
 * live instance waits. Settled writes are never stale.
 */
export function isWriteStale(row: OpenWriteFacts, senderAlive: boolean, nowMs: number): boolean {
  if (row.state === 'unknown') return true;
  if (row.state !== 'pending' && row.state !== 'sent') return false;
  if (!senderAlive) return true;
  return nowMs - (row.sentAt ?? row.createdAt).getTime() > MAX_IN_FLIGHT_MS;
}

/** What is known of the instance that holds an open write: alive, and how old its last heartbeat is. */
export interface SenderFacts {
  alive: boolean;
  /** Age of its last heartbeat by the database's clock; null when it never beat (or the row is older). */
  beatAgeMs: number | null;
}

/** Alive: it beat within HEARTBEAT_STALE_MS (by the database's clock, which every instance shares). */
export function isSenderAlive(beatAgeMs: number | null): boolean {
  return beatAgeMs !== null && beatAgeMs < HEARTBEAT_STALE_MS;
}

/**
 * How long until a write still in flight at `nowMs` becomes stale at the latest (a same-key retry's
 * Retry-After): its sender's heartbeat going stale, or the in-flight limit, whichever comes first. Zero when
 * it is stale now.
 */
export function msUntilStale(row: OpenWriteFacts, sender: SenderFacts, nowMs: number): number {
  if (isWriteStale(row, sender.alive, nowMs)) return 0;
  const inFlightLeft = (row.sentAt ?? row.createdAt).getTime() + MAX_IN_FLIGHT_MS - nowMs;
  const beatLeft = sender.beatAgeMs === null ? inFlightLeft : HEARTBEAT_STALE_MS - sender.beatAgeMs;
  return Math.max(0, Math.min(inFlightLeft, beatLeft));
}

/**
 * For this long after a `db:restore`, a write under a caller's key the ledger does not know is first looked
 * up in Xero by its mark: the key may be one the restored database forgot (used after the backup was
 * taken), and Xero's own Idempotency-Key replay lasts minutes only (issue 28 item 4).
 */
export const RESTORE_LOOKUP_MS = 24 * 60 * 60_000;

/** A write not sent because Xero could not be asked whether it already had it (after a restore). */
export const RESTORE_CHECK_UNAVAILABLE =
  'Could not ask Xero whether it already has this change (the database was restored lately), so it was not sent. Try again in a moment.';

/** A key sent again with another change than the one it was first used for: refused (400), nothing sent. */
export const DIFFERENT_CHANGE_MESSAGE = 'This Idempotency-Key was already used for a different change';

/**
 * The mark a write leaves in Xero, in a field Xero keeps (a payment's Reference, a journal's Narration):
 * "LL-" and the first 10 hex digits of SHA-256 of its idempotency key. Short enough to keep within Xero's
 * field lengths and out of a reader's way; 40 bits, so two keys on one invoice never share one.
 */
export function writeMarkOf(idempotencyKey: string): string {
  return `LL-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 10)}`;
}

/** `text` with the write's mark after it, in brackets, cut to `maxLength` (the text gives way, never the mark). */
export function withWriteMark(text: string, idempotencyKey: string, maxLength = 255): string {
  const tag = `[${writeMarkOf(idempotencyKey)}]`;
  const room = maxLength - tag.length - 1;
  const kept = text.trim().slice(0, Math.max(0, room)).trimEnd();
  return kept ? `${kept} ${tag}` : tag;
}

/** Whether a text Xero holds carries this write's mark. */
export function hasWriteMark(text: string | null | undefined, idempotencyKey: string): boolean {
  return Boolean(text?.includes(`[${writeMarkOf(idempotencyKey)}]`));
}

/**
 * `text` without the write marks in it: what people read, for the screens and the activity log (a stock
 * journal's narration carries its write's mark in Xero after the period's reference).
 */
export function withoutWriteMark(text: string): string {
  return text.replace(/\s*\[LL-[0-9a-f]{10}\]/g, '').trim();
}

/**
 * The ledger's name for an invoice or a draft as a document (issue 28, one writer per document): Pay
 * Invoices' payments and their Undo, Add Invoices' approvals, cash and pending cash all hold this one, so a
 * second writer on the invoice, of any kind, on any instance, is refused naming the first.
 */
export function invoiceDocument(invoiceId: string): string {
  return `invoice:${invoiceId.toLowerCase()}`;
}

/** A write's request as one text, keys sorted at every level: the same change always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What tells a same-key resend of the same change from a different change under an old key. */
export function fingerprintOf(kind: WriteKind, request: unknown): string {
  return createHash('sha256')
    .update(`${kind}\n${canonical(request)}`)
    .digest('hex');
}
