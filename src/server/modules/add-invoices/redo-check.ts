import { describeInvoiceRedo } from '../../../shared/redo-warning';
import { refuseRedo } from '../../lib/redo-warning';
import { hasWriteMark } from '../../ledger/index';
import type { AddInvoicesContext, AddInvoicesDeps } from './context';

/**
 * The redo warning for a new invoice and its cash (issue 44 item 4): for a day after a database restore, a new
 * invoice under a key Ledgerlink does not know is compared with the invoices this app made in Xero for the same
 * contact and date (one read, as the finder of a lost create reads them). One of the same total, neither deleted
 * nor voided, that Ledgerlink's restored records do not hold and that is not this very request's own (its
 * write's mark: a resend is answered as the same invoice, never warned), refuses it with a 409 naming it, and
 * the cash paid on it, unless the person confirmed.
 */
export async function checkNewInvoiceRedo(
  deps: Pick<AddInvoicesDeps, 'xero' | 'ledger'>,
  ctx: AddInvoicesContext,
  planned: { request: unknown; totalPence: number; date: string; key: string },
  confirmed: boolean,
): Promise<void> {
  if (confirmed || !(await deps.ledger.restoredLately())) return;
  if (await deps.ledger.findByKey(ctx.organizationId, planned.key)) return;
  const xctx = { userId: ctx.userId, tenantId: ctx.tenantId, organizationId: ctx.organizationId };
  const claimed = await deps.ledger.claimedXeroIds(ctx.organizationId, 'invoice.create', 0);
  const found = await deps.xero.findCreatedInvoice(xctx, planned.request, planned.totalPence, claimed, {
    has: (reference) => hasWriteMark(reference, planned.key),
  });
  const row = found?.cacheRow;
  if (!found || !row || hasWriteMark(row.reference, planned.key)) return;
  if (row.status === 'DELETED' || row.status === 'VOIDED') return;
  const createdAt = (await deps.xero.createdAt(xctx, found.invoiceId))?.toISOString() ?? null;
  refuseRedo([
    {
      kind: 'invoice',
      xeroId: found.invoiceId,
      createdAt,
      message: describeInvoiceRedo(
        {
          invoiceNumber: found.invoiceNumber,
          contactName: row.contactName ?? 'this contact',
          date: planned.date,
          totalPence: planned.totalPence,
          paidPence: row.amountPaidPence ?? 0,
          createdAt,
        },
        Date.now(),
      ),
    },
  ]);
}
