import { useQuery } from '@tanstack/react-query';
import { accountsResponseSchema, type Account } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/bill-accounts';

/** GET /api/xero/bill-accounts (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getBillAccounts(orgId: OrgId, refresh = false): Promise<Account[]> {
  return fetchReferenceList(PATH, accountsResponseSchema, orgId, refresh);
}

export const billAccountsQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<Account>('bill-accounts', PATH, accountsResponseSchema, orgId);

export function useBillAccounts(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...billAccountsQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
