import { useMutation } from '@tanstack/react-query';
import {
  createBillsResponseSchema,
  type CreateBillRequest,
  type CreateBillsResponse,
} from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';
import { redoConfirmHeader, sendWithRedoWarning } from '@/client/lib/redo-warning';

/**
 * POST /api/xero/create-bills: several bills in one request, which the server sends to Xero as one call, with
 * a result per bill. Each bill carries its local id; with the action's Idempotency-Key it names the bill on
 * every retry, so a retried request never creates a bill twice. (docs/product/features.md §7's one-bill
 * `create-bill` is the same thing for a single bill.)
 */
export function createBills(
  orgId: number,
  bills: Array<CreateBillRequest & { id: string }>,
  idempotencyKey: string,
  confirmRedo = false,
): Promise<CreateBillsResponse> {
  return api.post(
    orgUrl('/api/xero/create-bills', orgId),
    { bills },
    {
      schema: createBillsResponseSchema,
      headers: { ...idempotencyHeader(idempotencyKey), ...redoConfirmHeader(confirmRedo) },
    },
  );
}

/** Create bills, as a mutation of the organisation on screen (one key per press of Create). */
export function useCreateBills(orgId: number) {
  return useMutation({
    mutationFn: ({
      bills,
      idempotencyKey,
    }: {
      bills: Array<CreateBillRequest & { id: string }>;
      idempotencyKey: string;
    }) =>
      // After a restore, bills like ones Xero already has are shown to the person first (issue 44), and
      // sent again under the same key only if they choose to go on.
      sendWithRedoWarning((confirmRedo) => createBills(orgId, bills, idempotencyKey, confirmRedo), {
        title: 'Xero may already have these bills',
        goOn: 'Create them anyway',
      }),
  });
}
