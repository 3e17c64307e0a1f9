import { useMutation } from '@tanstack/react-query';
import {
  draftInvoiceCreateResponseSchema,
  type DraftInvoiceCreateRequest,
  type DraftInvoiceCreateResponse,
} from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { createIdempotencyKey } from './query-keys';

/** POST /api/xero/draft-invoices/create (001 §7): answers the number Xero gave the invoice. */
export function createDraftInvoice(
  body: DraftInvoiceCreateRequest,
  idempotencyKey = createIdempotencyKey(),
): Promise<DraftInvoiceCreateResponse> {
  return api.post('/api/xero/draft-invoices/create', body, {
    schema: draftInvoiceCreateResponseSchema,
    headers: { 'Idempotency-Key': idempotencyKey },
  });
}

export function useCreateDraftInvoice() {
  return useMutation({ mutationFn: (body: DraftInvoiceCreateRequest) => createDraftInvoice(body) });
}
