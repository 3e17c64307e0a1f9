import { getUkToday } from '../../../shared/dates';
import { fromPence, toPence } from '../../../shared/money';
import {
  checkPaymentAgainstBalance,
  getPaymentReference,
  PAYMENT_UNDO_WINDOW_MS,
  type PaymentRequest,
  type PaymentResult,
  type PaymentUndoResult,
} from '../../../shared/pay-invoices';
import { AppError } from '../../lib/app-error';
import { checkPaymentRedo } from './redo-check';
import {
  describeBusyDocument,
  invoiceDocument,
  withWriteMark,
  type RetryActor,
  type WriteRow as LedgerWriteRow,
} from '../../ledger/index';
import type { XeroPaymentFacts } from '../../xero/xero-port';
import {
  isOutOfDateRefusal,
  translateRejection,
  type PayContext,
  type PayInvoicesCore,
  type PayInvoicesDeps,
  type PaymentPayload,
  type StoredPayment,
} from './pay-invoices.context';
import type { PaymentFinders } from './pay-invoices.finders';
import type { InvoiceBalance, InvoiceRow } from './pay-invoices.repository';

/**
 * Pay Invoices' writes (docs/architecture.md §4; decision 015): a payment checked against what Xero says is
 * outstanding, recorded in the write ledger and sent once; its Undo; and an administrator's "Send again".
 */

/** An Undo arriving just after the client's window closes (clock drift, a slow network) is still honoured. */
const UNDO_GRACE_MS = 30_000;

/** What a second payment on an invoice hears while an earlier one is not settled yet. */
function busyMessage(invoiceNumber: string): string {
  return `A payment on invoice ${invoiceNumber} is still being confirmed by Xero. Refresh the invoice in a moment and check its balance before paying again.`;
}

/** The invoice's balance Xero reported with a payment, or `fallback` where it reported none. */
function balanceFrom(payment: XeroPaymentFacts | null, fallback: InvoiceBalance): InvoiceBalance {
  return {
    amountDuePence: payment?.invoice?.amountDuePence ?? fallback.amountDuePence,
    amountPaidPence: payment?.invoice?.amountPaidPence ?? fallback.amountPaidPence,
    status: payment?.invoice?.status ?? fallback.status,
  };
}

export function createPaymentWrites(deps: PayInvoicesDeps, core: PayInvoicesCore, finders: PaymentFinders) {
  const { repo, sync, ledger, audit, xero } = deps;
  const { now, readFromXero, getCurrentInvoice, toResult } = core;
  const { replayPayment, answerRecorded } = finders;

  /**
   * Xero refused a payment as out of date (already paid, more than the balance): the cache held an older
   * balance. Reads the invoice again so the cache, and the list the screen reads back, show Xero's; a failed
   * read leaves the invoice marked stale, so the next look asks Xero.
   */
  async function refreshAfterRefusal(ctx: PayContext, invoiceId: string): Promise<void> {
    try {
      await readFromXero(ctx, invoiceId);
    } catch {
      await repo.markStale(ctx.organizationId, invoiceId);
    }
  }

  /**
   * A payment under a key the ledger does not know, for a day after a restore: Xero is asked for the key's
   * mark before anything else (the ledger's recall). Found, the resend is answered as a same-key retry is
   * (the first payment, with the balance as it is now); otherwise null and the payment is judged as new.
   */
  async function recallPayment(
    ctx: PayContext,
    payment: PaymentRequest,
    account: { accountId: string; name: string } | null,
    idempotencyKey: string | undefined,
  ): Promise<PaymentResult | null> {
    if (!idempotencyKey) return null;
    const requestedPence = toPence(payment.amount);
    const payload: PaymentPayload = {
      invoiceId: payment.invoiceId,
      invoiceNumber: payment.invoiceNumber,
      accountId: account?.accountId ?? payment.accountId,
      amount: payment.amount,
      date: getUkToday(now()),
      reference: payment.reference.trim() || getPaymentReference(payment.invoiceNumber, payment.isCard),
      isCard: payment.isCard,
      requestedPence,
    };
    const found = await ledger.recallForgotten({
      organizationId: ctx.organizationId,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      steps: [
        {
          kind: 'payment',
          idempotencyKey,
          targetId: payment.invoiceId,
          amountPence: requestedPence,
          request: payload,
          audit: {
            action: 'payment.create',
            target: payment.invoiceId,
            username: ctx.username,
            ip: ctx.ip ?? null,
            detail: {
              invoiceNumber: payment.invoiceNumber,
              amountPence: requestedPence,
              accountId: payload.accountId,
              ...(account ? { accountName: account.name } : {}),
              isCard: payment.isCard,
            },
          },
        },
      ],
    });
    const row = found?.[0];
    // Found just now (or recorded meanwhile by the same request sent twice): answered as a same-key retry,
    // with the balance read from Xero, since the cache has not seen the payment.
    return row ? replayPayment(ctx, row, payment, { readXero: true }) : null;
  }

  const writes = {
    /**
     * "Send again" from the administrators' review list (issue 20): the held payment goes through pay() as a
     * new write, checked against what Xero says is outstanding now, in the name of the administrator. Xero is
     * reached with the grant that made the first attempt.
     */
    async retryHeldPayment(
      row: LedgerWriteRow,
      by: RetryActor,
      idempotencyKey: string,
    ): Promise<{ writeId: number; xeroId: string | null }> {
      if (row.userId === null) {
        throw new AppError(
          'CONFLICT',
          'The user who made this payment no longer exists: cancel it and pay it again on Pay Invoices.',
        );
      }
      const held = row.request as PaymentPayload;
      const result = await writes.pay(
        {
          organizationId: row.organizationId,
          tenantId: by.tenantId,
          userId: row.userId,
          username: by.username,
          ip: by.ip ?? null,
        },
        {
          invoiceId: held.invoiceId,
          invoiceNumber: held.invoiceNumber,
          accountId: held.accountId,
          amount: fromPence(held.requestedPence),
          reference: held.reference,
          isCard: held.isCard,
          date: held.date,
        },
        idempotencyKey,
      );
      const written = await ledger.findByKey(row.organizationId, idempotencyKey);
      return { writeId: written?.id ?? 0, xeroId: result.paymentId };
    },

    /**
     * POST /api/xero/payments (docs/architecture.md §4): checks the amount against what Xero says is
     * outstanding now, records the payment in the ledger before sending it with the Idempotency-Key, updates
     * the cached invoice from Xero's answer, and audits it.
     */
    async pay(
      ctx: PayContext,
      payment: PaymentRequest,
      idempotencyKey: string | undefined,
      confirmRedo = false,
    ): Promise<PaymentResult> {
      const requestedPence = toPence(payment.amount);
      if (idempotencyKey) {
        const existing = await ledger.findByKey(ctx.organizationId, idempotencyKey);
        if (existing) return replayPayment(ctx, existing, payment);
      }
      let account = await repo.findPaymentAccount(ctx.organizationId, payment.accountId);
      // A key a restore may have forgotten is looked up in Xero (by its mark) before the payment is judged
      // against the cached balance (src/server/ledger/restore-recall.ts): a resend of a payment that paid the invoice in full
      // is answered with that payment, not refused as more than is due.
      const recalled = await recallPayment(ctx, payment, account, idempotencyKey);
      if (recalled) return recalled;
      // Issue 44: after a restore, a payment like one Xero already has is named before it is sent.
      await checkPaymentRedo(deps, ctx, payment, idempotencyKey, confirmRedo);
      if (!account) {
        await sync.syncAccounts(ctx);
        account = await repo.findPaymentAccount(ctx.organizationId, payment.accountId);
      }
      if (!account) {
        throw new AppError(
          'VALIDATION_ERROR',
          'The selected account cannot take payments in Xero. Refresh the accounts and choose another.',
        );
      }
      // An earlier payment on this invoice whose outcome is not known yet: settle it by look-up first; while
      // one is still in flight, refuse naming who is paying (its amount may or may not be in the balance
      // Xero shows). Any other open write on the invoice (an approval, Add Invoices' cash, an Undo) is refused
      // the same way when this payment is recorded: one writer per invoice (issue 28).
      const target =
        (await repo.findInvoice(ctx.organizationId, payment.invoiceId))?.invoiceId ?? payment.invoiceId;
      const earlier = await ledger.settleOpenOnTarget({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        kind: 'payment',
        targetId: target,
      });
      const inFlight = earlier.open[0];
      if (inFlight)
        throw new AppError(
          'CONFLICT',
          describeBusyDocument({
            ...inFlight,
            documentLabel: inFlight.documentLabel ?? payment.invoiceNumber,
          }),
          undefined,
          { writeId: inFlight.id, writeState: 'busy' },
        );
      // A payment settled just now is not in the cached balance: read the invoice from Xero. Otherwise the
      // cached balance stands when Xero described it seconds ago or its webhooks keep it current (issue 32).
      const trust = { fresh: earlier.settled.length === 0, live: true };
      let current = await getCurrentInvoice(ctx, payment.invoiceId, true, trust);
      const refusalOf = (row: InvoiceRow) =>
        row.status !== 'AUTHORISED' && row.status !== 'PAID'
          ? `Payment validation failed: invoice ${row.invoiceNumber ?? ''} is ${row.status} in Xero`
          : checkPaymentAgainstBalance(
              requestedPence,
              row.status === 'PAID' ? 0 : row.amountDuePence,
              row.currencyCode || 'GBP',
            );
      // A refusal is never based on a balance Xero was not asked for just now: the cache may be a moment behind.
      if (refusalOf(current.row) && !current.fromXero)
        current = await getCurrentInvoice(ctx, payment.invoiceId, true, { fresh: false });
      const invoice = current.row;
      const currency = invoice.currencyCode || 'GBP';
      if (invoice.status !== 'AUTHORISED' && invoice.status !== 'PAID') {
        throw new AppError('UNPROCESSABLE', refusalOf(invoice) ?? 'Payment validation failed');
      }
      const refusal = refusalOf(invoice);
      if (refusal) {
        await audit.recordFor(ctx, {
          action: 'payment.create',
          target: invoice.invoiceId,
          result: 'failure',
          detail: {
            invoiceNumber: invoice.invoiceNumber,
            amountPence: requestedPence,
            accountId: account.accountId,
            reason: refusal,
          },
        });
        throw new AppError('UNPROCESSABLE', refusal);
      }
      // Within the 1p tolerance (docs/product/features.md §9) the payment settles the invoice: Xero is sent
      // exactly what is due, since it refuses any amount above that.
      const amountPence = Math.min(requestedPence, invoice.amountDuePence);
      const payload: PaymentPayload = {
        invoiceId: invoice.invoiceId,
        invoiceNumber: invoice.invoiceNumber ?? payment.invoiceNumber,
        accountId: account.accountId,
        amount: fromPence(amountPence),
        // Xero dates a payment by the organisation's calendar: today in the UK, whatever the browser sent.
        date: getUkToday(now()),
        reference:
          payment.reference.trim() ||
          getPaymentReference(invoice.invoiceNumber ?? payment.invoiceNumber, payment.isCard),
        isCard: payment.isCard,
        requestedPence,
      };
      const before: InvoiceBalance = {
        amountDuePence: invoice.amountDuePence - amountPence,
        amountPaidPence: invoice.amountPaidPence + amountPence,
        status: invoice.amountDuePence - amountPence <= 0 ? 'PAID' : 'AUTHORISED',
      };
      let outcome: Awaited<ReturnType<typeof ledger.execute<StoredPayment>>>;
      let sentAt = new Date();
      try {
        // Until Xero's answer is in, the cached balance is not known to be current: if the answer is lost (or
        // the server stops), the next check or refresh reads the invoice from Xero.
        sentAt = new Date();
        await repo.markStale(ctx.organizationId, invoice.invoiceId);
        outcome = await ledger.execute<StoredPayment>({
          organizationId: ctx.organizationId,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          kind: 'payment',
          targetId: invoice.invoiceId,
          amountPence,
          idempotencyKey,
          request: payload,
          exclusiveTarget: { busyMessage: busyMessage(invoice.invoiceNumber ?? payment.invoiceNumber) },
          // recallPayment asked Xero for the key's mark before the balance check: not asked twice.
          lookedUp: idempotencyKey !== undefined,
          document: {
            key: invoiceDocument(invoice.invoiceId),
            label: invoice.invoiceNumber ?? payment.invoiceNumber,
          },
          audit: {
            action: 'payment.create',
            target: invoice.invoiceId,
            username: ctx.username,
            ip: ctx.ip ?? null,
            detail: {
              invoiceNumber: invoice.invoiceNumber,
              amountPence,
              accountId: account.accountId,
              accountName: account.name,
              isCard: payment.isCard,
            },
          },
          send: async (key) => {
            const answer = await xero.payments.create(
              ctx,
              {
                invoiceId: payload.invoiceId,
                accountId: payload.accountId,
                amountPence,
                date: payload.date,
                // The write's mark, so Xero keeps a trace of it a restored database can find.
                reference: withWriteMark(payload.reference, key),
              },
              key,
            );
            const balance = balanceFrom(answer, before);
            return {
              xeroId: answer.paymentId,
              response: {
                paymentId: answer.paymentId,
                amountDuePence: balance.amountDuePence,
                amountPaidPence: balance.amountPaidPence,
                invoiceStatus: balance.status,
                updatedUtc: answer.updatedUtc,
              },
            };
          },
        });
      } catch (error) {
        // Refused as out of date: the cache, and the screen reading it back, take Xero's balance.
        if (isOutOfDateRefusal(error)) await refreshAfterRefusal(ctx, invoice.invoiceId);
        translateRejection(error, amountPence, currency);
      }
      // Not sent: the ledger found the payment in Xero already (its mark, after a restore; or another instance
      // settled it). That answer is a look-up's, deleted since perhaps: it never writes the cache.
      if (outcome.replayed) {
        const found = await ledger.findById(outcome.writeId);
        if (found) return answerRecorded(ctx, found, true);
      }
      const stored = outcome.response;
      const balance: InvoiceBalance = {
        amountDuePence: stored.amountDuePence ?? before.amountDuePence,
        amountPaidPence: stored.amountPaidPence ?? before.amountPaidPence,
        status: stored.invoiceStatus ?? before.status,
      };
      // Newest wins: an answer older than what the cache holds (a concurrent payment answered later) leaves it.
      await repo.applyPayment(
        ctx.organizationId,
        invoice.invoiceId,
        balance,
        { paymentId: stored.paymentId, date: payload.date, amountPence, reference: payload.reference },
        stored.updatedUtc ? new Date(stored.updatedUtc) : null,
        sentAt,
      );
      const write = await ledger.findById(outcome.writeId);
      return toResult({ ...stored, amountDuePence: balance.amountDuePence }, write?.completedAt ?? null);
    },

    /**
     * POST /api/xero/payments/{paymentId}/undo (beyond the spec): deletes in Xero a payment this user made here
     * in the last couple of minutes. The ledger key is derived from the payment, so a repeated Undo replays the
     * first answer instead of asking Xero to delete it twice.
     */
    async undoPayment(ctx: PayContext, paymentId: string): Promise<PaymentUndoResult> {
      const write = await ledger.findConfirmedByXeroId(ctx.organizationId, 'payment', paymentId);
      if (!write) throw new AppError('NOT_FOUND', 'Payment not found');
      if (write.userId !== ctx.userId)
        throw new AppError('FORBIDDEN', 'Only the person who made this payment can undo it here');
      const madeAt = (write.completedAt ?? write.createdAt).getTime();
      if (now().getTime() - madeAt > PAYMENT_UNDO_WINDOW_MS + UNDO_GRACE_MS) {
        throw new AppError(
          'CONFLICT',
          'This payment can no longer be undone here. Remove it in Xero if it is wrong.',
        );
      }
      const request = write.request as PaymentPayload;
      const xeroPaymentId = write.xeroId ?? paymentId;
      const fallback: InvoiceBalance = { amountDuePence: 0, amountPaidPence: 0, status: 'AUTHORISED' };
      const cached = await repo.findInvoice(ctx.organizationId, request.invoiceId);
      if (cached) {
        fallback.amountDuePence = cached.amountDuePence + (write.amountPence ?? 0);
        fallback.amountPaidPence = Math.max(0, cached.amountPaidPence - (write.amountPence ?? 0));
      }
      const sentAt = new Date();
      const outcome = await ledger.execute<InvoiceBalance & { updatedUtc?: string | null }>({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'payment.delete',
        targetId: xeroPaymentId,
        amountPence: write.amountPence,
        idempotencyKey: `payment-undo:${xeroPaymentId.toLowerCase()}`,
        request: { paymentId: xeroPaymentId, invoiceId: request.invoiceId },
        document: { key: invoiceDocument(request.invoiceId), label: request.invoiceNumber },
        audit: {
          action: 'payment.undo',
          target: request.invoiceId,
          username: ctx.username,
          ip: ctx.ip ?? null,
          detail: {
            paymentId: xeroPaymentId,
            invoiceNumber: request.invoiceNumber,
            amountPence: write.amountPence,
          },
        },
        send: async (key) => {
          const answer = await xero.payments.delete(ctx, xeroPaymentId, key);
          return {
            xeroId: xeroPaymentId,
            response: { ...balanceFrom(answer, fallback), updatedUtc: answer?.updatedUtc ?? null },
          };
        },
      });
      const { updatedUtc, ...balance } = outcome.response;
      // A replayed Undo is old news: the cache keeps what it holds.
      if (!outcome.replayed) {
        await repo.removePayment(
          ctx.organizationId,
          request.invoiceId,
          balance,
          xeroPaymentId,
          updatedUtc ? new Date(updatedUtc) : null,
          sentAt,
        );
      }
      return {
        message: 'Payment removed from Xero',
        invoiceId: request.invoiceId,
        amountDue: fromPence(balance.amountDuePence),
      };
    },
  };
  return writes;
}
