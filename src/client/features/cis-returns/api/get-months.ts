import { queryOptions, useQuery } from '@tanstack/react-query';
import { cisMonthsResponseSchema, type CisMonthsResponse } from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

/** GET /api/xero/cis/months (issue 29): the last year's tax months with their state. */
export function getCisMonths(orgId: number, options: { refresh?: boolean } = {}): Promise<CisMonthsResponse> {
  return api.get(orgUrl('/api/xero/cis/months', orgId, { refresh: options.refresh ? 'true' : undefined }), {
    schema: cisMonthsResponseSchema,
  });
}

export const cisMonthsQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: cisReturnsKeys.months(orgId),
    queryFn: () => getCisMonths(orgId),
    // Ledgerlink's cache, kept current by Xero's webhooks: reading it again costs no Xero call.
    staleTime: 0,
  });

export function useCisMonths(orgId: number) {
  return useQuery(cisMonthsQueryOptions(orgId));
}
