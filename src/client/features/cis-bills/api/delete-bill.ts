import { useMutation } from '@tanstack/react-query';
import { deleteBillResponseSchema, type DeleteBillResponse } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';

/**
 * POST /api/xero/delete-bill/{id} (docs/product/features.md §7): the bill's status becomes DELETED; 403 when
 * the user may not.
 */
export function deleteBill(orgId: number, id: string, idempotencyKey: string): Promise<DeleteBillResponse> {
  return api.post(orgUrl(`/api/xero/delete-bill/${encodeURIComponent(id)}`, orgId), undefined, {
    schema: deleteBillResponseSchema,
    headers: idempotencyHeader(idempotencyKey),
  });
}

/** Delete a draft bill, as a mutation of the organisation on screen. */
export function useDeleteBill(orgId: number) {
  return useMutation({
    mutationFn: ({ id, idempotencyKey }: { id: string; idempotencyKey: string }) =>
      deleteBill(orgId, id, idempotencyKey),
  });
}
