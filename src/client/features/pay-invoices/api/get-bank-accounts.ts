import { queryOptions, useQuery } from '@tanstack/react-query';
import { bankAccountsResponseSchema, type BankAccountsResponse } from '@/shared/pay-invoices';
import { api, isApiError } from '@/client/lib/api-client';
import { payInvoicesKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/** Bank accounts cached 10 minutes (docs/product/features.md §9). */
export const BANK_ACCOUNTS_STALE_MS = 10 * 60_000;
/** "refetch 0.5 s after the organization changes" (docs/product/features.md §9). */
export const BANK_ACCOUNTS_ORG_CHANGE_DELAY_MS = 500;

/**
 * GET /api/xero/bank-accounts (docs/product/shell.md §7), `refresh` forces a new read from Xero (Refresh
 * Accounts). Failures carry 'Failed to get bank accounts: {status} {text}' (docs/product/shell.md §8).
 */
export async function getBankAccounts(
  orgId: number,
  options: { refresh?: boolean } = {},
): Promise<BankAccountsResponse> {
  try {
    return await api.get(
      orgUrl('/api/xero/bank-accounts', orgId, { refresh: options.refresh ? 'true' : undefined }),
      {
        schema: bankAccountsResponseSchema,
      },
    );
  } catch (error) {
    if (isApiError(error))
      throw new Error(`Failed to get bank accounts: ${error.status} ${error.message}`, { cause: error });
    throw error;
  }
}

export const bankAccountsQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: payInvoicesKeys.bankAccounts(orgId),
    queryFn: () => getBankAccounts(orgId),
    staleTime: BANK_ACCOUNTS_STALE_MS,
    gcTime: BANK_ACCOUNTS_STALE_MS,
  });

export function useBankAccounts(orgId: number | null) {
  return useQuery({ ...bankAccountsQueryOptions(orgId ?? 0), enabled: orgId !== null });
}
