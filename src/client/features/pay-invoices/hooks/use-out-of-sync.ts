import { useCallback, useEffect, useState } from 'react';
import {
  PAYMENT_ERROR_EVENT,
  paymentErrorEventDetailSchema,
  type PaymentErrorEventDetail,
} from '../utils/screen';

/**
 * Raises the `xero-payment-error` window event (docs/product/features.md §4) that marks the invoice data out
 * of sync.
 */
export function announcePaymentError(detail: PaymentErrorEventDetail): void {
  window.dispatchEvent(new CustomEvent<PaymentErrorEventDetail>(PAYMENT_ERROR_EVENT, { detail }));
}

/**
 * The out-of-sync flag (docs/product/features.md §4): set after a payment error and by the
 * `xero-payment-error` window event carrying needsRefresh and invoiceId; cleared on refresh success, previous
 * or next.
 */
export function useOutOfSync() {
  const [state, setState] = useState<{ invoiceId: string | null } | null>(null);
  useEffect(() => {
    const onEvent = (event: Event) => {
      const parsed = paymentErrorEventDetailSchema.safeParse((event as CustomEvent<unknown>).detail);
      if (parsed.success && parsed.data.needsRefresh) setState({ invoiceId: parsed.data.invoiceId ?? null });
    };
    window.addEventListener(PAYMENT_ERROR_EVENT, onEvent);
    return () => window.removeEventListener(PAYMENT_ERROR_EVENT, onEvent);
  }, []);
  const clear = useCallback(() => setState(null), []);
  return { isOutOfSync: state !== null, outOfSyncInvoiceId: state?.invoiceId ?? null, clear };
}
