import { useMutation } from '@tanstack/react-query';
import {
  draftInvoiceCreateResponseSchema,
  type DraftInvoiceCreateRequest,
  type DraftInvoiceCreateResponse,
} from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { idempotencyHeader, newIdempotencyKey } from '@/client/lib/idempotency';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

/**
 * POST /api/xero/draft-invoices/create (docs/product/features.md §7): answers the number Xero gave the
 * invoice. The call names the organisation on screen (`?org=`), the one whose defaults the New Invoice row
 * shows, so a switch made in another tab cannot send the invoice to a different organisation.
 */
export function createDraftInvoice(
  orgId: OrgId,
  body: DraftInvoiceCreateRequest,
  idempotencyKey = newIdempotencyKey(),
): Promise<DraftInvoiceCreateResponse> {
  return api.post(orgUrl('/api/xero/draft-invoices/create', orgId), body, {
    schema: draftInvoiceCreateResponseSchema,
    headers: idempotencyHeader(idempotencyKey),
  });
}

/** Create, as a mutation of the organisation on screen: one idempotency key per press of Create. */
export function useCreateDraftInvoice(orgId: OrgId) {
  return useMutation({ mutationFn: (body: DraftInvoiceCreateRequest) => createDraftInvoice(orgId, body) });
}
