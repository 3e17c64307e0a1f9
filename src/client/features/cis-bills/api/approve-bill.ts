import {
  approveBillResponseSchema,
  DEFAULT_BILL_ACCOUNT_HEADER,
  type ApproveBillResponse,
} from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';

/** POST /api/xero/approve-bill/{id} (001 §7): with a header carrying the saved bill account id. */
export function approveBill(
  orgId: number,
  id: string,
  defaultBillAccountId: string,
  idempotencyKey: string,
): Promise<ApproveBillResponse> {
  return api.post(orgUrl(`/api/xero/approve-bill/${encodeURIComponent(id)}`, orgId), undefined, {
    schema: approveBillResponseSchema,
    headers: { [DEFAULT_BILL_ACCOUNT_HEADER]: defaultBillAccountId, 'Idempotency-Key': idempotencyKey },
  });
}
