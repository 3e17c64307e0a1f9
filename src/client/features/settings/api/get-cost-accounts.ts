import { useQuery } from '@tanstack/react-query';
import { accountsResponseSchema, type Account } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/cost-accounts';

/** GET /api/xero/cost-accounts (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getCostAccounts(orgId: OrgId, refresh = false): Promise<Account[]> {
  return fetchReferenceList(PATH, accountsResponseSchema, orgId, refresh);
}

export const costAccountsQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<Account>('cost-accounts', PATH, accountsResponseSchema, orgId);

export function useCostAccounts(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...costAccountsQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
