import { and, eq, inArray, sql } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import type { LedgerInstance } from './instance';
import { lockDocument } from './document-locks';
import { fingerprintOf } from './rules';
import type { DocumentRef, IntentStep, Tx, WriteLedgerDeps, WriteRow } from './types';

/** Intents of several steps (issue 28): every step of an action recorded, under its document's lock, before the first is sent. */
export function createLedgerIntents({ db }: WriteLedgerDeps, { instanceId }: LedgerInstance) {
  return {
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
  };
}
