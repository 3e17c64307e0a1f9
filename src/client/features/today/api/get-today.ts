import { queryOptions, useQuery } from '@tanstack/react-query';
import { todayResponseSchema, type TodayResponse } from '@/shared/practice';
import { api } from '@/client/lib/api-client';
import { todayKeys } from './query-keys';

/** How often the rows are asked for while some are still being read. */
const READING_POLL_MS = 3_000;

/** GET /api/practice/today (issue 47): every organisation's row, most urgent first. */
export function getToday(): Promise<TodayResponse> {
  return api.get('/api/practice/today', { schema: todayResponseSchema });
}

export const todayQueryOptions = () =>
  queryOptions({
    queryKey: todayKeys.rows,
    queryFn: getToday,
    // Answered from Ledgerlink's own copy: asking again costs no Xero call, so a visit always asks.
    staleTime: 0,
    // While organisations are being read the stream says when a row is in; asking every few seconds as well
    // keeps the progress moving should an event be lost (a proxy that buffers, a stream reopening).
    refetchInterval: (query) =>
      query.state.data?.some((r) => r.status === 'waiting' || r.status === 'reading')
        ? READING_POLL_MS
        : false,
  });

export function useToday() {
  return useQuery(todayQueryOptions());
}
