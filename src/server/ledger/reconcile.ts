import { and, eq, inArray } from 'drizzle-orm';
import { organizations, xeroWrites } from '../db/schema/index';
import {
  isWriteStale,
  OPEN_WRITE_STATES,
  type SenderFacts,
  type WriteKind,
  type XeroWriteState,
} from './rules';
import type { LedgerInstance } from './instance';
import type { LedgerLocal } from './local-writes';
import type { LedgerRegistry } from './registry';
import { NOT_SENT_MESSAGE, type LedgerSettling } from './settle';
import type { WriteLedgerDeps, WriteRow } from './types';

/** Reconciling: the open writes the staleness rule calls stale settled in one pass, or those on one target. */
export function createLedgerReconciler(
  deps: WriteLedgerDeps,
  { senderOf }: LedgerInstance,
  { finders }: LedgerRegistry,
  { settle, lookUp, settleIfStale, resumeStep }: LedgerSettling,
  local: Pick<LedgerLocal, 'isLocal' | 'settleLocalStale'>,
) {
  const { db } = deps;
  return {
    /**
     * Settles the open writes the staleness rule calls stale (rules.ts: the instance that holds
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
        if (local.isLocal(write.kind)) {
          // Never sent to Xero: settled from the database, never "outcome unknown" (issue 44).
          const now = await local.settleLocalStale(write.id);
          if (now && now.state !== write.state) counts[now.state as XeroWriteState] += 1;
          continue;
        }
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
  };
}
