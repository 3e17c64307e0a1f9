import { queryOptions, useQuery } from '@tanstack/react-query';
import { draftInvoiceListResponseSchema, type DraftInvoice } from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { addInvoicesKeys } from './query-keys';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

const PATH = '/api/xero/draft-invoices';

/**
 * GET /api/xero/draft-invoices (docs/product/features.md §7); `refresh` makes the server ask Xero for what
 * changed first.
 */
export function getDraftInvoices(orgId: OrgId, options: { refresh?: boolean } = {}): Promise<DraftInvoice[]> {
  return api.get(orgUrl(PATH, orgId, { refresh: options.refresh ? 'true' : undefined }), {
    schema: draftInvoiceListResponseSchema,
  });
}

export const draftInvoicesQueryOptions = (orgId: OrgId) =>
  queryOptions({
    queryKey: addInvoicesKeys.drafts(orgId),
    queryFn: () => getDraftInvoices(orgId),
    // Read again on every visit: it is Ledgerlink's cache, so this costs no Xero call.
    staleTime: 0,
  });

export function useDraftInvoices(orgId: OrgId | undefined) {
  return useQuery({ ...draftInvoicesQueryOptions(orgId ?? 'none'), enabled: orgId !== undefined });
}
