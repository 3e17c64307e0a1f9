import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dataCleanupResponseSchema, type DataCleanupResponse } from '@/shared/pay-invoices';
import { api, getMessage } from '@/client/lib/api-client';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

export const DATA_CLEANUP_FAILED = 'Failed to clean up processed invoices and payments';

/**
 * POST /api/xero/data/cleanup → {deletedInvoices, deletedPayments} (docs/product/shell.md §7). Touches
 * Ledgerlink's cache only.
 */
export async function cleanupData(orgId: OrgId): Promise<DataCleanupResponse> {
  try {
    return await api.post(orgUrl('/api/xero/data/cleanup', orgId), undefined, {
      schema: dataCleanupResponseSchema,
    });
  } catch (error) {
    throw new Error(`${DATA_CLEANUP_FAILED}: ${getMessage(error, 'unknown error')}`, { cause: error });
  }
}

export function useCleanupData(orgId: OrgId | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => cleanupData(orgId ?? 'none'),
    onSuccess: async () => {
      if (orgId === undefined) return;
      // Invoice and payment lists of the feature screens were cached from the rows just removed.
      await queryClient.invalidateQueries({
        queryKey: ['org', orgId],
        predicate: (q) => q.queryKey[2] !== 'settings',
      });
      await queryClient.invalidateQueries({ queryKey: ['invoices'] });
    },
  });
}
