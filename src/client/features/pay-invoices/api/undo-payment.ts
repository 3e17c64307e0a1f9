import { useMutation } from '@tanstack/react-query';
import { paymentUndoResultSchema, type PaymentUndoResult } from '@/shared/pay-invoices';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';

/** POST /api/xero/payments/{paymentId}/undo (beyond the spec): removes a payment just made, in Xero. */
export function undoPayment(orgId: number, paymentId: string): Promise<PaymentUndoResult> {
  return api.post(orgUrl(`/api/xero/payments/${encodeURIComponent(paymentId)}/undo`, orgId), undefined, {
    schema: paymentUndoResultSchema,
  });
}

/** Undo of one payment, as a mutation of the organisation on screen. */
export function useUndoPayment(orgId: number) {
  return useMutation({ mutationFn: (paymentId: string) => undoPayment(orgId, paymentId) });
}
