import { and, eq, inArray, isNull } from 'drizzle-orm';
import { auditLog, xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import {
  HEARTBEAT_INTERVAL_MS,
  isOpenWriteState,
  isWriteStale,
  msUntilStale,
  OPEN_WRITE_STATES,
  type XeroWriteState,
} from './rules';
import type { LedgerInstance } from './instance';
import type { LedgerRegistry } from './registry';
import type { Tx, WriteAudit, WriteLedgerDeps, WriteOutcome, WriteRow } from './types';
import { isNotApplied } from '../xero/xero-http/http';

/** Errors where Xero certainly did not apply the write. */
export const DEFINITE_FAILURES = new Set([
  'XERO_REJECTED',
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'NOT_FOUND',
  'FORBIDDEN',
  'CONFLICT',
  'UNPROCESSABLE',
]);

/** A write that was never sent (its instance stopped first), settled as failed. */
export const NOT_SENT_MESSAGE = 'Not sent: Ledgerlink stopped before sending it to Xero.';

/** The text of a step held because the step before it waits for review (resumeStep). */
export function waitsOnMessage(before: WriteRow): string {
  return `Not sent: it waits on write ${before.id} (${before.kind}), whose outcome is not known.`;
}

/** What settling needs of the local writes' part (local-writes.ts): writes that never go to Xero. */
export interface LocalSettling {
  isLocal(kind: WriteRow['kind']): boolean;
  applyLocal(id: number, viewsDue: boolean): Promise<WriteRow | null>;
  settleLocalStale(id: number): Promise<WriteRow | null>;
}

/**
 * Settling writes: a write moved to confirmed or failed with its activity-log line (once, whoever settles it),
 * a recorded step claimed for sending, an open write looked up in Xero, the staleness rule applied to one write,
 * and a step its request left unsent finished.
 */
export function createLedgerSettling(
  deps: WriteLedgerDeps,
  { instanceId, senderOf }: LedgerInstance,
  { finders, stepRunners, confirmHooks }: LedgerRegistry,
) {
  const { db } = deps;
  /** The local writes' part (local-writes.ts), bound once both are built: it settles with these. */
  let local: LocalSettling | null = null;

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
      // Steps held only because this write waited for review (issue 44): it is settled, so they go on, sent by
      // whoever finds them (the reconciler) as any step whose step before it is confirmed.
      await tx
        .update(xeroWrites)
        .set({ state: 'pending', error: null })
        .where(
          and(
            eq(xeroWrites.dependsOn, row.id),
            eq(xeroWrites.state, 'needs_review'),
            isNull(xeroWrites.sentAt),
            eq(xeroWrites.error, waitsOnMessage(row)),
          ),
        );
      return;
    }
    if (row.state !== 'failed') return;
    // Steps waiting on it, pending or held because it was (never sent: nothing of them reached Xero).
    const waiting = await tx
      .update(xeroWrites)
      .set({
        state: 'failed',
        error: `Not sent: the step before it (write ${row.id}) was not applied in Xero.`,
        completedAt: new Date(),
      })
      .where(
        and(
          eq(xeroWrites.dependsOn, row.id),
          inArray(xeroWrites.state, ['pending', 'needs_review']),
          isNull(xeroWrites.sentAt),
        ),
      )
      .returning();
    for (const step of waiting) {
      await writeAuditLine(tx, step);
      await afterSettled(tx, step);
    }
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
    /**
     * Whether the cached views still have to take it (issue 44): a write confirmed by anyone but the request
     * holding Xero's answer (which writes the cache itself) is read into the cache by the catch-up.
     */
    viewsDue = outcome.state === 'confirmed',
  ): Promise<WriteRow | null> {
    const values =
      outcome.state === 'confirmed'
        ? {
            state: 'confirmed' as const,
            xeroId: outcome.xeroId,
            response: outcome.response as object,
            error: null,
            completedAt: new Date(),
            ...(viewsDue ? { viewsDue: true } : {}),
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
      // Its success line, as settle() writes it, marked as a correction.
      if (row) await writeAuditLine(tx, row, { corrected: true });
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
   * The staleness rule applied to one open write (rules.ts): when it is stale, a pending write
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
    if (local?.isLocal(row.kind)) {
      // Never sent to Xero: settled from the database (issue 44).
      const now = (await local.settleLocalStale(row.id)) ?? row;
      return { row: now, retryAfterMs: isOpenWriteState(now.state) ? HEARTBEAT_INTERVAL_MS : 0 };
    }
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
    if (local?.isLocal(write.kind)) {
      const now = await local.applyLocal(write.id, true);
      return now && now.state !== 'pending' && now.state !== 'sent' ? now.state : null;
    }
    if (before?.state === 'needs_review') {
      await update(write.id, { state: 'needs_review', error: waitsOnMessage(before) });
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
    /** Binds the local writes' part (built from this one, write-ledger.ts). */
    bindLocal(part: LocalSettling) {
      local = part;
    },
    update,
    writeAuditLine,
    afterSettled,
    settle,
    claim,
    correctToConfirmed,
    findById,
    findByKey,
    lookUp,
    settleIfStale,
    resumeStep,
  };
}
export type LedgerSettling = ReturnType<typeof createLedgerSettling>;
