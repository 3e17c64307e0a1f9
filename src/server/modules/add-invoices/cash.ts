import { formatMoney, fromPence } from '../../../shared/money';
import { chunk, createBatcher } from '../../xero/batcher';
import { describeWriteFailure, withWriteMark, type WriteFailure, type WriteRow } from '../../ledger/index';
import type { ElementResult, NewPayment, XeroPaymentFacts } from '../../xero/xero-port';
import { executeInBatch } from './batch-write';
import {
  cashPaymentAudit,
  messageOf,
  pendingCashAudit,
  XERO_BATCH_SIZE,
  type AddInvoicesContext,
  type AddInvoicesDeps,
} from './context';

export interface PaymentPlan {
  invoiceId: string;
  invoiceNumber: string;
  date: string;
  cashPence: number;
  /** The part of the cash that came from the pending amount, taken off it once paid. */
  pendingPence: number;
  key: string;
  step?: WriteRow;
}

/**
 * A cash payment as the ledger records it: the spec's payment request item (docs/product/features.md §3), the
 * shape Pay Invoices records too, so the one 'payment' finder looks either feature's payments up.
 * `fromPendingPence` is the part of it that was pending cash, taken off the pending amount when Xero confirms
 * the payment. `invoiceId` is null for the cash of an invoice not created yet (bound when it is).
 */
export interface CashPaymentRequest {
  invoiceId: string | null;
  invoiceNumber: string;
  accountId: string;
  amount: number;
  date: string;
  reference: string;
  isCard: false;
  requestedPence: number;
  fromPendingPence: number;
}

/** Pending cash as the ledger records it (kind 'cash.pending'); `invoiceId` is bound once a new invoice exists. */
export interface PendingCashRequest {
  invoiceId: string | null;
  amountPence: number;
  limitPence: number;
}

export function cashPaymentRequest(
  invoiceId: string | null,
  invoiceNumber: string,
  accountId: string,
  cashPence: number,
  date: string,
  fromPendingPence: number,
): CashPaymentRequest {
  return {
    invoiceId,
    invoiceNumber,
    accountId,
    amount: fromPence(cashPence),
    date,
    reference: `Cash payment for ${invoiceNumber}`,
    isCard: false,
    requestedPence: cashPence,
    fromPendingPence,
  };
}

/** The 409 for a change based on pending cash that has changed since the screen loaded (issue 28). */
export function describePendingCashChanged(
  invoiceNumber: string,
  seenPence: number,
  now: { amountPence: number; username: string | null } | null,
): string {
  const nowPence = now?.amountPence ?? 0;
  const by = now?.username ? ` (saved by ${now.username})` : '';
  return `The pending cash on ${invoiceNumber} changed since this list was loaded: ${formatMoney(nowPence)} is pending now${by}, not ${formatMoney(seenPence)}. Nothing was changed; check the refreshed list and try again.`;
}

/**
 * One message for an invoice Xero approved (or created approved) whose cash payment failed (issue 17 item 3):
 * what happened to the cash, why, and where to pay it. Never "did not confirm" when Xero refused it.
 */
export function describeCashFailure(
  what: 'approved' | 'created',
  invoiceNumber: string,
  cashPence: number,
  failure: WriteFailure,
): string {
  const cash = formatMoney(cashPence);
  return failure.outcome === 'unconfirmed'
    ? `Invoice ${invoiceNumber} was ${what}, but Xero did not confirm its cash payment of ${cash} (${failure.reason}). Ledgerlink is checking with Xero: look at the invoice on Pay Invoices in a minute, and pay the cash there only if it is still due.`
    : `Invoice ${invoiceNumber} was ${what}, but its cash payment of ${cash} was not recorded (${failure.reason}). Pay it on Pay Invoices.`;
}

/**
 * Cash on drafts (docs/architecture.md §4 Add Invoices): payments into the default cash account, batched, and
 * cash kept pending on a draft not approved yet, each through the write ledger.
 */
export function createCashWrites({ repo, ledger, xero }: Pick<AddInvoicesDeps, 'repo' | 'ledger' | 'xero'>) {
  /** Sends up to 50 cash payments in one Xero call, one ledger row per payment. */
  async function payChunk(ctx: AddInvoicesContext, plans: PaymentPlan[], cashAccountId: string) {
    const batch = createBatcher<NewPayment, ElementResult<XeroPaymentFacts | null>>(
      plans.length,
      (payments, batchKey) => xero.createPayments(ctx, payments, batchKey),
    );
    return Promise.allSettled(
      plans.map(async (plan) => {
        const payment: NewPayment = {
          invoiceId: plan.invoiceId,
          accountId: cashAccountId,
          amountPence: plan.cashPence,
          date: plan.date,
          // The write's mark in the Reference: found by it after a restore (issue 28), as Pay Invoices' are.
          reference: withWriteMark(`Cash payment for ${plan.invoiceNumber}`, plan.key),
        };
        const request = cashPaymentRequest(
          plan.invoiceId,
          plan.invoiceNumber,
          cashAccountId,
          plan.cashPence,
          plan.date,
          plan.pendingPence,
        );
        return executeInBatch(ledger, ctx, batch, payment, {
          kind: 'payment',
          targetId: plan.invoiceId,
          amountPence: plan.cashPence,
          idempotencyKey: plan.key,
          request,
          audit: cashPaymentAudit(ctx, plan.invoiceId, plan.invoiceNumber, plan, cashAccountId),
          step: plan.step,
          xeroIdOf: (answer) => answer?.paymentId ?? null,
        });
      }),
    );
  }

  /**
   * Pays each plan into the default cash account (batched), then records what Xero accepted in the cache
   * and takes the paid part off the pending cash. Returns the failures by invoice id.
   */
  async function payCash(
    ctx: AddInvoicesContext,
    plans: PaymentPlan[],
    cashAccountId: string,
  ): Promise<Map<string, WriteFailure>> {
    const failures = new Map<string, WriteFailure>();
    for (const part of chunk(plans, XERO_BATCH_SIZE)) {
      const sentAt = new Date();
      const results = await payChunk(ctx, part, cashAccountId);
      for (const [i, result] of results.entries()) {
        const plan = part[i];
        if (!plan) continue;
        if (result.status === 'rejected') {
          failures.set(plan.invoiceId, describeWriteFailure(result.reason));
          continue;
        }
        // A replayed answer is old news: the cache and the pending cash already took it the first time.
        if (result.value.replayed) continue;
        const payment = result.value.response;
        await repo.applyPayment(
          ctx.organizationId,
          plan.invoiceId,
          plan.cashPence,
          {
            status: payment?.invoice?.status ?? null,
            amountDuePence: payment?.invoice?.amountDuePence ?? null,
            amountPaidPence: payment?.invoice?.amountPaidPence ?? null,
          },
          payment?.updatedUtc ? new Date(payment.updatedUtc) : null,
          sentAt,
        );
        // The pending part of the cash was taken off the draft's pending amount when Xero confirmed it.
      }
    }
    return failures;
  }

  /**
   * Keeps cash against a draft in Ledgerlink (docs/architecture.md §4). It goes through the write ledger like
   * a Xero write (kind 'cash.pending', nothing is sent to Xero) so a retried action adds it once, not twice,
   * applied in the transaction that confirms it (issue 44).
   */
  async function keepPendingCash(
    ctx: AddInvoicesContext,
    invoice: { invoiceId: string; invoiceNumber: string; limitPence: number; pendingBeforePence: number },
    pence: number,
    key: string,
    step?: WriteRow,
  ): Promise<string | null> {
    const request = { invoiceId: invoice.invoiceId, amountPence: pence, limitPence: invoice.limitPence };
    try {
      await ledger.execute({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'cash.pending',
        targetId: invoice.invoiceId,
        amountPence: pence,
        idempotencyKey: key,
        request,
        step,
        audit: pendingCashAudit(
          ctx,
          invoice.invoiceId,
          invoice.invoiceNumber,
          pence,
          invoice.pendingBeforePence,
        ),
        // Never called: the ledger applies pending cash itself, in the transaction that confirms it
        // (a local write, issue 44; ledger-hooks.ts `pendingCash`, which refuses cash over the total).
        send: () => Promise.resolve({ xeroId: null, response: request }),
      });
      return null;
    } catch (e) {
      return messageOf(e);
    }
  }

  return { payCash, keepPendingCash };
}
export type CashWrites = ReturnType<typeof createCashWrites>;
