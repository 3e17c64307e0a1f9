import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { cisFilingSchema, type CisFiling } from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

/** POST /api/xero/cis/returns/{period}/filing: marks the month's return as sent to HMRC (today by default). */
export function markCisReturnFiled(orgId: number, period: string, filedOn?: string): Promise<CisFiling> {
  return api.post(
    orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/filing`, orgId),
    filedOn ? { filedOn } : {},
    { schema: cisFilingSchema },
  );
}

/** DELETE /api/xero/cis/returns/{period}/filing: an administrator takes the mark off. */
export function unmarkCisReturnFiled(orgId: number, period: string): Promise<unknown> {
  return api.delete(orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/filing`, orgId), {
    schema: z.object({ period: z.string(), filing: z.null() }),
  });
}

export function useCisFiling(orgId: number) {
  const queryClient = useQueryClient();
  const settle = () => queryClient.invalidateQueries({ queryKey: cisReturnsKeys.all(orgId) });
  return {
    mark: useMutation({
      mutationFn: ({ period, filedOn }: { period: string; filedOn?: string }) =>
        markCisReturnFiled(orgId, period, filedOn),
      onSettled: settle,
    }),
    unmark: useMutation({
      mutationFn: ({ period }: { period: string }) => unmarkCisReturnFiled(orgId, period),
      onSettled: settle,
    }),
  };
}
