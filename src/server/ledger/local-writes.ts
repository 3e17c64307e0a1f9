import { eq } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import type { WriteKind } from './rules';
import type { LedgerRegistry } from './registry';
import { waitsOnMessage, type LedgerSettling } from './settle';
import type { LocalWrite, Tx, WriteLedgerDeps, WriteRow } from './types';

/** A local write whose request stopped before it was applied: failed, as a Xero write never sent is. */
export const NOT_SAVED_MESSAGE = 'Not saved: Ledgerlink stopped before saving it.';

/**
 * Writes that never go to Xero (issue 44, see LocalWrite): pending cash on a draft is Ledgerlink's own row, so
 * the ledger knows exactly whether it was applied. It is applied in the transaction that confirms it (no `sent`
 * state, no window where a crash leaves it applied and unsettled), and whatever is still open after a crash is
 * settled from the database: a pending one was not applied; one an older version left sent or unknown is
 * asked of the rows themselves (`isApplied`).
 */
export function createLedgerLocal(
  { db }: WriteLedgerDeps,
  { localKinds }: LedgerRegistry,
  { writeAuditLine, afterSettled }: Pick<LedgerSettling, 'writeAuditLine' | 'afterSettled'>,
) {
  const isLocal = (kind: WriteKind) => localKinds.has(kind);

  function localOf(row: WriteRow): LocalWrite {
    const local = localKinds.get(row.kind);
    if (!local) throw new Error(`'${row.kind}' is not a local write`);
    return local;
  }

  /** Settles a locked open row in `tx`, with its activity-log line and what follows from it (afterSettled). */
  async function settleIn(
    tx: Tx,
    row: WriteRow,
    values: Partial<typeof xeroWrites.$inferInsert>,
    viewsDue: boolean,
  ): Promise<WriteRow> {
    const [after] = await tx
      .update(xeroWrites)
      .set({ completedAt: new Date(), ...values, viewsDue: viewsDue || row.viewsDue })
      .where(eq(xeroWrites.id, row.id))
      .returning();
    if (!after) return row;
    if (after.state === 'confirmed' || after.state === 'failed') {
      await writeAuditLine(tx, after);
      await afterSettled(tx, after);
    }
    return after;
  }

  /**
   * In `tx`, with the row locked: applies it (its step before it confirmed) and confirms it, or fails it with
   * the refusal; nothing when it is no longer pending or the step before it is not confirmed yet.
   */
  async function applyIn(tx: Tx, locked: WriteRow, viewsDue: boolean): Promise<WriteRow> {
    if (locked.state !== 'pending') return locked;
    let row = locked;
    if (row.dependsOn !== null) {
      const [before] = await tx.select().from(xeroWrites).where(eq(xeroWrites.id, row.dependsOn));
      if (!before || before.state === 'failed')
        return settleIn(
          tx,
          row,
          {
            state: 'failed',
            error: `Not sent: the step before it (write ${row.dependsOn}) was not applied in Xero.`,
          },
          false,
        );
      if (before.state === 'needs_review')
        return settleIn(tx, row, { state: 'needs_review', error: waitsOnMessage(before) }, false);
      if (before.state !== 'confirmed') return row;
      const bound = localOf(row).bind?.(row, before) ?? {};
      if (bound.targetId !== undefined || bound.request !== undefined || bound.audit !== undefined) {
        const [rebound] = await tx
          .update(xeroWrites)
          .set({
            ...(bound.targetId !== undefined ? { targetId: bound.targetId } : {}),
            ...(bound.request !== undefined ? { request: bound.request as object } : {}),
            ...(bound.audit !== undefined ? { audit: bound.audit } : {}),
          })
          .where(eq(xeroWrites.id, row.id))
          .returning();
        if (rebound) row = rebound;
      }
    }
    const outcome = await localOf(row).apply(tx, row);
    return 'refused' in outcome
      ? settleIn(tx, row, { state: 'failed', error: outcome.refused }, false)
      : settleIn(
          tx,
          row,
          { state: 'confirmed', xeroId: null, response: outcome.response as object, error: null },
          viewsDue,
        );
  }

  async function locked(tx: Tx, id: number): Promise<WriteRow | null> {
    const [row] = await tx.select().from(xeroWrites).where(eq(xeroWrites.id, id)).for('update');
    return row ?? null;
  }

  /** Whether Ledgerlink's rows hold this local write now: exact for every write but an older version's. */
  async function isAppliedIn(tx: Tx, row: WriteRow): Promise<boolean | null> {
    if (row.state === 'confirmed') return true;
    if (row.state === 'failed') return false;
    // Applied only with its confirmation, never claimed (`sent`): an open or held row was not applied, unless
    // an older version sent it (sentAt), which applied it before settling it.
    if (row.sentAt === null) return false;
    return localOf(row).isApplied(tx, row);
  }

  return {
    isLocal,

    /**
     * Applies a recorded local write and confirms it, in one transaction (or fails it with its refusal);
     * `viewsDue` when the request that made it is not there to show it (the reconciler). The row afterwards.
     */
    async applyLocal(id: number, viewsDue: boolean): Promise<WriteRow | null> {
      return db.transaction(async (tx) => {
        const row = await locked(tx, id);
        return row ? applyIn(tx, row, viewsDue) : null;
      });
    },

    /**
     * A stale open local write, settled from the database: a step whose step before it is settled is applied
     * (or fails with it); a pending head was not applied (its request stopped first) and fails; one an older
     * version left sent or unknown is confirmed or failed by what the rows hold, and held for review only when
     * they cannot tell.
     */
    async settleLocalStale(id: number): Promise<WriteRow | null> {
      return db.transaction(async (tx) => {
        const row = await locked(tx, id);
        if (!row) return null;
        if (row.state === 'pending')
          return row.dependsOn !== null
            ? applyIn(tx, row, true)
            : settleIn(tx, row, { state: 'failed', error: NOT_SAVED_MESSAGE }, false);
        if (row.state !== 'sent' && row.state !== 'unknown') return row;
        const applied = await isAppliedIn(tx, row);
        if (applied === null)
          return settleIn(
            tx,
            row,
            {
              state: 'needs_review',
              error:
                'Ledgerlink cannot tell from its own records whether this was saved: check the draft, then mark it done or cancel it.',
            },
            false,
          );
        return applied
          ? settleIn(tx, row, { state: 'confirmed', error: null, response: row.request as object }, true)
          : settleIn(tx, row, { state: 'failed', error: NOT_SAVED_MESSAGE }, false);
      });
    },

    /** What the review panel shows for a local write: whether Ledgerlink's rows hold it now. */
    async peekLocal(row: WriteRow): Promise<boolean | null> {
      return db.transaction(async (tx) => isAppliedIn(tx, row));
    },

    /**
     * An administrator's decision on a held local write, in the transaction that settles it (issue 44: a
     * decision changes what it says it changes): done applies it when the rows do not hold it yet (refused
     * when it cannot be, e.g. over the invoice's total now), cancel takes it back out when they do. Refused
     * (409) when the rows cannot tell.
     */
    async decideLocal(tx: Tx, row: WriteRow, decision: 'confirmed' | 'failed'): Promise<void> {
      const applied = await isAppliedIn(tx, row);
      if (applied === null)
        throw new AppError(
          'CONFLICT',
          'Ledgerlink cannot tell from its own records whether this change was saved, so it cannot undo or finish it safely: correct the draft on its screen, then cancel this.',
        );
      if (decision === 'failed') {
        if (applied) await localOf(row).undo(tx, row);
        return;
      }
      if (applied) return;
      const outcome = await localOf(row).apply(tx, row);
      if ('refused' in outcome)
        throw new AppError('CONFLICT', `It cannot be saved now: ${outcome.refused} Cancel it instead.`);
    },

    /** Whether a row's local effect is in the rows now (for the review decision's note). */
    async isAppliedNow(tx: Tx, row: WriteRow): Promise<boolean | null> {
      return isAppliedIn(tx, row);
    },
  };
}
export type LedgerLocal = ReturnType<typeof createLedgerLocal>;
