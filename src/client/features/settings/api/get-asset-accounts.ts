import { useQuery } from '@tanstack/react-query';
import { accountsResponseSchema, type Account } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/asset-accounts';

/** GET /api/xero/asset-accounts (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getAssetAccounts(orgId: OrgId, refresh = false): Promise<Account[]> {
  return fetchReferenceList(PATH, accountsResponseSchema, orgId, refresh);
}

export const assetAccountsQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<Account>('asset-accounts', PATH, accountsResponseSchema, orgId);

export function useAssetAccounts(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...assetAccountsQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
