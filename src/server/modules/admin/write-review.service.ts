import {
  ADMIN_CANCELLED_MESSAGE,
  type AdminReviewWrite,
  type AdminReviewWriteDetail,
  type AdminSettleWriteRequest,
} from '../../../shared/admin';
import { AppError } from '../../lib/app-error';
import type { WriteAudit, WriteLedger, WriteRow } from '../../ledger/index';

const ALREADY_SETTLED_MESSAGE = 'This write was already settled. Refresh the list.';

/**
 * Writes that need a person (issue 20 part 4): what Ledgerlink knows, what Xero says now, and settling them,
 * through the write ledger. The admin routes call this; they never reach the ledger themselves.
 */
export function createWriteReviewService(deps: { ledger: WriteLedger }) {
  const { ledger } = deps;

  const reviewView = (write: WriteRow, tenantName: string | null): AdminReviewWrite => ({
    id: write.id,
    organizationId: write.organizationId,
    organizationName: tenantName,
    kind: write.kind,
    amountPence: write.amountPence,
    targetId: write.targetId,
    username: (write.audit as WriteAudit | null)?.username ?? null,
    createdAt: write.createdAt.toISOString(),
    summary: (write.audit as WriteAudit | null)?.action ?? null,
    request: write.request ?? null,
    error: write.error,
    state: write.state,
    canRetry: ledger.canRetry(write.kind),
  });

  /** The write while it awaits review; once settled, a look is a 404 and a second settle a 409. */
  async function findReviewRow(writeId: number, settledIs: 'NOT_FOUND' | 'CONFLICT') {
    const row = (await ledger.listNeedsReview()).find((r) => r.write.id === writeId);
    if (row) return row;
    const exists = await ledger.findById(writeId);
    if (!exists) throw new AppError('NOT_FOUND', `Write with ID ${writeId} not found`);
    throw new AppError(settledIs, ALREADY_SETTLED_MESSAGE);
  }

  return {
    async listForReview(): Promise<AdminReviewWrite[]> {
      return (await ledger.listNeedsReview()).map((r) => reviewView(r.write, r.tenantName));
    },

    /** One write held for review, with what Xero holds for it now. */
    async getForReview(writeId: number): Promise<AdminReviewWriteDetail> {
      const { write, tenantId, tenantName } = await findReviewRow(writeId, 'NOT_FOUND');
      return { ...reviewView(write, tenantName), xero: await ledger.peekInXero(write, tenantId) };
    },

    /** Sends it again through its feature, marks it done (with Xero's id) or cancels it. */
    async settle(
      writeId: number,
      action: AdminSettleWriteRequest,
      by: { userId: number; username: string; ip: string },
    ): Promise<AdminReviewWrite> {
      const { tenantName, tenantId } = await findReviewRow(writeId, 'CONFLICT');
      if (action.action === 'retry') {
        const retried = await ledger.retryReview(writeId, tenantId, by);
        if (!retried) throw new AppError('CONFLICT', ALREADY_SETTLED_MESSAGE);
        // The steps that waited on it (an approval's cash) go on with the write that carried it (issue 44).
        await ledger.resumeWaitingOn(retried.retried.writeId, tenantId);
        return { ...reviewView(retried.after, tenantName), retriedAs: retried.retried };
      }
      const settled = await ledger.settleReview(
        writeId,
        action.action === 'done'
          ? { state: 'confirmed', xeroId: action.xeroId ? action.xeroId : null }
          : { state: 'failed', error: ADMIN_CANCELLED_MESSAGE },
        by,
      );
      if (!settled) throw new AppError('CONFLICT', ALREADY_SETTLED_MESSAGE);
      // Marked done, the steps that waited on it go on now (issue 44).
      if (settled.after.state === 'confirmed') await ledger.resumeWaitingOn(writeId, tenantId);
      return reviewView(settled.after, tenantName);
    },
  };
}
export type WriteReviewService = ReturnType<typeof createWriteReviewService>;
