import { toPence } from '../../../shared/money';
import type { PaymentRequest, PaymentResult } from '../../../shared/pay-invoices';
import { AppError } from '../../lib/app-error';
import {
  busyExtra,
  DIFFERENT_CHANGE_MESSAGE,
  hasWriteMark,
  type WriteOutcome,
  type WriteRow as LedgerWriteRow,
} from '../../ledger/index';
import type { XeroContext, XeroPaymentFacts } from '../../xero/xero-port';
import {
  translateRejection,
  type PayContext,
  type PayInvoicesCore,
  type PayInvoicesDeps,
  type PaymentPayload,
  type StoredPayment,
} from './pay-invoices.context';
import type { WriteRow } from './pay-invoices.repository';

/**
 * Pay Invoices' look-ups and replays (decision 015): a payment whose answer was lost, or that a restored
 * database forgot, is found in Xero (by its write's mark first); a reversal by the payment's status; and a
 * same-key resend is answered with the recorded outcome, never sent again.
 */
export function createPaymentFinders(deps: PayInvoicesDeps, core: PayInvoicesCore) {
  const { repo, ledger, xero } = deps;
  const { readStoredPayment, getCurrentInvoice, toResult } = core;
  /**
   * What the ledger keeps of a payment found in Xero, deleted since or not; the cached balance is marked stale
   * meanwhile.
   */
  async function foundPayment(
    row: LedgerWriteRow,
    match: XeroPaymentFacts,
  ): Promise<WriteOutcome<StoredPayment>> {
    // Xero applied a payment whose answer never reached the cache (lost, or the server stopped): the cached
    // balance is from before it, so the next check or refresh must read Xero, however recently it synced.
    await repo.markStale(row.organizationId, (row.request as PaymentPayload).invoiceId);
    return {
      xeroId: match.paymentId,
      response: {
        paymentId: match.paymentId,
        amountDuePence: match.invoice?.amountDuePence ?? null,
        amountPaidPence: match.invoice?.amountPaidPence ?? null,
        invoiceStatus: match.invoice?.status ?? null,
        updatedUtc: match.updatedUtc,
        ...(match.status === 'DELETED' ? { deleted: true } : {}),
      },
    };
  }

  /**
   * The payment among `payments` that carries `row`'s write mark in its Reference, deleted ones included: the
   * mark is exact, and a payment undone since is still the write (issue 28), not a reason to pay again.
   */
  function markedPayment<P extends { paymentId?: string | null; reference?: string | null }>(
    payments: P[],
    row: LedgerWriteRow,
  ): P | undefined {
    return payments.find((p) => p.paymentId && hasWriteMark(p.reference, row.idempotencyKey));
  }

  /**
   * Looks a payment up in Xero by the mark its write left in the Reference (issue 28 item 4): exact, at any
   * age, so a write the database forgot in a restore is found however long ago it was sent.
   */
  async function findMarkedPaymentInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<StoredPayment> | null> {
    const request = row.request as PaymentPayload;
    const payments = await xero.payments.findForInvoice(ctx, request.invoiceId);
    const marked = markedPayment(payments, row);
    if (!marked) return null;
    // The key's payment is another change than this one (another account, another amount): the key was
    // used for it, so this is refused rather than answered with it. Paid within the 1p tolerance, Xero got
    // what was due, up to a penny less than asked.
    const pence = row.amountPence ?? request.requestedPence;
    const otherAccount =
      marked.accountId !== null && marked.accountId.toLowerCase() !== request.accountId.toLowerCase();
    const otherAmount =
      marked.amountPence !== null && (marked.amountPence > pence || marked.amountPence < pence - 1);
    if (otherAccount || otherAmount) throw new AppError('VALIDATION_ERROR', DIFFERENT_CHANGE_MESSAGE);
    return foundPayment(row, marked);
  }

  /**
   * Looks a payment up in Xero when its answer was lost: the payment carrying the write's mark; else (a
   * payment sent before writes were marked) a payment on the invoice, into the same account, for the same
   * amount and date, changed after the write was sent, and not already another write's.
   */
  async function findPaymentInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<StoredPayment> | null> {
    const request = row.request as PaymentPayload;
    const payments = await xero.payments.findForInvoice(ctx, request.invoiceId);
    const marked = markedPayment(payments, row);
    if (marked) return foundPayment(row, marked);
    const claimed = await ledger.claimedXeroIds(
      row.organizationId,
      'payment',
      row.id,
      row.targetId ?? request.invoiceId,
    );
    // Xero's clock and ours differ a little: allow two minutes either side of the moment it was sent.
    const sentAt = (row.sentAt ?? row.createdAt).getTime() - 2 * 60_000;
    const match = payments
      .filter(
        (p) =>
          p.paymentId &&
          p.status !== 'DELETED' &&
          !claimed.has(p.paymentId.toLowerCase()) &&
          p.accountId?.toLowerCase() === request.accountId.toLowerCase() &&
          p.amountPence === row.amountPence &&
          p.date === request.date &&
          (!p.updatedUtc || Date.parse(p.updatedUtc) >= sentAt),
      )
      .sort((a, b) => Date.parse(a.updatedUtc ?? '') - Date.parse(b.updatedUtc ?? ''))[0];
    return match ? foundPayment(row, match) : null;
  }

  /** Looks a reversal up in Xero: the payment exists and is DELETED. */
  async function findPaymentDeletionInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<unknown> | null> {
    const paymentId = row.targetId ?? (row.request as { paymentId: string }).paymentId;
    const payment = await xero.payments.get(ctx, paymentId);
    if (payment?.status !== 'DELETED') return null;
    const invoiceId = payment.invoice?.invoiceId;
    if (invoiceId) await repo.markStale(row.organizationId, invoiceId);
    return {
      xeroId: paymentId,
      response: {
        paymentId,
        amountDuePence: payment.invoice?.amountDuePence ?? null,
        invoiceStatus: payment.invoice?.status ?? null,
      },
    };
  }

  /**
   * The same Idempotency-Key again (the browser retried, the user double-clicked): answer what the first
   * request got, and never check the balance again first, since the first attempt may be what paid it. When the
   * first attempt lost Xero's answer, Xero is asked whether the payment exists instead of sending it again.
   */
  async function replayPayment(
    ctx: PayContext,
    existing: WriteRow,
    payment: PaymentRequest,
    { readXero = false }: { readXero?: boolean } = {},
  ): Promise<PaymentResult> {
    const first = existing.request as Partial<PaymentPayload>;
    const same =
      existing.kind === 'payment' &&
      first.invoiceId?.toLowerCase() === payment.invoiceId.toLowerCase() &&
      first.accountId?.toLowerCase() === payment.accountId.toLowerCase() &&
      first.isCard === payment.isCard &&
      first.requestedPence === toPence(payment.amount);
    if (!same) throw new AppError('VALIDATION_ERROR', DIFFERENT_CHANGE_MESSAGE);
    // The first attempt lost Xero's answer, or its instance stopped (the ledger's staleness rule): ask Xero
    // whether the payment exists instead of sending it again (the ledger logs it once it is settled).
    const { row, retryAfterMs } = await ledger.settleIfStale(existing, ctx.tenantId);
    const settledNow = row !== existing;
    if (row.state === 'failed') {
      translateRejection(
        new AppError('XERO_REJECTED', row.error ?? 'Xero refused this payment'),
        row.amountPence ?? 0,
        'GBP',
      );
    }
    if (row.state !== 'confirmed') {
      throw new AppError(
        'CONFLICT',
        'This payment is already being processed. Refresh in a moment to see the result.',
        undefined,
        busyExtra(row, retryAfterMs),
      );
    }
    return answerRecorded(ctx, row, settledNow || readXero);
  }

  /**
   * The answer to a payment the ledger holds as confirmed, to a caller who did not just send it (a same-key
   * retry, or a write the ledger found in Xero instead of sending it). The first answer is old news: the
   * invoice may have been paid since. The cache is never written from it; the caller is told the balance the
   * cache holds now, read from Xero when `readXero` (the write was settled by a look-up just now, so the cache
   * has not seen it).
   */
  async function answerRecorded(ctx: PayContext, row: WriteRow, readXero: boolean): Promise<PaymentResult> {
    const stored = readStoredPayment(row);
    const request = row.request as PaymentPayload;
    const invoice = await getCurrentInvoice(ctx, request.invoiceId, readXero, { fresh: false }).then(
      (current) => current.row,
      () => null,
    );
    const due = invoice
      ? invoice.status === 'PAID'
        ? 0
        : invoice.amountDuePence
      : (stored.amountDuePence ?? 0);
    const result = toResult({ ...stored, amountDuePence: due }, row.completedAt);
    // Undone since (its Undo confirmed, or Xero holds it DELETED): the answer says so, and offers no Undo of a
    // payment that is gone.
    if (stored.deleted) {
      const at = stored.updatedUtc ? new Date(stored.updatedUtc) : (row.completedAt ?? row.createdAt);
      return { ...result, undone: true, undoableUntil: at.toISOString() };
    }
    const undo = stored.paymentId
      ? await ledger.findConfirmedByXeroId(ctx.organizationId, 'payment.delete', stored.paymentId)
      : null;
    if (!undo) return result;
    return {
      ...result,
      undone: true,
      undoableUntil: (undo.completedAt ?? undo.createdAt).toISOString(),
    };
  }

  return {
    findPaymentInXero,
    findMarkedPaymentInXero,
    findPaymentDeletionInXero,
    replayPayment,
    answerRecorded,
  };
}
export type PaymentFinders = ReturnType<typeof createPaymentFinders>;
