import { useMutation } from '@tanstack/react-query';
import {
  draftInvoiceUpdateResponseSchema,
  type DraftInvoiceUpdateItem,
  type DraftInvoiceUpdateResponse,
} from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { idempotencyHeader, newIdempotencyKey } from '@/client/lib/idempotency';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

export interface UpdateDraftInvoicesInput {
  invoices: DraftInvoiceUpdateItem[];
  /** Process All names its organisation in the body too (docs/product/features.md §7). */
  processAll?: boolean;
}

/**
 * POST /api/xero/draft-invoices/update (docs/product/features.md §7), pinned to the organisation on screen
 * (`?org=`). One Idempotency-Key per call: the API client's network retries resend the same request with it,
 * so the server never approves or pays twice.
 */
export function updateDraftInvoices(
  orgId: OrgId,
  input: UpdateDraftInvoicesInput,
  idempotencyKey = newIdempotencyKey(),
): Promise<DraftInvoiceUpdateResponse> {
  const body = input.processAll
    ? { invoices: input.invoices, organizationId: orgId }
    : { invoices: input.invoices };
  return api.post(orgUrl('/api/xero/draft-invoices/update', orgId), body, {
    schema: draftInvoiceUpdateResponseSchema,
    headers: idempotencyHeader(idempotencyKey),
  });
}

/** Process and Process All, as a mutation of the organisation on screen. */
export function useUpdateDraftInvoices(orgId: OrgId) {
  return useMutation({ mutationFn: (input: UpdateDraftInvoicesInput) => updateDraftInvoices(orgId, input) });
}
