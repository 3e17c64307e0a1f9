import { queryOptions, useQuery } from '@tanstack/react-query';
import { cisContactListResponseSchema, type CisContact } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { cisBillsKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/**
 * GET /api/xero/cis-contacts (docs/product/features.md §7): the subcontractors with hasValidUTR. `refresh`
 * re-reads the contacts and their CIS settings from Xero; otherwise the server answers from its cache.
 */
export function getCisContacts(orgId: number, options: { refresh?: boolean } = {}): Promise<CisContact[]> {
  return api.get(orgUrl('/api/xero/cis-contacts', orgId, { refresh: options.refresh ? 'true' : undefined }), {
    schema: cisContactListResponseSchema,
  });
}

export const cisContactsQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: cisBillsKeys.contacts(orgId),
    queryFn: () => getCisContacts(orgId),
    staleTime: 5 * 60_000,
  });

export function useCisContacts(orgId: number) {
  return useQuery(cisContactsQueryOptions(orgId));
}
