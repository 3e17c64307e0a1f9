import { useMutation } from '@tanstack/react-query';
import {
  draftInvoiceCreateResponseSchema,
  type DraftInvoiceCreateRequest,
  type DraftInvoiceCreateResponse,
} from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { idempotencyHeader, newIdempotencyKey } from '@/client/lib/idempotency';
import { orgUrl, type OrgId } from '@/client/lib/org-url';
import { redoConfirmHeader, sendWithRedoWarning } from '@/client/lib/redo-warning';

/**
 * POST /api/xero/draft-invoices/create (docs/product/features.md §7): answers the number Xero gave the
 * invoice. The call names the organisation on screen (`?org=`), the one whose defaults the New Invoice row
 * shows, so a switch made in another tab cannot send the invoice to a different organisation.
 */
export function createDraftInvoice(
  orgId: OrgId,
  body: DraftInvoiceCreateRequest,
  idempotencyKey = newIdempotencyKey(),
  confirmRedo = false,
): Promise<DraftInvoiceCreateResponse> {
  return api.post(orgUrl('/api/xero/draft-invoices/create', orgId), body, {
    schema: draftInvoiceCreateResponseSchema,
    headers: { ...idempotencyHeader(idempotencyKey), ...redoConfirmHeader(confirmRedo) },
  });
}

/**
 * Create, as a mutation of the organisation on screen: one idempotency key per press of Create. After a
 * restore, an invoice like one Xero already has is shown to the person first (issue 44), and sent again under
 * the same key only if they choose to go on.
 */
export function useCreateDraftInvoice(orgId: OrgId) {
  return useMutation({
    mutationFn: (body: DraftInvoiceCreateRequest) => {
      const key = newIdempotencyKey();
      return sendWithRedoWarning((confirmRedo) => createDraftInvoice(orgId, body, key, confirmRedo), {
        title: 'Xero may already have this invoice',
        goOn: 'Create it again',
      });
    },
  });
}
