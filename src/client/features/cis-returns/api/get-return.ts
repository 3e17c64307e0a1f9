import { queryOptions, useQuery } from '@tanstack/react-query';
import { cisReturnSchema, type CisReturn } from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

/** GET /api/xero/cis/returns?period= (issue 29); `refresh` reads Xero again first. */
export function getCisReturn(
  orgId: number,
  period: string,
  options: { refresh?: boolean } = {},
): Promise<CisReturn> {
  return api.get(
    orgUrl('/api/xero/cis/returns', orgId, { period, refresh: options.refresh ? 'true' : undefined }),
    { schema: cisReturnSchema },
  );
}

export const cisReturnQueryOptions = (orgId: number, period: string) =>
  queryOptions({
    queryKey: cisReturnsKeys.return(orgId, period),
    queryFn: () => getCisReturn(orgId, period),
    staleTime: 0,
  });

export function useCisReturn(orgId: number, period: string | null) {
  return useQuery({ ...cisReturnQueryOptions(orgId, period ?? ''), enabled: period !== null });
}

/** Where the browser downloads the return as CSV, and the statements as PDF (the session cookie signs them). */
export const cisDownloads = {
  csv: (orgId: number, period: string) => orgUrl('/api/xero/cis/returns', orgId, { period, format: 'csv' }),
  statement: (orgId: number, period: string, contactId: string) =>
    orgUrl(`/api/xero/cis/statements/${encodeURIComponent(contactId)}`, orgId, { period }),
  allStatements: (orgId: number, period: string) => orgUrl('/api/xero/cis/statements', orgId, { period }),
};
