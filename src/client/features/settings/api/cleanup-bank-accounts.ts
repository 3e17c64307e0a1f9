import { useMutation, useQueryClient } from '@tanstack/react-query';
import { bankAccountsCleanupResponseSchema, type BankAccountsCleanupResponse } from '@/shared/pay-invoices';
import { api, getMessage } from '@/client/lib/api-client';
import { settingsKeys } from './query-keys';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

export const BANK_CLEANUP_FAILED = 'Failed to clean up duplicate bank accounts';

/**
 * POST /api/xero/bank-accounts/cleanup → {deletedCount} (docs/product/shell.md §7). Touches Ledgerlink's
 * cache only.
 */
export async function cleanupBankAccounts(orgId: OrgId): Promise<BankAccountsCleanupResponse> {
  try {
    return await api.post(orgUrl('/api/xero/bank-accounts/cleanup', orgId), undefined, {
      schema: bankAccountsCleanupResponseSchema,
    });
  } catch (error) {
    throw new Error(`${BANK_CLEANUP_FAILED}: ${getMessage(error, 'unknown error')}`, { cause: error });
  }
}

export function useCleanupBankAccounts(orgId: OrgId | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => cleanupBankAccounts(orgId ?? 'none'),
    onSuccess: async () => {
      if (orgId === undefined) return;
      // Every screen's bank-account lists, whichever key their feature chose (docs/product/shell.md §7
      // invalidation list).
      await queryClient.invalidateQueries({ queryKey: settingsKeys.list(orgId, 'bank-accounts') });
      await queryClient.invalidateQueries({ queryKey: ['bank-accounts'] });
      await queryClient.invalidateQueries({
        queryKey: ['org', orgId],
        predicate: (q) => q.queryKey[2] !== 'settings',
      });
    },
  });
}
