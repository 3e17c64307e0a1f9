import { formatCount } from '@/shared/counts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { formatPounds, roundPoundsToPence } from '@/shared/money';
import {
  PAYMENT_PAUSE_MS,
  shouldSkipRemainingPayments,
  type Invoice,
  type PaymentRequest,
  type UserMessage,
} from '@/shared/pay-invoices';
import { getMessage } from '@/client/lib/api-client';
import { isTransientFailure } from '@/client/lib/api-errors';
import { RedoDeclined, sendWithRedoWarning } from '@/client/lib/redo-warning';
import { toast } from '@/client/lib/toast';
import { isXeroAccessLost, XERO_ACCESS_LOST_MESSAGE } from '@/client/lib/xero-access';
import { sleep } from '@/client/lib/utils';
import { useCreatePayment } from '../api/create-payment';
import { payInvoicesKeys } from '../api/query-keys';
import { refreshInvoice } from '../api/refresh-invoice';
import { useUndoPayment } from '../api/undo-payment';
import { updateInvoiceInList } from '../utils/invoice-cache';
import {
  describePaymentError,
  describePaymentOutcome,
  describePaymentSuccess,
  describeUndoneReplay,
  UNDO_MESSAGES,
} from '../utils/messages';
import { announcePaymentError } from './use-out-of-sync';
import { newIdempotencyKey } from '@/client/lib/idempotency';

export interface ProcessOptions {
  /** The keys of an earlier attempt of the same payments (the toast's Retry); new keys otherwise. */
  keys?: string[];
  /** Offered as the failure toast's Retry when Xero or the network did not answer. */
  onRetry?: (keys: string[]) => void;
  /** Shows the success toast of a run (the caller adds its Undo). */
  onSuccessToast?: (run: PaymentRun, message: UserMessage) => void;
}

/** One Process Payments run that sent at least one payment: what the banner and the Undo need. */
export interface PaymentRun {
  invoiceId: string;
  invoiceNumber: string;
  currency: string;
  payments: { paymentId: string; amount: number; isCard: boolean }[];
  outcome: ReturnType<typeof describePaymentOutcome>;
  /** Epoch ms until which the server accepts an Undo. */
  undoableUntil: number;
  /** A later payment of the run failed after these were recorded. */
  partial?: boolean;
}

function describePart(p: { amount: number; isCard: boolean }, currency: string): string {
  return `${p.isCard ? 'card' : 'cash'} ${formatPounds(p.amount, currency)}`;
}

/** "Card £200.00 recorded; cash £112.88 not recorded — try the cash again." */
export function describePartialRun(
  made: readonly { amount: number; isCard: boolean }[],
  failed: readonly { amount: number; isCard: boolean }[],
  currency: string,
  accessLost: boolean,
): string {
  const recorded = made.map((p) => describePart(p, currency)).join(' and ');
  const missing = failed.map((p) => describePart(p, currency)).join(' and ');
  const kind = failed.length === 1 ? (failed[0]?.isCard ? 'the card' : 'the cash') : 'them';
  const next = accessLost ? `reconnect to Xero, then try ${kind} again` : `try ${kind} again`;
  const text = `${recorded} recorded; ${missing} not recorded — ${next}.`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Sequential processing (docs/product/features.md §4): payments go one after another; after each non-last
 * payment the invoice is refreshed and 0.5 s is waited; when the refreshed amount due is 0.01 or less the
 * remaining payments are skipped and the invoice is fully paid. Ends with the success toast, or the
 * docs/product/features.md §8 error toast (and the out-of-sync flag through the `xero-payment-error` event).
 */
export function usePaymentProcessing(orgId: number) {
  const queryClient = useQueryClient();
  const [isProcessing, setProcessing] = useState(false);
  const running = useRef(false);
  const { mutateAsync: sendPayment } = useCreatePayment(orgId);

  const process = useCallback(
    async (
      invoice: Invoice,
      items: PaymentRequest[],
      options: ProcessOptions = {},
    ): Promise<PaymentRun | null> => {
      if (running.current || items.length === 0) return null;
      running.current = true;
      setProcessing(true);
      // One key per payment item for this user action; every retry of that request carries the same key, the
      // toast's Retry included, so a payment Xero did record is never paid twice.
      const keys = options.keys ?? items.map(() => newIdempotencyKey());
      const made: PaymentRun['payments'] = [];
      /** Items a same-key resend found recorded and undone since (issue 28): nothing was paid now. */
      const undone: { amount: number; isCard: boolean; undoneAt: string }[] = [];
      let remainingPence = roundPoundsToPence(invoice.amountDue);
      let undoableUntil = Number.POSITIVE_INFINITY;
      try {
        for (let i = 0; i < items.length; i += 1) {
          const item = items[i] as PaymentRequest;
          // After a restore, a payment like one Xero already has is shown to the person first (issue 44).
          const result = await sendWithRedoWarning(
            (confirmRedo) => sendPayment({ payment: item, idempotencyKey: keys[i] as string, confirmRedo }),
            { title: 'Xero may already have this payment', goOn: 'Pay it again' },
          );
          remainingPence = result.isInvoiceFullyPaid ? 0 : roundPoundsToPence(result.amountDue);
          if (result.undone) {
            // Not "Paid" with an Undo: that payment is gone from Xero, and the balance is as it is now.
            undone.push({ amount: item.amount, isCard: item.isCard, undoneAt: result.undoableUntil });
            continue;
          }
          made.push({ paymentId: result.paymentId, amount: item.amount, isCard: item.isCard });
          undoableUntil = Math.min(undoableUntil, Date.parse(result.undoableUntil) || Date.now());
          if (i < items.length - 1) {
            const refreshed = await refreshInvoice(orgId, invoice.invoiceId);
            updateInvoiceInList(queryClient, orgId, invoice.invoiceId, refreshed.invoice);
            await sleep(PAYMENT_PAUSE_MS);
            if (!refreshed.invoice || shouldSkipRemainingPayments(refreshed.invoice.amountDue)) {
              remainingPence = 0;
              break;
            }
            remainingPence = roundPoundsToPence(refreshed.invoice.amountDue);
          }
        }
        if (undone.length > 0) {
          toast({
            ...describeUndoneReplay(invoice.invoiceNumber, undone, remainingPence, invoice.currency),
            variant: 'warning',
            duration: 10_000,
          });
          if (made.length === 0) return null;
        }
        const run: PaymentRun = {
          invoiceId: invoice.invoiceId,
          invoiceNumber: invoice.invoiceNumber,
          currency: invoice.currency,
          payments: made,
          outcome: describePaymentOutcome(remainingPence, invoice.currency),
          undoableUntil,
        };
        if (undone.length === 0) {
          const success = describePaymentSuccess(made.length, invoice.invoiceNumber);
          options.onSuccessToast?.(run, success);
        }
        return run;
      } catch (error) {
        const lost = isXeroAccessLost(error);
        if (made.length > 0) {
          // Part of the run reached Xero: say exactly what was recorded and what was not, keep the banner and
          // the Undo for what was paid, and mark the invoice out of sync (issue 17 item 1).
          const failed = items.slice(made.length);
          toast({
            title: 'Payment Partly Recorded',
            description: describePartialRun(made, failed, invoice.currency, lost),
            variant: 'destructive',
            duration: 10_000,
          });
          announcePaymentError({ needsRefresh: true, invoiceId: invoice.invoiceId });
          return {
            invoiceId: invoice.invoiceId,
            invoiceNumber: invoice.invoiceNumber,
            currency: invoice.currency,
            payments: made,
            outcome: describePaymentOutcome(remainingPence, invoice.currency),
            undoableUntil,
            partial: true,
          };
        }
        if (lost) {
          toast({ ...XERO_ACCESS_LOST_MESSAGE, variant: 'destructive' });
          return null;
        }
        if (error instanceof RedoDeclined) {
          toast({ title: 'Payment not sent', description: error.message, variant: 'info' });
          return null;
        }
        const message = getMessage(error, '');
        const described = describePaymentError(message);
        const onRetry = options.onRetry;
        toast({
          title: described.title,
          description: described.description,
          variant: 'destructive',
          // Xero or the network did not answer: the same payments again, under the same keys.
          ...(onRetry && isTransientFailure(error) && !described.isOutOfSync
            ? {
                action: {
                  label: 'Retry',
                  altText: `Retry the payment on ${invoice.invoiceNumber}`,
                  onAction: () => onRetry(keys),
                },
              }
            : {}),
        });
        if (described.isOutOfSync) announcePaymentError({ needsRefresh: true, invoiceId: invoice.invoiceId });
        return null;
      } finally {
        running.current = false;
        setProcessing(false);
        // The server updated its copy from Xero's answers: reading the list back costs no Xero call.
        void queryClient.invalidateQueries({ queryKey: payInvoicesKeys.invoices(orgId) });
      }
    },
    [orgId, queryClient, sendPayment],
  );

  return { process, isProcessing };
}

/** Undo (beyond the spec): removes the payments of one run from Xero, last first. */
export function useUndoPayments(orgId: number) {
  const queryClient = useQueryClient();
  const [isUndoing, setUndoing] = useState(false);
  const { mutateAsync: sendUndo } = useUndoPayment(orgId);
  const undo = useCallback(
    async (run: PaymentRun): Promise<boolean> => {
      setUndoing(true);
      try {
        for (const payment of [...run.payments].reverse()) await sendUndo(payment.paymentId);
        toast({
          ...UNDO_MESSAGES.success,
          description:
            run.payments.length === 1
              ? `The payment for invoice ${run.invoiceNumber} was removed from Xero.`
              : `The ${formatCount(run.payments.length, 'payment')} for invoice ${run.invoiceNumber} were removed from Xero.`,
          variant: 'success',
        });
        return true;
      } catch (error) {
        toast({
          title: UNDO_MESSAGES.failure.title,
          description: getMessage(error, UNDO_MESSAGES.failure.description),
          variant: 'destructive',
        });
        return false;
      } finally {
        setUndoing(false);
        await queryClient.invalidateQueries({ queryKey: payInvoicesKeys.invoices(orgId) });
      }
    },
    [orgId, queryClient, sendUndo],
  );
  return { undo, isUndoing };
}
