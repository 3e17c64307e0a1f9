import { and, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import { auditLog, organizations, xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import { MAX_IN_FLIGHT_MS, type WriteKind } from './rules';
import type { LedgerLocal } from './local-writes';
import type { LedgerRegistry } from './registry';
import type { LedgerSettling } from './settle';
import type { Tx, WriteAudit, WriteLedgerDeps, WriteRow } from './types';

export const RETRY_REFUSED_FOUND = 'Xero already has this change: mark it done instead of sending it again.';
export const RETRY_REFUSED_KIND =
  'Ledgerlink cannot send this kind of change again from here: cancel it and redo it on its screen.';
export const HELD_USER_GONE =
  'The user who made this change no longer exists: cancel it and redo it on its screen.';
export const RETRY_REFUSED_UNAVAILABLE =
  'Could not ask Xero whether it has this change, so it was not sent again. Try again in a moment.';
export const RETRY_REFUSED_LOCAL =
  'Ledgerlink keeps this change itself (nothing goes to Xero): mark it done to save it now, or cancel it.';

/** Another administrator is sending the held write again: a decision now would race it (issue 44). */
export function describeRetryInFlight(by: string): string {
  return `${by} is sending this change again just now: refresh in a moment to see how it ended.`;
}

/**
 * Writes that need a person (issue 20 part 4): the admin review list, the checks an intent makes for a held
 * write, and an administrator's settling or sending again of one.
 */
export function createLedgerReview(
  { db }: WriteLedgerDeps,
  { finders, retriers }: LedgerRegistry,
  { writeAuditLine, afterSettled, findById, resumeStep }: LedgerSettling,
  local: Pick<LedgerLocal, 'isLocal' | 'peekLocal' | 'decideLocal'>,
) {
  /** A claim to send a held write again lapses after this (its sender stopped on the way). */
  const claimFresh = () => new Date(Date.now() - MAX_IN_FLIGHT_MS);
  return {
    /**
     * After a review decision: the steps waiting on the write it settled (released by a mark done, or now
     * waiting on the write a "Send again" made) are sent now rather than at the reconciler's next pass.
     * Answers their states.
     */
    async resumeWaitingOn(id: number, tenantId: string): Promise<string[]> {
      const waiting = await db
        .select()
        .from(xeroWrites)
        .where(and(eq(xeroWrites.dependsOn, id), eq(xeroWrites.state, 'pending')))
        .orderBy(xeroWrites.id);
      const states: string[] = [];
      for (const step of waiting) states.push((await resumeStep(step, tenantId)) ?? 'pending');
      return states;
    },

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
      | { status: 'found'; xeroId: string | null; keptBy?: 'ledgerlink' }
      | { status: 'missing'; keptBy?: 'ledgerlink' }
      | { status: 'unavailable'; message: string }
    > {
      if (local.isLocal(row.kind)) {
        // Never sent to Xero (issue 44): Ledgerlink's own rows say whether it is saved.
        const applied = await local.peekLocal(row);
        if (applied === null)
          return {
            status: 'unavailable',
            message: 'Ledgerlink cannot tell from its own records whether this change was saved.',
          };
        return applied
          ? { status: 'found', xeroId: null, keptBy: 'ledgerlink' }
          : { status: 'missing', keptBy: 'ledgerlink' };
      }
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
      /** The administrator who claimed it to send it again settles it (retryReview). */
      claimedBy?: string,
    ): Promise<{ before: WriteRow; after: WriteRow } | null> {
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(xeroWrites).where(eq(xeroWrites.id, id)).for('update');
        if (!before || before.state !== 'needs_review') return null;
        const claimed =
          before.reviewClaimAt && before.reviewClaimAt > claimFresh() ? before.reviewClaimBy : null;
        if (claimed && claimed !== claimedBy) throw new AppError('CONFLICT', describeRetryInFlight(claimed));
        const isLocal = local.isLocal(before.kind);
        // A decision changes what it says (issue 44): a local write is applied (done) or taken back out of
        // Ledgerlink's rows (cancel) in this transaction; a change Xero has is read into the cache after.
        if (isLocal && !claimedBy) await local.decideLocal(tx, before, outcome.state);
        const values =
          outcome.state === 'confirmed'
            ? {
                state: 'confirmed' as const,
                xeroId: outcome.xeroId ?? before.xeroId,
                error: null,
                completedAt: new Date(),
                viewsDue: true,
                ...(isLocal && before.response === null ? { response: before.request as object } : {}),
              }
            : // Cancelled, the open screens are told too (their lists and a period waiting on it read again).
              { state: 'failed' as const, error: outcome.error, completedAt: new Date(), viewsDue: true };
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
      if (local.isLocal(row.kind)) throw new AppError('CONFLICT', RETRY_REFUSED_LOCAL);
      const retrier = retriers.get(row.kind);
      if (!retrier || !finders.has(row.kind)) throw new AppError('CONFLICT', RETRY_REFUSED_KIND);
      // Claimed first (issue 44), so a cancel or a second administrator's "Send again" meanwhile is refused
      // naming this one, instead of reporting a decision Xero is being sent the opposite of.
      const [claim] = await db
        .update(xeroWrites)
        .set({ reviewClaimBy: admin.username, reviewClaimAt: new Date() })
        .where(
          and(
            eq(xeroWrites.id, id),
            eq(xeroWrites.state, 'needs_review'),
            or(isNull(xeroWrites.reviewClaimAt), lt(xeroWrites.reviewClaimAt, claimFresh())),
          ),
        )
        .returning({ id: xeroWrites.id });
      if (!claim) {
        const now = await findById(id);
        if (now?.state !== 'needs_review') return null;
        throw new AppError('CONFLICT', describeRetryInFlight(now.reviewClaimBy ?? 'Another administrator'));
      }
      const release = () =>
        db
          .update(xeroWrites)
          .set({ reviewClaimBy: null, reviewClaimAt: null })
          .where(and(eq(xeroWrites.id, id), eq(xeroWrites.reviewClaimBy, admin.username)));
      let sent: { writeId: number; xeroId: string | null };
      try {
        const inXero = await this.peekInXero(row, tenantId);
        if (inXero.status === 'found') throw new AppError('CONFLICT', RETRY_REFUSED_FOUND);
        if (inXero.status === 'unavailable')
          throw new AppError('XERO_UNAVAILABLE', RETRY_REFUSED_UNAVAILABLE, inXero.message);
        sent = await retrier(row, { ...admin, tenantId }, `review-retry-${row.id}`);
      } catch (error) {
        await release();
        throw error;
      }
      // The steps that waited on the held write (an approval's cash) now wait on the write that carried it,
      // and are sent once it is confirmed (issue 44: sent again, the approval no longer dropped its cash).
      await db
        .update(xeroWrites)
        .set({ dependsOn: sent.writeId, state: 'pending', error: null })
        .where(
          and(
            eq(xeroWrites.dependsOn, id),
            inArray(xeroWrites.state, ['pending', 'needs_review']),
            isNull(xeroWrites.sentAt),
          ),
        );
      const settled = await this.settleReview(
        id,
        { state: 'failed', error: `Sent again by ${admin.username} as write ${sent.writeId}.` },
        admin,
        { action: 'retry', retriedAs: { writeId: sent.writeId, xeroId: sent.xeroId } },
        admin.username,
      );
      return { ...(settled ?? { before: row, after: (await findById(id)) ?? row }), retried: sent };
    },
  };
}
