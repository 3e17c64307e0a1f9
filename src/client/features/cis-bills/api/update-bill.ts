import { useMutation } from '@tanstack/react-query';
import { updateBillResponseSchema, type UpdateBillResponse } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';

/**
 * PATCH /api/xero/update-bill/{id} (docs/product/features.md §7 `{amount}`): the draft's new gross amount.
 */
export function updateBill(
  orgId: number,
  id: string,
  amount: number,
  idempotencyKey: string,
): Promise<UpdateBillResponse> {
  return api.patch(
    orgUrl(`/api/xero/update-bill/${encodeURIComponent(id)}`, orgId),
    { amount },
    {
      schema: updateBillResponseSchema,
      headers: idempotencyHeader(idempotencyKey),
    },
  );
}

/** Save a draft's amount, as a mutation of the organisation on screen. */
export function useUpdateBill(orgId: number) {
  return useMutation({
    mutationFn: ({ id, amount, idempotencyKey }: { id: string; amount: number; idempotencyKey: string }) =>
      updateBill(orgId, id, amount, idempotencyKey),
  });
}
