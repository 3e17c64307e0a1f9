import { deleteBillResponseSchema, type DeleteBillResponse } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { withOrg } from './query-keys';

/** POST /api/xero/delete-bill/{id} (001 §7): the bill's status becomes DELETED; 403 when the user may not. */
export function deleteBill(orgId: number, id: string, idempotencyKey: string): Promise<DeleteBillResponse> {
  return api.post(withOrg(`/api/xero/delete-bill/${encodeURIComponent(id)}`, orgId), undefined, {
    schema: deleteBillResponseSchema,
    headers: { 'Idempotency-Key': idempotencyKey },
  });
}
