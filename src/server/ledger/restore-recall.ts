import { and, eq, inArray, ne, notInArray } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import { RESTORE_CHECK_UNAVAILABLE, RESTORE_LOOKUP_MS } from './rules';
import type { LedgerInstance } from './instance';
import { lockDocument } from './document-locks';
import { fingerprintOf } from './rules';
import type { LedgerRegistry } from './registry';
import type { LedgerSettling } from './settle';
import type { DocumentRef, IntentStep, WriteLedgerDeps, WriteOutcome, WriteRow } from './types';

/** The same request recorded by another request while this one asked Xero: its rows answer it. */
class RecordedMeanwhile extends Error {}

/**
 * The look-up of a forgotten key (issue 28): for RESTORE_LOOKUP_MS after a `db:restore`, a write under a caller's
 * key the ledger does not know may be one the restore forgot (sent after the backup was taken, and Xero replays a
 * key for minutes only), so Xero is asked for it by the kind's `afterRestore` look-up (the write's mark, or the
 * state an approval leaves) before anything else.
 *
 * One rule for every kind: **a forgotten key is looked up before anything compares the write with what
 * Ledgerlink holds** (a cached balance, a draft's cached state, a week's journal). Those checks judge a new
 * change; a resend of one Xero already has would be refused by them ("already fully paid", "no longer a draft",
 * "already exists") instead of answered. `execute` looks a new key up before sending (the last guard); a feature
 * that checks before `execute` calls `findForgotten` (one write) or `recallForgotten` (an action's steps) first.
 */
export function createLedgerRecall(
  { db }: WriteLedgerDeps,
  { instanceId, findLastRestoreMs }: LedgerInstance,
  { restoreFinders, byState, stepRunners }: LedgerRegistry,
  { writeAuditLine, afterSettled }: LedgerSettling,
) {
  /** Whether a key the ledger does not know may be one a restore forgot. */
  async function restoredLately(): Promise<boolean> {
    const restoredMs = await findLastRestoreMs();
    return restoredMs !== null && Date.now() - restoredMs <= RESTORE_LOOKUP_MS;
  }

  /**
   * Asks Xero, through the kind's `afterRestore` look-up, for the write `row` stands for: what Xero has, or null
   * (Xero does not have it, or the kind has nothing to look up). A look-up that finds the key's mark on another
   * change refuses it (VALIDATION_ERROR, DIFFERENT_CHANGE_MESSAGE, rules.ts); one that cannot ask Xero is
   * XERO_UNAVAILABLE (RESTORE_CHECK_UNAVAILABLE), so the same key can be tried again.
   */
  async function lookUpForgotten(row: WriteRow, tenantId: string): Promise<WriteOutcome<unknown> | null> {
    const finder = restoreFinders.get(row.kind);
    if (!finder || row.userId === null) return null;
    try {
      return await finder({ userId: row.userId, tenantId, organizationId: row.organizationId }, row);
    } catch (error) {
      if (error instanceof AppError && error.code === 'VALIDATION_ERROR') throw error;
      throw new AppError(
        'XERO_UNAVAILABLE',
        RESTORE_CHECK_UNAVAILABLE,
        error instanceof Error ? error.message : String(error),
      );
    }
  }

  /**
   * Whether the state a kind leaves in Xero (an approved invoice) is accounted for by another write the ledger
   * holds, open or confirmed, under another key: someone else's approval (made since the restore, or one a
   * moment ago), not the forgotten one. A look-up by state cannot tell whose change it sees; the ledger can.
   */
  async function stateIsAnothers(row: WriteRow, keys: string[]): Promise<boolean> {
    if (!byState.has(row.kind) || !row.targetId) return false;
    const [other] = await db
      .select({ id: xeroWrites.id })
      .from(xeroWrites)
      .where(
        and(
          eq(xeroWrites.organizationId, row.organizationId),
          eq(xeroWrites.kind, row.kind),
          eq(xeroWrites.targetId, row.targetId),
          ne(xeroWrites.state, 'failed'),
          notInArray(xeroWrites.idempotencyKey, keys),
        ),
      )
      .limit(1);
    return other !== undefined;
  }

  async function recordedRows(organizationId: number, keys: string[]): Promise<WriteRow[]> {
    return db
      .select()
      .from(xeroWrites)
      .where(and(eq(xeroWrites.organizationId, organizationId), inArray(xeroWrites.idempotencyKey, keys)))
      .orderBy(xeroWrites.id);
  }

  return {
    restoredLately,
    lookUpForgotten,

    /**
     * Before an action's steps (or one write) under keys the ledger does not know are judged against what
     * Ledgerlink holds, and only for RESTORE_LOOKUP_MS after a restore: Xero is asked for each step in order
     * (a later step once bound to what the earlier one's answer told, as its step runner binds it). Nothing
     * found for the first step: null, nothing recorded, and the feature goes on to its checks. Found: every
     * step is recorded in one transaction (under the document's lock), those Xero has as confirmed (their
     * activity-log lines written and their confirm hooks run, as settling does), the rest pending for the
     * caller to send as any step; the rows are answered. A key the ledger knows (the same request arriving
     * twice at once) answers the rows as recorded, for the caller's same-key path. Nothing is ever sent here.
     */
    async recallForgotten(input: {
      organizationId: number;
      tenantId: string;
      userId: number;
      document?: DocumentRef | undefined;
      steps: readonly IntentStep[];
    }): Promise<WriteRow[] | null> {
      const head = input.steps[0];
      if (!head || !restoreFinders.has(head.kind) || !(await restoredLately())) return null;
      const keys = input.steps.map((s) => s.idempotencyKey);
      const known = await recordedRows(input.organizationId, keys);
      if (known.length > 0) return known;

      // Asked before anything is recorded: no transaction is held while Xero answers.
      const now = new Date();
      const rows: WriteRow[] = [];
      for (const step of input.steps) {
        let row: WriteRow = {
          id: 0,
          organizationId: input.organizationId,
          userId: input.userId,
          kind: step.kind,
          idempotencyKey: step.idempotencyKey,
          fingerprint: '',
          targetId: step.targetId ?? null,
          amountPence: step.amountPence ?? null,
          state: 'pending',
          request: step.request,
          response: null,
          xeroId: null,
          error: null,
          audit: step.audit ?? null,
          document: input.document?.key ?? null,
          documentLabel: input.document?.label ?? null,
          dependsOn: null,
          attempts: 0,
          createdAt: now,
          sentAt: null,
          instanceId,
          completedAt: null,
          viewsDue: false,
          reviewClaimBy: null,
          reviewClaimAt: null,
        };
        const before = step.after === undefined ? undefined : rows[step.after];
        if (before?.state === 'confirmed') {
          const bound = stepRunners.get(step.kind)?.bind?.(row, before) ?? {};
          row = {
            ...row,
            ...(bound.targetId !== undefined ? { targetId: bound.targetId } : {}),
            ...(bound.request !== undefined ? { request: bound.request } : {}),
            ...(bound.audit !== undefined ? { audit: bound.audit } : {}),
          };
        }
        const found =
          (before && before.state !== 'confirmed') || (await stateIsAnothers(row, keys))
            ? null
            : await lookUpForgotten(row, input.tenantId);
        if (!found && rows.length === 0) return null;
        // Found by the state it leaves (an approved invoice), the first step cannot say whose change Xero shows.
        // When a later step that moves money is not in Xero under its own mark, the state is another write's that
        // the restore forgot (an approval between the backup and the restore, its cash paid under its own key):
        // this action is refused, never answered as done with its cash paid a second time.
        if (!found && byState.has(head.kind) && (row.amountPence ?? 0) > 0)
          throw new AppError(
            'CONFLICT',
            `${input.document?.label ?? 'This document'} was already approved in Xero before the database was restored, by another change than this one (this one's cash is not in Xero): nothing was sent. Refresh the list.`,
          );
        rows.push(
          found
            ? {
                ...row,
                state: 'confirmed',
                xeroId: found.xeroId ?? null,
                response: found.response,
                completedAt: new Date(),
                // Found in Xero, never seen by the cache the restore put back (issue 44).
                viewsDue: true,
              }
            : row,
        );
      }

      // An action found by that state alone, with no step of its own in Xero under its mark (an approval
      // without cash), cannot be told from another person's approval the restore forgot: it is refused as a
      // change to a draft approved meanwhile is, never answered as done and logged as this user's (decision 015).
      if (byState.has(head.kind) && input.steps.length === 1)
        throw new AppError(
          'CONFLICT',
          `${input.document?.label ?? 'This document'} was already approved in Xero before the database was restored: nothing was sent. Refresh the list.`,
        );

      try {
        return await db.transaction(async (tx) => {
          if (input.document) await lockDocument(tx, input.organizationId, input.document.key, keys);
          const recorded: WriteRow[] = [];
          for (const [i, row] of rows.entries()) {
            const after = input.steps[i]?.after;
            const { id: _id, ...values } = row;
            const [inserted] = await tx
              .insert(xeroWrites)
              .values({
                ...values,
                request: row.request as object,
                response: row.response as object | null,
                fingerprint: fingerprintOf(row.kind, input.steps[i]?.request),
                dependsOn: after === undefined ? null : (recorded[after]?.id ?? null),
                sentAt: row.state === 'confirmed' ? now : null,
              })
              .onConflictDoNothing()
              .returning();
            if (!inserted) throw new RecordedMeanwhile();
            if (inserted.state === 'confirmed') {
              await writeAuditLine(tx, inserted);
              await afterSettled(tx, inserted);
            }
            recorded.push(inserted);
          }
          return recorded;
        });
      } catch (error) {
        if (error instanceof RecordedMeanwhile) return recordedRows(input.organizationId, keys);
        throw error;
      }
    },
  };
}
export type LedgerRecall = ReturnType<typeof createLedgerRecall>;
