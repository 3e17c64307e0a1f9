import { queryOptions, useQuery } from '@tanstack/react-query';
import { accountSchema, type Account } from '@/shared/settings';
import { api } from '@/client/lib/api-client';
import { cisBillsKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/** Accounts cached 5 minutes (docs/product/features.md §7, §9). */
export const ACCOUNTS_STALE_MS = 5 * 60_000;
/** 3 retries with exponential delay capped at 30 s (docs/product/features.md §7). */
export const ACCOUNTS_RETRIES = 3;
export function getAccountsRetryDelay(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, 30_000);
}

const accountListSchema = accountSchema.array();

/**
 * GET /api/xero/direct-costs-accounts (docs/product/features.md §7); `refresh` re-reads the accounts from
 * Xero (Refresh Accounts).
 */
export function getDirectCostsAccounts(
  orgId: number,
  options: { refresh?: boolean } = {},
): Promise<Account[]> {
  return api.get(
    orgUrl('/api/xero/direct-costs-accounts', orgId, { refresh: options.refresh ? 'true' : undefined }),
    {
      schema: accountListSchema,
    },
  );
}

export const directCostsAccountsQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: cisBillsKeys.accounts(orgId),
    queryFn: () => getDirectCostsAccounts(orgId),
    staleTime: ACCOUNTS_STALE_MS,
    retry: ACCOUNTS_RETRIES,
    retryDelay: getAccountsRetryDelay,
  });

export function useDirectCostsAccounts(orgId: number) {
  return useQuery(directCostsAccountsQueryOptions(orgId));
}
