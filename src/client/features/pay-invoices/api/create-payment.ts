import { useMutation } from '@tanstack/react-query';
import { paymentResultSchema, type PaymentRequest, type PaymentResult } from '@/shared/pay-invoices';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';
import { redoConfirmHeader } from '@/client/lib/redo-warning';

/**
 * POST /api/xero/payments (docs/product/features.md §7): one payment item. The Idempotency-Key is made once
 * per item when the user presses Process Payments and travels with every retry of that request, so a retry
 * never pays twice.
 */
export function createPayment(
  orgId: number,
  payment: PaymentRequest,
  idempotencyKey: string,
  confirmRedo = false,
): Promise<PaymentResult> {
  return api.post(orgUrl('/api/xero/payments', orgId), payment, {
    schema: paymentResultSchema,
    headers: { ...idempotencyHeader(idempotencyKey), ...redoConfirmHeader(confirmRedo) },
  });
}

/** One payment item as a mutation of the organisation on screen (the caller makes the key, once per item). */
export function useCreatePayment(orgId: number) {
  return useMutation({
    mutationFn: ({
      payment,
      idempotencyKey,
      confirmRedo,
    }: {
      payment: PaymentRequest;
      idempotencyKey: string;
      /** The person chose to go on after the redo warning (issue 44). */
      confirmRedo?: boolean;
    }) => createPayment(orgId, payment, idempotencyKey, confirmRedo),
  });
}
