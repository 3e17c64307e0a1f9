import { useQuery } from '@tanstack/react-query';
import { accountsResponseSchema, type Account } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/sales-accounts';

/** GET /api/xero/sales-accounts (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getSalesAccounts(orgId: OrgId, refresh = false): Promise<Account[]> {
  return fetchReferenceList(PATH, accountsResponseSchema, orgId, refresh);
}

export const salesAccountsQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<Account>('sales-accounts', PATH, accountsResponseSchema, orgId);

export function useSalesAccounts(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...salesAccountsQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
