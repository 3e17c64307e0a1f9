import { syncStatusResponseSchema, type SyncStatusResponse } from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { withOrg } from './keys';

/** POST /api/xero/stock-journal/sync-status (001 §7): empty body; answers {updatedCount}. */
export function syncJournalStatus(orgId: number): Promise<SyncStatusResponse> {
  return api.post(withOrg('/api/xero/stock-journal/sync-status', orgId), undefined, {
    schema: syncStatusResponseSchema,
  });
}
