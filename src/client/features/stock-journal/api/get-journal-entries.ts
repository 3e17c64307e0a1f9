import { queryOptions, useQuery } from '@tanstack/react-query';
import { stockJournalEntryListResponseSchema, type StockJournalEntry } from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { stockJournalKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/** GET /api/xero/stock-journal/entries (docs/product/features.md §7): the journals posted per period. */
export function getJournalEntries(orgId: number): Promise<StockJournalEntry[]> {
  return api.get(orgUrl('/api/xero/stock-journal/entries', orgId), {
    schema: stockJournalEntryListResponseSchema,
  });
}

export const journalEntriesQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: stockJournalKeys.entries(orgId),
    queryFn: () => getJournalEntries(orgId),
  });

/** Only when connected and the feature is on (docs/product/features.md §7). */
export function useJournalEntries(orgId: number | null, enabled: boolean) {
  return useQuery({ ...journalEntriesQueryOptions(orgId ?? 0), enabled: enabled && orgId !== null });
}
