import { useState } from 'react';
import { buildPaymentRequests, validatePaymentForm, type Invoice } from '@/shared/pay-invoices';
import { toast } from '@/client/lib/toast';
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
    changedElsewhere.expectOwnChange(invoice.invoiceId);
    const run = await process(invoice, buildPaymentRequests(invoice, form, today));
    if (run?.partial) {
      setLastRun(run);
    } else if (run) {
      outOfSync.clear();
      setBannerRun(run);
      setLastRun(run);
    }
  };

  const undoRun = async (run: PaymentRun) => {
    changedElsewhere.expectOwnChange(run.invoiceId);
    const ok = await undo(run);
    if (ok) {
      setBannerRun(null);
      setLastRun(null);
      onUndone(run.invoiceId);
    }
  };

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
