import crypto from 'node:crypto';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import { DIFFERENT_CHANGE_MESSAGE, fingerprintOf, OPEN_WRITE_STATES } from './rules';
import type { LedgerInstance } from './instance';
import type { LedgerLocal } from './local-writes';
import { lockDocument } from './document-locks';
import type { LedgerRecall } from './restore-recall';
import { DEFINITE_FAILURES, NOT_SENT_MESSAGE, type LedgerSettling } from './settle';
import type { WriteLedgerDeps, WriteOutcome, WriteRow, WriteSpec } from './types';
import { isNotApplied } from '../xero/xero-http/http';

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

/**
 * Recording and sending one write: recorded before it is sent (or claimed, a step of an intent), refused while
 * another is open on its document or target, looked up in Xero first when the database was restored lately and
 * its key is new, sent with its idempotency key, and settled with Xero's answer; a same key again answers the
 * first outcome.
 */
export function createLedgerRecording(
  deps: WriteLedgerDeps,
  { instanceId }: LedgerInstance,
  { restoredLately, lookUpForgotten, recallForgotten }: LedgerRecall,
  { update, settle, claim, correctToConfirmed, findById, settleIfStale }: LedgerSettling,
  local: Pick<LedgerLocal, 'isLocal' | 'applyLocal'>,
) {
  const { db } = deps;

  /**
   * Before a write under a caller's key the ledger has just met is sent: when the database was restored
   * lately the key may be one the restore forgot, so Xero is asked for it first (restore-recall.ts).
   * Answers what Xero has (the write then settles as confirmed, nothing is sent), or null to send.
   */
  async function findForgottenWrite(row: WriteRow, spec: WriteSpec<unknown>, tenantId: string) {
    if (!spec.idempotencyKey || spec.lookedUp || !(await restoredLately())) return null;
    return lookUpForgotten(row, tenantId);
  }

  /** The row a new write is recorded as, pending, before anything is sent. */
  function pendingRowOf(spec: WriteSpec<unknown>, key: string) {
    return {
      organizationId: spec.organizationId,
      userId: spec.userId,
      kind: spec.kind,
      idempotencyKey: key,
      fingerprint: fingerprintOf(spec.kind, spec.request),
      targetId: spec.targetId ?? null,
      amountPence: spec.amountPence ?? null,
      request: spec.request as object,
      audit: spec.audit ?? null,
      document: spec.document?.key ?? null,
      documentLabel: spec.document?.label ?? null,
      state: 'pending' as const,
      instanceId,
    };
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
   * A local write (issue 44: nothing goes to Xero) applied and confirmed in one transaction, or failed with its
   * refusal; answered as a sent write is. Still pending: the step before it is not confirmed yet.
   */
  async function finishLocal<R>(
    row: WriteRow,
  ): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
    const wasPending = row.state === 'pending';
    const now = wasPending ? ((await local.applyLocal(row.id, false)) ?? row) : row;
    if (now.state === 'pending' || now.state === 'sent' || now.state === 'unknown') {
      const { row: settled, retryAfterMs } = await settleIfStale(now, '');
      return answerRecorded<R>(settled, retryAfterMs);
    }
    if (now.state === 'failed')
      throw new AppError(wasPending ? 'VALIDATION_ERROR' : 'XERO_REJECTED', now.error ?? NOT_SENT_MESSAGE);
    if (now.state === 'needs_review') return answerRecorded<R>(now, 0);
    return { xeroId: null, response: now.response as R, writeId: now.id, replayed: !wasPending };
  }

  async function finish<R>(
    row: WriteRow,
    spec: WriteSpec<R>,
    alreadyClaimed = false,
  ): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
    if (local.isLocal(row.kind)) return finishLocal<R>(row);
    let forgotten: WriteOutcome<unknown> | null;
    try {
      forgotten = await findForgottenWrite(row, spec as WriteSpec<unknown>, spec.tenantId);
    } catch (error) {
      // Not sent, and nothing happened: the row goes, so the same key can be tried again.
      await db.delete(xeroWrites).where(and(eq(xeroWrites.id, row.id), eq(xeroWrites.state, 'pending')));
      throw error;
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
    // The request holds Xero's answer and writes the cache with it: nothing for the catch-up.
    const settled = await settle(
      row.id,
      { state: 'confirmed', xeroId: outcome.xeroId ?? null, response: outcome.response },
      false,
    );
    // Settled meanwhile by a look-up that found nothing (this instance was taken for dead while Xero was
    // still applying it): Xero's own answer is the truth, so the write is corrected to confirmed.
    if (!settled) await correctToConfirmed(row.id, outcome);
    return { ...outcome, writeId: row.id, replayed: false };
  }

  return {
    /**
     * One write under a caller's key, before its feature compares it with what Ledgerlink holds (a cached
     * balance, a week Xero has a journal for): for RESTORE_LOOKUP_MS after a restore the key may be one the
     * restore forgot, so Xero is asked for it first (`recallForgotten`, restore-recall.ts). Found, the
     * write is recorded confirmed (its success line written) and answered with what Xero has; the same key
     * recorded meanwhile (sent twice at once) is answered as `execute` answers a same key: the first outcome,
     * "already being processed" while open, or refused as a different change. Otherwise null, nothing is
     * recorded, and the feature goes on to its checks. Nothing is ever sent. When Xero cannot be asked,
     * XERO_UNAVAILABLE ("Could not ask Xero…"), so the same key can be tried again.
     */
    async findForgotten<R>(
      // `send` is never called; a spec built for `execute` may be passed as it is.
      spec: Omit<WriteSpec<R>, 'send' | 'step'> & Partial<Pick<WriteSpec<R>, 'send'>>,
    ): Promise<(WriteOutcome<R> & { writeId: number; replayed: true }) | null> {
      if (!spec.idempotencyKey) return null;
      const rows = await recallForgotten({
        organizationId: spec.organizationId,
        tenantId: spec.tenantId,
        userId: spec.userId,
        document: spec.document,
        steps: [
          {
            kind: spec.kind,
            idempotencyKey: spec.idempotencyKey,
            targetId: spec.targetId ?? null,
            amountPence: spec.amountPence ?? null,
            request: spec.request,
            ...(spec.audit ? { audit: spec.audit } : {}),
          },
        ],
      });
      const row = rows?.[0];
      if (!row) return null;
      if (row.fingerprint !== fingerprintOf(spec.kind, spec.request))
        throw new AppError('VALIDATION_ERROR', DIFFERENT_CHANGE_MESSAGE);
      const { row: now, retryAfterMs } = await settleIfStale(row, spec.tenantId);
      return { ...answerRecorded<R>(now, retryAfterMs), replayed: true };
    },

    async execute<R>(spec: WriteSpec<R>): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
      if (spec.step) {
        // A step of an intent, recorded before the first step was sent: claim it (once the step before it
        // is confirmed) and send it; whoever claimed it first (this request, a retry, the reconciler) sends it.
        let recorded = (await findById(spec.step.id)) ?? spec.step;
        if (local.isLocal(recorded.kind)) return finishLocal<R>(recorded);
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
      const values = pendingRowOf(spec, key);
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
        throw new AppError('VALIDATION_ERROR', DIFFERENT_CHANGE_MESSAGE);
      }
      // Its first attempt's instance died, or its answer was lost: settle it now by asking Xero.
      const { row: now, retryAfterMs } = await settleIfStale(existing, spec.tenantId);
      return answerRecorded<R>(now, retryAfterMs);
    },
  };
}
