import { and, eq } from 'drizzle-orm';
import { auditLog, organizations, xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import type { WriteKind } from './write-ledger-rules';
import type { LedgerRegistry } from './write-ledger-registry';
import type { LedgerSettling } from './write-ledger-settle';
import type { Tx, WriteAudit, WriteLedgerDeps, WriteRow } from './write-ledger-types';

export const RETRY_REFUSED_FOUND = 'Xero already has this change: mark it done instead of sending it again.';
export const RETRY_REFUSED_KIND =
  'Ledgerlink cannot send this kind of change again from here: cancel it and redo it on its screen.';
export const HELD_USER_GONE =
  'The user who made this change no longer exists: cancel it and redo it on its screen.';
export const RETRY_REFUSED_UNAVAILABLE =
  'Could not ask Xero whether it has this change, so it was not sent again. Try again in a moment.';

/**
 * Writes that need a person (issue 20 part 4): the admin review list, the checks an intent makes for a held
 * write, and an administrator's settling or sending again of one.
 */
export function createLedgerReview(
  { db }: WriteLedgerDeps,
  { finders, retriers }: LedgerRegistry,
  { writeAuditLine, afterSettled, findById }: LedgerSettling,
) {
  return {
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
      return { ...(settled ?? { before: row, after: (await findById(id)) ?? row }), retried: sent };
    },
  };
}
