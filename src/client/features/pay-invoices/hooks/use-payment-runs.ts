import { useRef, useState } from 'react';
import {
  buildPaymentRequests,
  validatePaymentForm,
  type Invoice,
  type PaymentRequest,
} from '@/shared/pay-invoices';
import { dismissToast, toast } from '@/client/lib/toast';
import type { useChangedElsewhere } from './use-changed-elsewhere';
import type { useOutOfSync } from './use-out-of-sync';
import type { PaymentFormValues } from './use-payment-form';
import { usePaymentProcessing, useUndoPayments, type PaymentRun } from './use-payment-processing';

/**
 * Process Payments and Undo (docs/product/features.md §4): the form is checked with the shared rule, the
 * payments sent, and the run kept for the success banner and the Undo strip. A part failure shows no success
 * banner: the out-of-sync flag stays and the Undo strip offers what was paid.
 */
export function usePaymentRuns({
  orgId,
  today,
  outOfSync,
  changedElsewhere,
  onUndone,
}: {
  orgId: number;
  today: string;
  outOfSync: ReturnType<typeof useOutOfSync>;
  changedElsewhere: ReturnType<typeof useChangedElsewhere>;
  /** After an Undo, the invoice the payment came off. */
  onUndone: (invoiceId: string) => void;
}) {
  const [bannerRun, setBannerRun] = useState<PaymentRun | null>(null);
  const [lastRun, setLastRun] = useState<PaymentRun | null>(null);
  const { process, isProcessing } = usePaymentProcessing(orgId);
  const { undo, isUndoing } = useUndoPayments(orgId);
  /** The success toast of the last run, whose Undo goes once the run is undone another way. */
  const successToast = useRef<string | null>(null);

  const send = async (invoice: Invoice, items: PaymentRequest[], keys?: string[]) => {
    changedElsewhere.expectOwnChange(invoice.invoiceId);
    const run = await process(invoice, items, {
      ...(keys ? { keys } : {}),
      // Retry after Xero or the network did not answer: the same payments under the same keys.
      onRetry: (sameKeys) => void send(invoice, items, sameKeys),
      onSuccessToast: (done, message) => {
        successToast.current = toast({
          ...message,
          variant: 'success',
          action: {
            label: 'Undo',
            altText: `Undo the payment on ${done.invoiceNumber}`,
            onAction: () => void undoRun(done),
          },
        });
      },
    });
    if (run?.partial) {
      setLastRun(run);
    } else if (run) {
      outOfSync.clear();
      setBannerRun(run);
      setLastRun(run);
    }
  };

  const pay = async (invoice: Invoice | null, values: PaymentFormValues) => {
    if (isProcessing) return;
    const form = { invoice, ...values };
    const problem = validatePaymentForm(form);
    if (problem || !invoice) {
      toast({
        title: problem?.title ?? 'No Invoice',
        description: problem?.description ?? '',
        variant: 'destructive',
      });
      return;
    }
    await send(invoice, buildPaymentRequests(invoice, form, today));
  };

  async function undoRun(run: PaymentRun) {
    if (successToast.current) dismissToast(successToast.current);
    successToast.current = null;
    changedElsewhere.expectOwnChange(run.invoiceId);
    const ok = await undo(run);
    if (ok) {
      setBannerRun(null);
      setLastRun(null);
      onUndone(run.invoiceId);
    }
  }

  return {
    pay: (invoice: Invoice | null, values: PaymentFormValues) => void pay(invoice, values),
    undo: (run: PaymentRun) => void undoRun(run),
    isProcessing,
    isUndoing,
    bannerRun,
    closeBanner: () => setBannerRun(null),
    lastRun,
    expireLastRun: () => setLastRun(null),
  };
}
