import type { PaymentRequest } from '../../../shared/pay-invoices';
import { toPence } from '../../../shared/money';
import { describePaymentRedo, type RedoSuspect } from '../../../shared/redo-warning';
import { refuseRedo } from '../../lib/redo-warning';
import { hasWriteMark } from '../../ledger/index';
import type { PayContext, PayInvoicesDeps } from './pay-invoices.context';

/**
 * The redo warning for a payment (issue 44 item 4): for a day after a database restore, a payment under a key
 * Ledgerlink does not know is compared with the invoice's payments in Xero (one read) before it is judged or
 * sent. A payment there of the same amount, not deleted, that Ledgerlink's restored records do not hold and that
 * is not this very request's own (its write's mark: a resend is answered as the same payment, never warned),
 * refuses it with a 409 naming it unless the person confirmed. Xero never edits a payment (it deletes and makes
 * another), so its UpdatedDateUTC is when it was made.
 */
export async function checkPaymentRedo(
  deps: Pick<PayInvoicesDeps, 'xero' | 'ledger'>,
  ctx: PayContext,
  payment: PaymentRequest,
  key: string | undefined,
  confirmed: boolean,
): Promise<void> {
  if (confirmed || !(await deps.ledger.restoredLately())) return;
  const pence = toPence(payment.amount);
  const suspects: RedoSuspect[] = [];
  const now = Date.now();
  for (const p of await deps.xero.payments.findForInvoice(ctx, payment.invoiceId)) {
    if (
      !p.paymentId ||
      p.status === 'DELETED' ||
      p.amountPence !== pence ||
      (key !== undefined && hasWriteMark(p.reference, key)) ||
      (await deps.ledger.findConfirmedByXeroId(ctx.organizationId, 'payment', p.paymentId))
    )
      continue;
    const createdAt = p.updatedUtc ? new Date(p.updatedUtc).toISOString() : null;
    suspects.push({
      kind: 'payment',
      xeroId: p.paymentId,
      createdAt,
      message: describePaymentRedo(
        { invoiceNumber: payment.invoiceNumber, amountPence: pence, createdAt },
        now,
      ),
    });
  }
  if (suspects.length > 0) refuseRedo(suspects);
}
