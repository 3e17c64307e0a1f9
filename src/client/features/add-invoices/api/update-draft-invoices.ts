import { useMutation } from '@tanstack/react-query';
import {
  draftInvoiceUpdateResponseSchema,
  type DraftInvoiceUpdateItem,
  type DraftInvoiceUpdateResponse,
} from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { createIdempotencyKey, type OrgId } from './query-keys';

export interface UpdateDraftInvoicesInput {
  invoices: DraftInvoiceUpdateItem[];
  /** Sent by Process All only (001 §7). */
  organizationId?: OrgId;
}

/**
 * POST /api/xero/draft-invoices/update (001 §7). One Idempotency-Key per call: the API client's network
 * retries resend the same request with it, so the server never approves or pays twice.
 */
export function updateDraftInvoices(
  input: UpdateDraftInvoicesInput,
  idempotencyKey = createIdempotencyKey(),
): Promise<DraftInvoiceUpdateResponse> {
  const body =
    input.organizationId === undefined
      ? { invoices: input.invoices }
      : { invoices: input.invoices, organizationId: input.organizationId };
  return api.post('/api/xero/draft-invoices/update', body, {
    schema: draftInvoiceUpdateResponseSchema,
    headers: { 'Idempotency-Key': idempotencyKey },
  });
}

export function useUpdateDraftInvoices() {
  return useMutation({ mutationFn: (input: UpdateDraftInvoicesInput) => updateDraftInvoices(input) });
}
