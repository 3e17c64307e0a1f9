import { updateBillResponseSchema, type UpdateBillResponse } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { withOrg } from './query-keys';

/** PATCH /api/xero/update-bill/{id} (001 §7 `{amount}`): the draft's new gross amount. */
export function updateBill(
  orgId: number,
  id: string,
  amount: number,
  idempotencyKey: string,
): Promise<UpdateBillResponse> {
  return api.patch(
    withOrg(`/api/xero/update-bill/${encodeURIComponent(id)}`, orgId),
    { amount },
    {
      schema: updateBillResponseSchema,
      headers: { 'Idempotency-Key': idempotencyKey },
    },
  );
}
