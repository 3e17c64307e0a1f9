import { syncStatusResponseSchema, type SyncStatusResponse } from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';

/**
 * POST /api/xero/stock-journal/sync-status (docs/product/features.md §7): empty body; answers {updatedCount}.
 */
export function syncJournalStatus(orgId: number): Promise<SyncStatusResponse> {
  return api.post(orgUrl('/api/xero/stock-journal/sync-status', orgId), undefined, {
    schema: syncStatusResponseSchema,
  });
}
