import crypto from 'node:crypto';
import { and, desc, eq, inArray, isNotNull, lt, ne, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { auditLog, ledgerInstances, ledgerRestores, organizations, xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import {
  HEARTBEAT_INTERVAL_MS,
  isOpenWriteState,
  isSenderAlive,
  isWriteStale,
  msUntilStale,
  OPEN_WRITE_STATES,
  RESTORE_LOOKUP_MS,
  type SenderFacts,
  type WriteKind,
  type XeroWriteState,
} from './write-ledger-rules';
import { isNotApplied } from './xero-http/http';
import type { XeroContext } from './xero-port';

export * from './write-ledger-rules';

export type WriteRow = typeof xeroWrites.$inferSelect;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A database handle inside one transaction, for the checks an intent makes under its document's lock. */
export type LedgerTx = Tx;

/**
 * The document a write changes (issue 28, "one document, one writer"): `key` is unique in the organisation
 * (`invoice:<id>`, `bill:<id>`, `journal-week:<period>`), `label` is how people name it ("INV-2015").
 */
export interface DocumentRef {
  key: string;
  label: string;
}

/** How the message refusing a second writer names what the first one is doing ("being approved"). */
const DOCUMENT_VERBS: Record<WriteKind, string> = {
  'invoice.approve': 'approved',
  'invoice.create': 'created',
  payment: 'paid',
  'payment.delete': 'changed (a payment is being undone)',
  'cash.pending': 'given pending cash',
  'bill.create': 'created',
  'bill.update': 'edited',
  'bill.approve': 'approved',
  'bill.delete': 'deleted',
  'journal.create': 'posted',
};

/** "INV-2015 is being approved by carol; try again in a moment." */
export function describeBusyDocument(row: Pick<WriteRow, 'kind' | 'documentLabel' | 'audit'>): string {
  const who = (row.audit as WriteAudit | null)?.username ?? 'another user';
  const verb = DOCUMENT_VERBS[row.kind] ?? 'changed';
  return `${row.documentLabel ?? 'This document'} is being ${verb} by ${who}; try again in a moment.`;
}

/**
 * One step of a multi-step action (issue 28): recorded with the others before the first is sent. `after` is
 * the index of the step that must be confirmed in Xero before this one may be sent.
 */
export interface IntentStep {
  kind: WriteKind;
  idempotencyKey: string;
  targetId?: string | null;
  amountPence?: number | null;
  request: unknown;
  audit?: WriteAudit;
  after?: number;
}

/**
 * Finishes a recorded step whose request died before sending it (a crash, a lost connection): the
 * reconciler claims the step and sends it through this. `bind` fills in what only the earlier step's answer
 * tells (the id of an invoice it created) when the step is claimed, whoever claims it.
 */
export interface StepRunner {
  bind?: (
    row: WriteRow,
    before: WriteRow,
  ) => { targetId?: string | null; request?: unknown; audit?: WriteAudit };
  send: (
    row: WriteRow,
    ctx: XeroContext & { organizationId: number },
    idempotencyKey: string,
  ) => Promise<WriteOutcome<unknown>>;
}

/** Runs in the transaction that confirms a write of its kind, once, whoever confirms it. */
export type ConfirmHook = (tx: Tx, row: WriteRow) => Promise<void>;

export interface WriteOutcome<R> {
  xeroId?: string | null;
  response: R;
}

/**
 * The activity-log line a write stands for. The ledger writes it itself, once, when the write settles:
 * `success` when Xero applied it (answered, or found later by look-up or by the reconciler), `failure` when
 * Xero certainly did not. Nothing is logged while the outcome is unknown, and a replayed answer logs nothing.
 */
export interface WriteAudit {
  /** e.g. 'payment.create', 'add-invoices.approve', 'cis-bills.create'. */
  action: string;
  target?: string | null;
  /** The acting user's name: every line names who acted. */
  username: string;
  ip?: string | null;
  /** What to show with the line; the ledger adds writeId and xeroId (success) or error (failure). */
  detail?: Record<string, unknown>;
}

export interface WriteSpec<R> {
  organizationId: number;
  tenantId: string;
  userId: number;
  /** Also the key its finder and retrier are registered under. */
  kind: WriteKind;
  targetId?: string | null;
  amountPence?: number | null;
  /** A key the browser sent for this user action (kept across its retries); a random one otherwise. */
  idempotencyKey?: string | undefined;
  /** The canonical request: stored, fingerprinted, and handed to the finder when the outcome is unknown. */
  request: unknown;
  send: (idempotencyKey: string) => Promise<WriteOutcome<R>>;
  /** The activity-log line, written by the ledger when the write settles (see WriteAudit). */
  audit?: WriteAudit;
  /**
   * At most one open write of this kind per target: a new one (under another key) while an earlier one is
   * pending, sent or unknown is refused with `busyMessage` (409). Checked under a lock, so two concurrent
   * requests cannot both pass.
   */
  exclusiveTarget?: { busyMessage: string };
  /**
   * One writer per document (issue 28): while any write on this document is open under another key, this
   * one is refused with 409 naming who is doing what. Checked under a database lock, so it holds across
   * instances.
   */
  document?: DocumentRef;
  /**
   * The ledger row this write was recorded as, a step of an intent (`recordIntent`): it is claimed and sent
   * instead of a new row being inserted, once the step before it is confirmed.
   */
  step?: WriteRow;
}

/** Looks a write up in Xero when its answer was lost. Null means Xero does not have it. */
export type WriteFinder = (
  ctx: XeroContext & { organizationId: number },
  row: WriteRow,
) => Promise<WriteOutcome<unknown> | null>;

/**
 * How a kind's writes are kept from doubling after a `db:restore` (issue 28): for a day after one, a write
 * under a caller's key the restored database does not know (it may have been used after the backup was taken,
 * and Xero replays a key for minutes only) is first looked up in Xero, and answered with what Xero has
 * instead of being sent again.
 * - a WriteFinder: the look-up by the mark the write leaves in Xero (writeMarkOf: a payment's or an invoice's
 *   Reference, a bill's Url). Exact, so a new write like an earlier one is never taken for it.
 * - `'find'`: the write is idempotent by state, so the kind's own finder tells (an approval: the invoice is
 *   approved in Xero; a deletion: the payment is deleted).
 * - `{ notNeeded }`: nothing to look up, and why it cannot double (a journal: its week is checked in Xero
 *   before anything is sent).
 */
export type AfterRestore = WriteFinder | 'find' | { notNeeded: string };

/** Who sends a held write again (an administrator), and to which Xero organisation. */
export interface RetryActor {
  userId: number;
  username: string;
  ip?: string | null;
  tenantId: string;
}

/**
 * Sends a held write's change again through its feature's own path (its checks, its ledger row, its audit
 * line) under `idempotencyKey`; answers the new write's ledger id and Xero id.
 */
export type WriteRetrier = (
  row: WriteRow,
  by: RetryActor,
  idempotencyKey: string,
) => Promise<{ writeId: number; xeroId: string | null }>;

export const RETRY_REFUSED_FOUND = 'Xero already has this change: mark it done instead of sending it again.';
export const RETRY_REFUSED_KIND =
  'Ledgerlink cannot send this kind of change again from here: cancel it and redo it on its screen.';
export const HELD_USER_GONE =
  'The user who made this change no longer exists: cancel it and redo it on its screen.';
export const RETRY_REFUSED_UNAVAILABLE =
  'Could not ask Xero whether it has this change, so it was not sent again. Try again in a moment.';

/** Errors where Xero certainly did not apply the write. */
const DEFINITE_FAILURES = new Set([
  'XERO_REJECTED',
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'NOT_FOUND',
  'FORBIDDEN',
  'CONFLICT',
  'UNPROCESSABLE',
]);

/** A write not sent because Xero could not be asked whether it already had it (after a restore). */
export const RESTORE_CHECK_UNAVAILABLE =
  'Could not ask Xero whether it already has this change (the database was restored lately), so it was not sent. Try again in a moment.';

/** A write that was never sent (its instance stopped first), settled as failed. */
export const NOT_SENT_MESSAGE = 'Not sent: Ledgerlink stopped before sending it to Xero.';

export const UNKNOWN_OUTCOME_MESSAGE =
  'Xero did not confirm this change in time. Ledgerlink will check with Xero before anything is sent again; refresh in a minute to see the result.';

/**
 * What a 409 "already being processed" carries: the write, its state, and when to ask again (Retry-After):
 * by then it is settled, or its instance is known to be alive.
 */
export function busyExtra(row: WriteRow, retryAfterMs: number) {
  return {
    writeId: row.id,
    writeState: row.state,
    ...(row.state === 'needs_review' || retryAfterMs <= 0
      ? {}
      : { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) }),
  };
}

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

export function fingerprintOf(kind: WriteKind, request: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${kind}\n${canonical(request)}`)
    .digest('hex');
}

/**
 * Never lose or duplicate a money write. Each write is recorded here before it is sent, sent with its
 * idempotency key (Xero replays the first answer for a repeated key), and ends confirmed, failed with a
 * message, or `unknown` when the answer was lost. A request repeated with the same key returns the first
 * outcome instead of writing again. `reconcile()` settles unknown writes by asking Xero (through the finder
 * registered for the kind) rather than sending again, and fails writes a crash left unsent, so nothing a
 * user was not told about is ever applied behind their back.
 */
export function createWriteLedger(deps: {
  db: Db;
  log?: { warn: (o: object, m: string) => void };
  /** This server instance's id in ledger_instances (a new one per start unless told). */
  instanceId?: string;
}) {
  const { db } = deps;
  const instanceId = deps.instanceId ?? crypto.randomUUID();
  const finders = new Map<WriteKind, WriteFinder>();
  const retriers = new Map<WriteKind, WriteRetrier>();
  const restoreFinders = new Map<WriteKind, WriteFinder>();
  let heartbeat: NodeJS.Timeout | null = null;
  /** When the database was last restored (read at start: every instance is stopped for a restore). */
  let lastRestoreMs: number | null | undefined;

  async function findLastRestoreMs(): Promise<number | null> {
    if (lastRestoreMs !== undefined) return lastRestoreMs;
    const [row] = await db
      .select({ at: ledgerRestores.restoredAt })
      .from(ledgerRestores)
      .orderBy(desc(ledgerRestores.restoredAt))
      .limit(1);
    const at = row?.at.getTime() ?? null;
    if (heartbeat) lastRestoreMs = at;
    return at;
  }

  /**
   * Before a write under a caller's key the ledger has just met is sent: when the database was restored
   * lately the key may be one the restore forgot, so Xero is asked for the write's mark first. Answers what
   * Xero has under that mark (the write then settles as confirmed, nothing is sent), or null to send.
   */
  async function findForgottenWrite(row: WriteRow, spec: WriteSpec<unknown>, tenantId: string) {
    const finder = restoreFinders.get(row.kind);
    if (!spec.idempotencyKey || !finder || row.userId === null) return null;
    const restoredMs = await findLastRestoreMs();
    if (restoredMs === null || Date.now() - restoredMs > RESTORE_LOOKUP_MS) return null;
    return finder({ userId: row.userId, tenantId, organizationId: row.organizationId }, row);
  }

  /** This instance is alive: its row in ledger_instances, stamped by the database's clock. */
  async function beat() {
    await db
      .insert(ledgerInstances)
      .values({ id: instanceId })
      .onConflictDoUpdate({ target: ledgerInstances.id, set: { beatAt: sql`now()` } });
  }

  /**
   * Whether the instance holding an open write is alive. Ages are read on the database's clock, the one
   * every instance shares. A write recorded before heartbeats existed has no instance: only the in-flight
   * limit applies to it.
   */
  async function senderOf(row: WriteRow): Promise<SenderFacts> {
    if (!row.instanceId) return { alive: true, beatAgeMs: null };
    if (row.instanceId === instanceId && heartbeat) return { alive: true, beatAgeMs: 0 };
    const [found] = await db
      .select({
        ageMs: sql<number>`(extract(epoch from (now() - ${ledgerInstances.beatAt})) * 1000)::float8`,
      })
      .from(ledgerInstances)
      .where(eq(ledgerInstances.id, row.instanceId));
    if (row.instanceId === instanceId) return { alive: true, beatAgeMs: found ? Number(found.ageMs) : 0 };
    if (!found) return { alive: false, beatAgeMs: null };
    const beatAgeMs = Number(found.ageMs);
    return { alive: isSenderAlive(beatAgeMs), beatAgeMs };
  }
  const stepRunners = new Map<WriteKind, StepRunner>();
  const confirmHooks = new Map<WriteKind, ConfirmHook[]>();

  async function update(id: number, values: Partial<typeof xeroWrites.$inferInsert>) {
    await db.update(xeroWrites).set(values).where(eq(xeroWrites.id, id));
  }

  /** The write's own activity-log line (success or failure), as its audit describes it. */
  async function writeAuditLine(tx: Tx, row: WriteRow, extra: Record<string, unknown> = {}) {
    const audit = row.audit as WriteAudit | null;
    if (!audit) return;
    await tx.insert(auditLog).values({
      userId: row.userId,
      username: audit.username,
      organizationId: row.organizationId,
      action: audit.action,
      target: audit.target ?? row.targetId ?? row.xeroId ?? null,
      result: row.state === 'confirmed' ? 'success' : 'failure',
      detail:
        row.state === 'confirmed'
          ? { ...audit.detail, writeId: row.id, xeroId: row.xeroId, ...extra }
          : { ...audit.detail, writeId: row.id, error: row.error, ...extra },
      ip: audit.ip ?? null,
    });
  }

  /**
   * In the transaction that settles a write: a confirmed write runs its kind's confirm hooks; a failed one
   * fails the steps still waiting on it (never sent: nothing of them reached Xero), each with its line.
   */
  async function afterSettled(tx: Tx, row: WriteRow) {
    if (row.state === 'confirmed') {
      for (const hook of confirmHooks.get(row.kind) ?? []) await hook(tx, row);
      return;
    }
    if (row.state !== 'failed') return;
    const waiting = await tx
      .update(xeroWrites)
      .set({
        state: 'failed',
        error: `Not sent: the step before it (write ${row.id}) was not applied in Xero.`,
        completedAt: new Date(),
      })
      .where(and(eq(xeroWrites.dependsOn, row.id), eq(xeroWrites.state, 'pending')))
      .returning();
    for (const step of waiting) await writeAuditLine(tx, step);
  }

  /**
   * Moves an open write to confirmed or failed and, in the same transaction, writes its activity-log line.
   * Only a row still open changes, so whoever settles it first (the request, a retry, the reconciler) logs
   * it, and nobody logs it twice. Returns the settled row, or null when it was already settled.
   */
  async function settle(
    id: number,
    outcome:
      { state: 'confirmed'; xeroId: string | null; response: unknown } | { state: 'failed'; error: string },
  ): Promise<WriteRow | null> {
    const values =
      outcome.state === 'confirmed'
        ? {
            state: 'confirmed' as const,
            xeroId: outcome.xeroId,
            response: outcome.response as object,
            error: null,
            completedAt: new Date(),
          }
        : { state: 'failed' as const, error: outcome.error, completedAt: new Date() };
    return db.transaction(async (tx) => {
      const [row] = await tx
        .update(xeroWrites)
        .set(values)
        .where(and(eq(xeroWrites.id, id), inArray(xeroWrites.state, [...OPEN_WRITE_STATES, 'needs_review'])))
        .returning();
      if (!row) return null;
      await writeAuditLine(tx, row);
      await afterSettled(tx, row);
      return row;
    });
  }

  /**
   * Claims a recorded step for sending: only while it is still pending (so one of the request, a same-key
   * retry and the reconciler sends it, never two) and only once the step before it is confirmed. A step
   * whose earlier step failed fails here. Null when it is not (or no longer) for this caller to send.
   */
  async function claim(row: WriteRow): Promise<WriteRow | null> {
    let bound: { targetId?: string | null; request?: unknown; audit?: WriteAudit } = {};
    if (row.dependsOn !== null) {
      const before = await findById(row.dependsOn);
      if (!before || before.state === 'failed') {
        await settle(row.id, {
          state: 'failed',
          error: `Not sent: the step before it (write ${row.dependsOn}) was not applied in Xero.`,
        });
        return null;
      }
      if (before.state !== 'confirmed') return null;
      bound = stepRunners.get(row.kind)?.bind?.(row, before) ?? {};
    }
    const [claimed] = await db
      .update(xeroWrites)
      .set({
        state: 'sent',
        attempts: row.attempts + 1,
        sentAt: new Date(),
        instanceId,
        ...(bound.targetId !== undefined ? { targetId: bound.targetId } : {}),
        ...(bound.request !== undefined ? { request: bound.request as object } : {}),
        ...(bound.audit !== undefined ? { audit: bound.audit } : {}),
      })
      .where(and(eq(xeroWrites.id, row.id), eq(xeroWrites.state, 'pending')))
      .returning();
    return claimed ?? null;
  }

  /** The answer to a write recorded before: its outcome replayed, its refusal, or "being processed". */
  function answerRecorded<R>(
    existing: WriteRow,
    retryAfterMs: number,
  ): WriteOutcome<R> & { writeId: number; replayed: boolean } {
    if (existing.state === 'confirmed') {
      return {
        xeroId: existing.xeroId,
        response: existing.response as R,
        writeId: existing.id,
        replayed: true,
      };
    }
    if (existing.state === 'failed')
      throw new AppError('XERO_REJECTED', existing.error ?? 'Xero refused this change');
    throw new AppError(
      'CONFLICT',
      'This change is already being processed. Refresh in a moment to see the result.',
      undefined,
      busyExtra(existing, retryAfterMs),
    );
  }

  /**
   * One writer per document: refuses (409, naming who is doing what) when a write on the document is open
   * under a key other than `ownKeys`. Call inside a transaction; the advisory lock is held until it ends, so
   * the check and the insert that follows are one step for every instance.
   */
  async function lockDocument(tx: Tx, organizationId: number, document: string, ownKeys: readonly string[]) {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`${organizationId}:document:${document}`}))`,
    );
    const [busy] = await tx
      .select()
      .from(xeroWrites)
      .where(
        and(
          eq(xeroWrites.organizationId, organizationId),
          eq(xeroWrites.document, document),
          inArray(xeroWrites.state, [...OPEN_WRITE_STATES]),
          ...(ownKeys.length > 0 ? [notInArray(xeroWrites.idempotencyKey, [...ownKeys])] : []),
        ),
      )
      .orderBy(xeroWrites.id)
      .limit(1);
    if (busy)
      throw new AppError('CONFLICT', describeBusyDocument(busy), undefined, {
        writeId: busy.id,
        writeState: 'busy',
      });
  }

  async function finish<R>(
    row: WriteRow,
    spec: WriteSpec<R>,
    alreadyClaimed = false,
  ): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
    let forgotten: WriteOutcome<unknown> | null;
    try {
      forgotten = await findForgottenWrite(row, spec as WriteSpec<unknown>, spec.tenantId);
    } catch (error) {
      // Not sent, and nothing happened: the row goes, so the same key can be tried again.
      await db.delete(xeroWrites).where(and(eq(xeroWrites.id, row.id), eq(xeroWrites.state, 'pending')));
      throw new AppError(
        'XERO_UNAVAILABLE',
        RESTORE_CHECK_UNAVAILABLE,
        error instanceof Error ? error.message : String(error),
      );
    }
    if (forgotten) {
      const settled = await settle(row.id, {
        state: 'confirmed',
        xeroId: forgotten.xeroId ?? null,
        response: forgotten.response,
      });
      const now = settled ?? (await findById(row.id)) ?? row;
      return { xeroId: now.xeroId, response: now.response as R, writeId: row.id, replayed: true };
    }
    // Only a write still pending is sent: one another instance settled meanwhile (it took this instance for
    // dead) is not sent behind its back. A step of an intent arrives already claimed (claim()).
    if (!alreadyClaimed) {
      const [claimed] = await db
        .update(xeroWrites)
        .set({ state: 'sent', attempts: row.attempts + 1, sentAt: new Date(), instanceId })
        .where(and(eq(xeroWrites.id, row.id), eq(xeroWrites.state, 'pending')))
        .returning({ id: xeroWrites.id });
      if (!claimed) {
        const now = await findById(row.id);
        if (now?.state === 'confirmed')
          return { xeroId: now.xeroId, response: now.response as R, writeId: now.id, replayed: true };
        throw new AppError('XERO_REJECTED', now?.error ?? NOT_SENT_MESSAGE);
      }
    }
    let outcome: WriteOutcome<R>;
    try {
      outcome = await spec.send(row.idempotencyKey);
    } catch (error) {
      if (error instanceof AppError && (DEFINITE_FAILURES.has(error.code) || isNotApplied(error))) {
        await settle(row.id, { state: 'failed', error: error.message });
        throw error;
      }
      const message = error instanceof Error ? error.message : String(error);
      await update(row.id, { state: 'unknown', error: message });
      throw new AppError('XERO_UNAVAILABLE', UNKNOWN_OUTCOME_MESSAGE, message, {
        writeId: row.id,
        writeState: 'unknown',
      });
    }
    const settled = await settle(row.id, {
      state: 'confirmed',
      xeroId: outcome.xeroId ?? null,
      response: outcome.response,
    });
    // Settled meanwhile by a look-up that found nothing (this instance was taken for dead while Xero was
    // still applying it): Xero's own answer is the truth, so the write is corrected to confirmed.
    if (!settled) await correctToConfirmed(row.id, outcome);
    return { ...outcome, writeId: row.id, replayed: false };
  }

  /** A write a look-up failed while its answer was on the way: confirmed after all, with its success line. */
  async function correctToConfirmed(id: number, outcome: WriteOutcome<unknown>) {
    await db.transaction(async (tx) => {
      const [row] = await tx
        .update(xeroWrites)
        .set({
          state: 'confirmed',
          xeroId: outcome.xeroId ?? null,
          response: outcome.response as object,
          error: null,
          completedAt: new Date(),
        })
        .where(and(eq(xeroWrites.id, id), eq(xeroWrites.state, 'failed')))
        .returning();
      const audit = row?.audit as WriteAudit | null | undefined;
      if (!row || !audit) return;
      await tx.insert(auditLog).values({
        userId: row.userId,
        username: audit.username,
        organizationId: row.organizationId,
        action: audit.action,
        target: audit.target ?? row.targetId ?? row.xeroId ?? null,
        result: 'success',
        detail: { ...audit.detail, writeId: row.id, xeroId: row.xeroId, corrected: true },
        ip: audit.ip ?? null,
      });
    });
    deps.log?.warn({ writeId: id }, 'a write failed by look-up was answered by Xero after all: corrected');
  }

  async function findById(id: number): Promise<WriteRow | null> {
    const [row] = await db.select().from(xeroWrites).where(eq(xeroWrites.id, id));
    return row ?? null;
  }

  async function findByKey(organizationId: number, idempotencyKey: string): Promise<WriteRow | null> {
    const [row] = await db
      .select()
      .from(xeroWrites)
      .where(
        and(eq(xeroWrites.organizationId, organizationId), eq(xeroWrites.idempotencyKey, idempotencyKey)),
      );
    return row ?? null;
  }

  /**
   * Asks Xero (through the kind's finder) whether an open write was applied, and settles it: confirmed with
   * what was found, failed when Xero does not have it. Returns the row as it stands afterwards; a row with
   * no finder, or whose look-up failed, stays as it was.
   */
  async function lookUp(row: WriteRow, tenantId: string): Promise<WriteRow> {
    const finder = finders.get(row.kind);
    if (!finder || row.userId === null) return row;
    const found = await finder({ userId: row.userId, tenantId, organizationId: row.organizationId }, row);
    const settled = found
      ? await settle(row.id, { state: 'confirmed', xeroId: found.xeroId ?? null, response: found.response })
      : await settle(row.id, {
          state: 'failed',
          error: 'Xero does not have this change: it was not applied.',
        });
    return settled ?? (await findByKey(row.organizationId, row.idempotencyKey)) ?? row;
  }

  /**
   * The staleness rule applied to one open write (write-ledger-rules.ts): when it is stale, a pending write
   * (never sent) fails and a sent or unknown one is looked up in Xero. Answers the row as it stands
   * afterwards and, while it is still in flight, how long until it may be called stale.
   */
  async function settleIfStale(
    row: WriteRow,
    tenantId: string,
  ): Promise<{ row: WriteRow; retryAfterMs: number }> {
    if (!isOpenWriteState(row.state)) return { row, retryAfterMs: 0 };
    const sender = await senderOf(row);
    const nowMs = Date.now();
    if (!isWriteStale(row, sender.alive, nowMs))
      return { row, retryAfterMs: msUntilStale(row, sender, nowMs) };
    if (row.state === 'pending' && row.dependsOn !== null) {
      // A step of an intent whose request stopped: finished (or settled) once the step before it is.
      await resumeStep(row, tenantId);
      const now = (await findById(row.id)) ?? row;
      return { row: now, retryAfterMs: isOpenWriteState(now.state) ? HEARTBEAT_INTERVAL_MS : 0 };
    }
    if (row.state === 'pending') {
      const failed = await settle(row.id, { state: 'failed', error: NOT_SENT_MESSAGE });
      return { row: failed ?? (await findById(row.id)) ?? row, retryAfterMs: 0 };
    }
    try {
      return { row: await lookUp(row, tenantId), retryAfterMs: 0 };
    } catch (error) {
      deps.log?.warn({ err: error, writeId: row.id }, 'look-up of an open write failed; it stays open');
      return { row, retryAfterMs: HEARTBEAT_INTERVAL_MS };
    }
  }

  /**
   * Finishes a step its request left unsent (issue 28): once the step before it is confirmed in Xero, the step
   * is claimed and sent with its own key through its kind's runner. A step before it that failed fails it; one
   * that needs review, or a step Xero refuses after the step before it was applied, needs a person: it ends
   * needs_review, shown on the screen of the user who acted and in Admin -> Needs review. Returns the state
   * it reached, or null when it is not this caller's to finish yet.
   */
  async function resumeStep(write: WriteRow, tenantId: string): Promise<XeroWriteState | null> {
    const before = write.dependsOn === null ? null : await findById(write.dependsOn);
    if (before?.state === 'needs_review') {
      await update(write.id, {
        state: 'needs_review',
        error: `Not sent: it waits on write ${before.id} (${before.kind}), whose outcome is not known.`,
      });
      return 'needs_review';
    }
    if (before && before.state !== 'confirmed' && before.state !== 'failed') return null;
    const runner = stepRunners.get(write.kind);
    if (before?.state === 'confirmed' && (!runner || write.userId === null)) {
      await update(write.id, {
        state: 'needs_review',
        error: 'Not sent: Ledgerlink cannot finish this step by itself.',
      });
      return 'needs_review';
    }
    const claimed = await claim(write);
    if (!claimed || !runner || claimed.userId === null) {
      const now = await findById(write.id);
      return now?.state === 'failed' ? 'failed' : null;
    }
    try {
      const outcome = await runner.send(
        claimed,
        { userId: claimed.userId, tenantId, organizationId: claimed.organizationId },
        claimed.idempotencyKey,
      );
      await settle(claimed.id, {
        state: 'confirmed',
        xeroId: outcome.xeroId ?? null,
        response: outcome.response,
      });
      return 'confirmed';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AppError && (DEFINITE_FAILURES.has(error.code) || isNotApplied(error))) {
        await update(claimed.id, {
          state: 'needs_review',
          error: `Xero refused it (${message}) after the step before it was applied.`,
        });
        return 'needs_review';
      }
      await update(claimed.id, { state: 'unknown', error: message });
      return 'unknown';
    }
  }

  return {
    /** This instance's id in ledger_instances. */
    instanceId,

    /**
     * Starts this instance's heartbeat (every HEARTBEAT_INTERVAL_MS): while it beats, the writes it sent are
     * in flight; when it stops beating, any instance settles them at once.
     */
    async start() {
      if (heartbeat) return;
      await beat();
      lastRestoreMs = undefined;
      heartbeat = setInterval(() => {
        beat().catch((error: unknown) => deps.log?.warn({ err: error }, 'ledger heartbeat failed'));
      }, HEARTBEAT_INTERVAL_MS);
      heartbeat.unref();
    },

    /** Stops the heartbeat and removes this instance's row: a clean stop (requests already drained). */
    async stop() {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      await db.delete(ledgerInstances).where(eq(ledgerInstances.id, instanceId));
      // Instances gone for a day (killed, never stopped cleanly) are only history.
      await db.delete(ledgerInstances).where(lt(ledgerInstances.beatAt, sql`now() - interval '1 day'`));
    },

    /** Records a restore of the database (db:restore does, after restoring): see RESTORE_LOOKUP_MS. */
    async recordRestore(backupFile: string | null) {
      await db.insert(ledgerRestores).values({ backupFile });
      lastRestoreMs = undefined;
    },

    /**
     * One registration per kind, the one idiom for finders (issue 28): `find` settles a write whose answer
     * was lost; `afterRestore` is how Xero is asked, for a day after a `db:restore`, whether it already has a
     * write under a caller's key the restored database does not know, before it is sent (see AfterRestore).
     * A second registration is a wiring mistake and fails at start.
     */
    registerFinder(kind: WriteKind, find: WriteFinder, afterRestore: AfterRestore) {
      if (finders.has(kind)) throw new Error(`A finder for '${kind}' writes is already registered`);
      finders.set(kind, find);
      if (afterRestore === 'find') restoreFinders.set(kind, find);
      else if (typeof afterRestore === 'function') restoreFinders.set(kind, afterRestore);
    },

    /** One step runner per kind (see StepRunner): how the reconciler finishes a step left unsent. */
    registerStepRunner(kind: WriteKind, runner: StepRunner) {
      if (stepRunners.has(kind)) throw new Error(`A step runner for '${kind}' writes is already registered`);
      stepRunners.set(kind, runner);
    },

    /** Runs `hook` in the transaction that confirms each write of this kind (see ConfirmHook). */
    registerConfirmHook(kind: WriteKind, hook: ConfirmHook) {
      confirmHooks.set(kind, [...(confirmHooks.get(kind) ?? []), hook]);
    },

    /**
     * Records a multi-step action as one intent (issue 28): under the document's lock, refuses it while
     * another write on the document is open (409 naming who is doing what), lets `plan` check what the
     * action was based on and name its steps (it throws to refuse), and records every step before the first
     * is sent. When a step's key is already recorded, this is the same action again: its rows are answered as
     * they stand and `plan` is not asked again.
     */
    async recordIntent(input: {
      organizationId: number;
      userId: number;
      /** Absent only when the action makes a new document (a new invoice): nobody else can write to it yet. */
      document?: DocumentRef;
      keys: readonly string[];
      plan: (tx: Tx) => Promise<IntentStep[]>;
    }): Promise<{ rows: WriteRow[]; retried: boolean }> {
      const { document } = input;
      return db.transaction(async (tx) => {
        const lock = document ? `document:${document.key}` : `intent:${input.keys[0] ?? ''}`;
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${input.organizationId}:${lock}`}))`);
        const earlier = await tx
          .select()
          .from(xeroWrites)
          .where(
            and(
              eq(xeroWrites.organizationId, input.organizationId),
              inArray(xeroWrites.idempotencyKey, [...input.keys]),
            ),
          )
          .orderBy(xeroWrites.id);
        if (earlier.length > 0) return { rows: earlier, retried: true };
        if (document) await lockDocument(tx, input.organizationId, document.key, input.keys);
        const steps = await input.plan(tx);
        const rows: WriteRow[] = [];
        for (const step of steps) {
          const before = step.after === undefined ? undefined : rows[step.after];
          const [row] = await tx
            .insert(xeroWrites)
            .values({
              organizationId: input.organizationId,
              userId: input.userId,
              kind: step.kind,
              idempotencyKey: step.idempotencyKey,
              fingerprint: fingerprintOf(step.kind, step.request),
              targetId: step.targetId ?? null,
              amountPence: step.amountPence ?? null,
              request: step.request as object,
              audit: step.audit ?? null,
              document: document?.key ?? null,
              documentLabel: document?.label ?? null,
              dependsOn: before?.id ?? null,
              instanceId,
              state: 'pending',
            })
            .returning();
          if (row) rows.push(row);
        }
        return { rows, retried: false };
      });
    },

    async execute<R>(spec: WriteSpec<R>): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
      if (spec.step) {
        // A step of an intent, recorded before the first step was sent: claim it (once the step before it
        // is confirmed) and send it; whoever claimed it first (this request, a retry, the reconciler) sends it.
        let recorded = (await findById(spec.step.id)) ?? spec.step;
        if (recorded.state === 'pending') {
          const claimed = await claim(recorded);
          if (claimed) return finish(claimed, spec, true);
          recorded = (await findById(spec.step.id)) ?? recorded;
        }
        // Held by an instance that died, or its answer was lost: settled now, as for any same-key retry.
        const { row: now, retryAfterMs } = await settleIfStale(recorded, spec.tenantId);
        return answerRecorded<R>(now, retryAfterMs);
      }
      const key = spec.idempotencyKey ?? crypto.randomUUID();
      const fingerprint = fingerprintOf(spec.kind, spec.request);
      const values = {
        organizationId: spec.organizationId,
        userId: spec.userId,
        kind: spec.kind,
        idempotencyKey: key,
        fingerprint,
        targetId: spec.targetId ?? null,
        amountPence: spec.amountPence ?? null,
        request: spec.request as object,
        audit: spec.audit ?? null,
        document: spec.document?.key ?? null,
        documentLabel: spec.document?.label ?? null,
        state: 'pending' as const,
        instanceId,
      };
      const exclusive = spec.exclusiveTarget && spec.targetId ? spec.exclusiveTarget : undefined;
      const document = spec.document;
      const inserted =
        exclusive || document
          ? await db.transaction(async (tx) => {
              if (document) await lockDocument(tx, spec.organizationId, document.key, [key]);
              if (!exclusive) return tx.insert(xeroWrites).values(values).onConflictDoNothing().returning();
              // One open write per kind and target, across instances: the check and the insert hold a lock.
              await tx.execute(
                sql`select pg_advisory_xact_lock(hashtext(${`${spec.organizationId}:${spec.kind}:${spec.targetId}`}))`,
              );
              const [busy] = await tx
                .select({ id: xeroWrites.id })
                .from(xeroWrites)
                .where(
                  and(
                    eq(xeroWrites.organizationId, spec.organizationId),
                    eq(xeroWrites.kind, spec.kind),
                    eq(xeroWrites.targetId, spec.targetId as string),
                    inArray(xeroWrites.state, [...OPEN_WRITE_STATES]),
                    ne(xeroWrites.idempotencyKey, key),
                  ),
                );
              if (busy)
                throw new AppError('CONFLICT', exclusive.busyMessage, undefined, {
                  writeId: busy.id,
                  writeState: 'busy',
                });
              return tx.insert(xeroWrites).values(values).onConflictDoNothing().returning();
            })
          : await db.insert(xeroWrites).values(values).onConflictDoNothing().returning();
      const row = inserted[0];
      if (row) return finish(row, spec);

      // The same key again: the browser retried, or the user double-clicked.
      const [existing] = await db
        .select()
        .from(xeroWrites)
        .where(and(eq(xeroWrites.organizationId, spec.organizationId), eq(xeroWrites.idempotencyKey, key)));
      if (!existing) throw new AppError('CONFLICT', 'This change is already being processed');
      if (existing.fingerprint !== fingerprint) {
        throw new AppError(
          'VALIDATION_ERROR',
          'This Idempotency-Key was already used for a different change',
        );
      }
      // Its first attempt's instance died, or its answer was lost: settle it now by asking Xero.
      const { row: now, retryAfterMs } = await settleIfStale(existing, spec.tenantId);
      return answerRecorded<R>(now, retryAfterMs);
    },

    settleIfStale,

    /**
     * Settles the open writes the staleness rule calls stale (write-ledger-rules.ts: the instance that holds
     * it stopped beating, its answer was lost, or it has been in flight too long): a pending write was never
     * sent and fails; the others are looked up in Xero and end confirmed, failed (Xero does not have it), or
     * needs_review when there is no way to tell. `olderThanMs` instead settles every open write older than
     * that, whoever holds it (tests, and an administrator's forced pass).
     */
    async reconcile(olderThanMs?: number): Promise<Record<XeroWriteState, number>> {
      const counts: Record<XeroWriteState, number> = {
        pending: 0,
        sent: 0,
        confirmed: 0,
        failed: 0,
        unknown: 0,
        needs_review: 0,
      };
      const rows = await db
        .select({ write: xeroWrites, tenantId: organizations.tenantId })
        .from(xeroWrites)
        .innerJoin(organizations, eq(organizations.id, xeroWrites.organizationId))
        .where(inArray(xeroWrites.state, [...OPEN_WRITE_STATES]));
      const senders = new Map<string, Promise<SenderFacts>>();
      const isStale = async (write: WriteRow) => {
        const nowMs = Date.now();
        if (olderThanMs !== undefined)
          return nowMs - (write.sentAt ?? write.createdAt).getTime() >= olderThanMs;
        const key = write.instanceId ?? '';
        let sender = senders.get(key);
        if (!sender) senders.set(key, (sender = senderOf(write)));
        return isWriteStale(write, (await sender).alive, nowMs);
      };
      // Oldest first: a step's earlier step is looked up before the step itself is judged.
      rows.sort((a, b) => a.write.id - b.write.id);
      for (const { write, tenantId } of rows) {
        if (!(await isStale(write))) continue;
        if (write.state === 'pending' && write.dependsOn !== null) {
          const resumed = await resumeStep(write, tenantId);
          if (resumed) counts[resumed] += 1;
          continue;
        }
        if (write.state === 'pending') {
          if (await settle(write.id, { state: 'failed', error: NOT_SENT_MESSAGE })) counts.failed += 1;
          continue;
        }
        if (!finders.has(write.kind) || write.userId === null) {
          const [held] = await db
            .update(xeroWrites)
            .set({
              state: 'needs_review',
              error: write.error ?? 'Outcome unknown: please check this in Xero.',
            })
            .where(and(eq(xeroWrites.id, write.id), inArray(xeroWrites.state, [...OPEN_WRITE_STATES])))
            .returning({ id: xeroWrites.id });
          if (held) counts.needs_review += 1;
          continue;
        }
        try {
          const settled = await lookUp(write, tenantId);
          if (settled.state === 'confirmed') counts.confirmed += 1;
          else if (settled.state === 'failed') counts.failed += 1;
        } catch (error) {
          deps.log?.warn({ err: error, writeId: write.id }, 'reconcile lookup failed; will try again');
        }
      }
      return counts;
    },

    /** Settles one open write by asking Xero (see lookUp); the row as it stands afterwards. */
    lookUp,

    /**
     * Settles the stale open writes of this kind on a target (the staleness rule, as settleIfStale) before a
     * new write on it is judged. Answers those settled and those still open (in flight now, or Xero could not
     * be asked).
     */
    async settleOpenOnTarget(scope: {
      organizationId: number;
      tenantId: string;
      kind: WriteKind;
      targetId: string;
    }): Promise<{ settled: WriteRow[]; open: WriteRow[] }> {
      const rows = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, scope.organizationId),
            eq(xeroWrites.kind, scope.kind),
            eq(xeroWrites.targetId, scope.targetId),
            inArray(xeroWrites.state, [...OPEN_WRITE_STATES]),
          ),
        );
      const settled: WriteRow[] = [];
      const open: WriteRow[] = [];
      for (const row of rows) {
        const { row: now } = await settleIfStale(row, scope.tenantId);
        (now.state === 'confirmed' || now.state === 'failed' ? settled : open).push(now);
      }
      return { settled, open };
    },

    findByKey,

    /** The writes recorded under these keys, by key. */
    async findByKeys(organizationId: number, keys: readonly string[]): Promise<Map<string, WriteRow>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .select()
        .from(xeroWrites)
        .where(
          and(eq(xeroWrites.organizationId, organizationId), inArray(xeroWrites.idempotencyKey, [...keys])),
        );
      return new Map(rows.map((r) => [r.idempotencyKey, r]));
    },

    /** The confirmed write of this kind that created (or acted on) this Xero object. */
    async findConfirmedByXeroId(
      organizationId: number,
      kind: WriteKind,
      xeroId: string,
    ): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            eq(xeroWrites.state, 'confirmed'),
            sql`lower(${xeroWrites.xeroId}) = ${xeroId.toLowerCase()}`,
          ),
        );
      return row ?? null;
    },

    /**
     * Xero ids other writes of this kind already account for (confirmed, or held for review), lower-cased: a
     * finder must never claim one Xero object for two writes. `targetId` narrows it to one target.
     */
    async claimedXeroIds(
      organizationId: number,
      kind: WriteKind,
      exceptWriteId: number,
      targetId?: string,
    ): Promise<Set<string>> {
      const rows = await db
        .select({ xeroId: xeroWrites.xeroId })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            inArray(xeroWrites.state, ['confirmed', 'needs_review']),
            isNotNull(xeroWrites.xeroId),
            ne(xeroWrites.id, exceptWriteId),
            ...(targetId ? [eq(xeroWrites.targetId, targetId)] : []),
          ),
        );
      return new Set(rows.map((r) => (r.xeroId as string).toLowerCase()));
    },

    /**
     * Targets among `targetIds` with a write of this kind in one of `states` (open ones unless told) under a
     * key other than `ownKeys`.
     */
    async findTargetsWritten(
      organizationId: number,
      kind: WriteKind,
      targetIds: readonly string[],
      ownKeys: readonly string[],
      states: readonly XeroWriteState[] = OPEN_WRITE_STATES,
    ): Promise<Set<string>> {
      if (targetIds.length === 0) return new Set();
      const rows = await db
        .select({ targetId: xeroWrites.targetId, key: xeroWrites.idempotencyKey })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            inArray(xeroWrites.targetId, [...targetIds]),
            inArray(xeroWrites.state, [...states]),
          ),
        );
      const own = new Set(ownKeys);
      return new Set(rows.filter((r) => r.targetId && !own.has(r.key)).map((r) => r.targetId as string));
    },

    // --- Writes that need a person (issue 20 part 4): the admin review list. ---

    /** Writes the ledger ended as needs_review, oldest first, with their organisation. */
    async listNeedsReview() {
      return db
        .select({ write: xeroWrites, tenantId: organizations.tenantId, tenantName: organizations.tenantName })
        .from(xeroWrites)
        .innerJoin(organizations, eq(organizations.id, xeroWrites.organizationId))
        .where(eq(xeroWrites.state, 'needs_review'))
        .orderBy(xeroWrites.createdAt, xeroWrites.id);
    },

    /** Inside an intent's plan (under its document's lock): whether a write on the document waits for review. */
    async hasHeldWrite(tx: Tx, organizationId: number, document: string): Promise<boolean> {
      const [row] = await tx
        .select({ id: xeroWrites.id })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.document, document),
            eq(xeroWrites.state, 'needs_review'),
          ),
        )
        .limit(1);
      return Boolean(row);
    },

    /**
     * Inside an intent's plan: who made a confirmed write of this kind on the target (the name on its line),
     * e.g. who approved a draft meanwhile; null when nobody did through Ledgerlink.
     */
    async findConfirmedActor(
      tx: Tx,
      organizationId: number,
      kind: WriteKind,
      targetId: string,
    ): Promise<string | null> {
      const [row] = await tx
        .select({ audit: xeroWrites.audit })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            eq(xeroWrites.targetId, targetId),
            eq(xeroWrites.state, 'confirmed'),
          ),
        )
        .limit(1);
      if (!row) return null;
      return (row.audit as WriteAudit | null)?.username ?? 'another user';
    },

    /** One user's writes in an organisation that wait for review, oldest first (shown on their screens). */
    async listNeedsReviewFor(organizationId: number, userId: number): Promise<WriteRow[]> {
      return db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.userId, userId),
            eq(xeroWrites.state, 'needs_review'),
          ),
        )
        .orderBy(xeroWrites.createdAt, xeroWrites.id);
    },

    /** Asks Xero (through the kind's finder) whether it has this write, without settling anything. */
    async peekInXero(
      row: WriteRow,
      tenantId: string,
    ): Promise<
      | { status: 'found'; xeroId: string | null }
      | { status: 'missing' }
      | { status: 'unavailable'; message: string }
    > {
      const finder = finders.get(row.kind);
      if (!finder || row.userId === null)
        return {
          status: 'unavailable',
          message: 'Ledgerlink has no way to look this kind of change up in Xero.',
        };
      try {
        const found = await finder({ userId: row.userId, tenantId, organizationId: row.organizationId }, row);
        return found ? { status: 'found', xeroId: found.xeroId ?? null } : { status: 'missing' };
      } catch (error) {
        return { status: 'unavailable', message: error instanceof Error ? error.message : String(error) };
      }
    },

    /**
     * An administrator settles a needs_review write: confirmed (mark done) or failed (cancel). In one
     * transaction: the write's own success/failure line (once, as settle() would) and one admin.write.settle
     * line naming the administrator. Null when the row is not (or no longer) needs_review.
     */
    async settleReview(
      id: number,
      outcome: { state: 'confirmed'; xeroId: string | null } | { state: 'failed'; error: string },
      admin: { userId: number; username: string; ip?: string | null },
      note: Record<string, unknown> = {},
    ): Promise<{ before: WriteRow; after: WriteRow } | null> {
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(xeroWrites).where(eq(xeroWrites.id, id)).for('update');
        if (!before || before.state !== 'needs_review') return null;
        const values =
          outcome.state === 'confirmed'
            ? {
                state: 'confirmed' as const,
                xeroId: outcome.xeroId ?? before.xeroId,
                error: null,
                completedAt: new Date(),
              }
            : { state: 'failed' as const, error: outcome.error, completedAt: new Date() };
        const [after] = await tx
          .update(xeroWrites)
          .set(values)
          .where(and(eq(xeroWrites.id, id), eq(xeroWrites.state, 'needs_review')))
          .returning();
        if (!after) return null;
        await writeAuditLine(tx, after, { settledBy: admin.username });
        await afterSettled(tx, after);
        await tx.insert(auditLog).values({
          userId: admin.userId,
          username: admin.username,
          organizationId: after.organizationId,
          action: 'admin.write.settle',
          target: after.targetId ?? after.xeroId ?? `write ${after.id}`,
          result: 'success',
          detail: {
            writeId: after.id,
            kind: after.kind,
            before: { state: before.state, xeroId: before.xeroId, error: before.error },
            after: { state: after.state, xeroId: after.xeroId, error: after.error },
            ...note,
          },
          ip: admin.ip ?? null,
        });
        return { before, after };
      });
    },

    /** One retrier per kind, as for finders: the kinds an administrator may send again from the review list. */
    registerRetrier(kind: WriteKind, retrier: WriteRetrier) {
      if (retriers.has(kind)) throw new Error(`A retrier for '${kind}' writes is already registered`);
      retriers.set(kind, retrier);
    },

    canRetry(kind: WriteKind): boolean {
      return retriers.has(kind) && finders.has(kind);
    },

    /**
     * An administrator sends a held write again: only when Xero, asked now, does not have it. The change goes
     * through its feature's path under a key derived from the held write, so a second click (or a retry after
     * a crash in between) replays that one new write instead of making another; then the held write ends as
     * failed, naming the new one, with its lines. Null when the row is not (or no longer) held.
     */
    async retryReview(
      id: number,
      tenantId: string,
      admin: { userId: number; username: string; ip?: string | null },
    ) {
      const [row] = await db.select().from(xeroWrites).where(eq(xeroWrites.id, id));
      if (!row || row.state !== 'needs_review') return null;
      const retrier = retriers.get(row.kind);
      if (!retrier || !finders.has(row.kind)) throw new AppError('CONFLICT', RETRY_REFUSED_KIND);
      const inXero = await this.peekInXero(row, tenantId);
      if (inXero.status === 'found') throw new AppError('CONFLICT', RETRY_REFUSED_FOUND);
      if (inXero.status === 'unavailable')
        throw new AppError('XERO_UNAVAILABLE', RETRY_REFUSED_UNAVAILABLE, inXero.message);
      const sent = await retrier(row, { ...admin, tenantId }, `review-retry-${row.id}`);
      const settled = await this.settleReview(
        id,
        { state: 'failed', error: `Sent again by ${admin.username} as write ${sent.writeId}.` },
        admin,
        { action: 'retry', retriedAs: { writeId: sent.writeId, xeroId: sent.xeroId } },
      );
      return { ...(settled ?? { before: row, after: (await this.findById(id)) ?? row }), retried: sent };
    },

    // --- end of the review list block ---

    findById,

    /** The newest write of this kind on a target, whatever its state (null when there is none). */
    async findLatestOnTarget(scope: {
      organizationId: number;
      kind: WriteKind;
      targetId: string;
    }): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, scope.organizationId),
            eq(xeroWrites.kind, scope.kind),
            eq(xeroWrites.targetId, scope.targetId),
          ),
        )
        .orderBy(desc(xeroWrites.id))
        .limit(1);
      return row ?? null;
    },

    /**
     * Forgets the confirmed writes of these kinds settled before the cut-off (housekeeping of an
     * organisation's ledger); open, failed and held writes are always kept. Returns how many it forgot.
     */
    async forgetConfirmedBefore(
      organizationId: number,
      kinds: readonly WriteKind[],
      completedBefore: Date,
    ): Promise<number> {
      if (kinds.length === 0) return 0;
      const rows = await db
        .delete(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.state, 'confirmed'),
            inArray(xeroWrites.kind, [...kinds]),
            lt(xeroWrites.completedAt, completedBefore),
          ),
        )
        .returning({ id: xeroWrites.id });
      return rows.length;
    },
  };
}
export type WriteLedger = ReturnType<typeof createWriteLedger>;
