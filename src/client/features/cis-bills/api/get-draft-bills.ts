import { queryOptions, useQuery } from '@tanstack/react-query';
import { draftBillListResponseSchema, type DraftBill } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { cisBillsKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/**
 * GET /api/xero/draft-bills (docs/product/features.md §7), only CIS subcontractors' bills (the card is "Draft
 * CIS Bills"); `refresh` makes the server ask Xero what changed first (the Refresh button).
 */
export function getDraftBills(orgId: number, options: { refresh?: boolean } = {}): Promise<DraftBill[]> {
  return api.get(
    orgUrl('/api/xero/draft-bills', orgId, {
      cisOnly: 'true',
      refresh: options.refresh ? 'true' : undefined,
    }),
    {
      schema: draftBillListResponseSchema,
    },
  );
}

export const draftBillsQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: cisBillsKeys.drafts(orgId),
    queryFn: () => getDraftBills(orgId),
    // Read again on every visit: it is Ledgerlink's cache, so this costs no Xero call.
    staleTime: 0,
  });

export function useDraftBills(orgId: number) {
  return useQuery(draftBillsQueryOptions(orgId));
}
