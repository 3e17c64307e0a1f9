import { useMutation } from '@tanstack/react-query';
import {
  approveBillResponseSchema,
  DEFAULT_BILL_ACCOUNT_HEADER,
  type ApproveBillResponse,
} from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';

/**
 * POST /api/xero/approve-bill/{id} (docs/product/features.md §7): with a header carrying the saved bill
 * account id.
 */
export function approveBill(
  orgId: number,
  id: string,
  defaultBillAccountId: string,
  idempotencyKey: string,
): Promise<ApproveBillResponse> {
  return api.post(orgUrl(`/api/xero/approve-bill/${encodeURIComponent(id)}`, orgId), undefined, {
    schema: approveBillResponseSchema,
    headers: { [DEFAULT_BILL_ACCOUNT_HEADER]: defaultBillAccountId, ...idempotencyHeader(idempotencyKey) },
  });
}

/** Approve a draft bill, as a mutation of the organisation on screen. */
export function useApproveBill(orgId: number) {
  return useMutation({
    mutationFn: ({
      id,
      accountId,
      idempotencyKey,
    }: {
      id: string;
      accountId: string;
      idempotencyKey: string;
    }) => approveBill(orgId, id, accountId, idempotencyKey),
  });
}
