import { queryOptions, useQuery } from '@tanstack/react-query';
import { todayResponseSchema, type TodayResponse } from '@/shared/practice';
import { api } from '@/client/lib/api-client';
import { todayKeys } from './query-keys';

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
  });

export function useToday() {
  return useQuery(todayQueryOptions());
}
