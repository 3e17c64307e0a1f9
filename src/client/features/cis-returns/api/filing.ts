import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  cisFilingSchema,
  cisNilMarkSchema,
  type CisFiling,
  type CisNilMark,
  type CisNilMarkKind,
} from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

const filingUrl = (orgId: number, period: string) =>
  orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/filing`, orgId);
const nilMarkUrl = (orgId: number, period: string) =>
  orgUrl(`/api/xero/cis/returns/${encodeURIComponent(period)}/nil-mark`, orgId);

/**
 * POST /api/xero/cis/returns/{period}/filing: marks the month's return as sent to HMRC (today by default). A 422
 * names each reference still missing.
 */
export function markCisReturnFiled(orgId: number, period: string, filedOn?: string): Promise<CisFiling> {
  return api.post(filingUrl(orgId, period), filedOn ? { filedOn } : {}, { schema: cisFilingSchema });
}

/** DELETE /api/xero/cis/returns/{period}/filing: an administrator takes the mark off. */
export function unmarkCisReturnFiled(orgId: number, period: string): Promise<unknown> {
  return api.delete(filingUrl(orgId, period), {
    schema: z.object({ period: z.string(), filing: z.null() }),
  });
}

/** POST /api/xero/cis/returns/{period}/nil-mark: a nil month dealt with without a return (issue 42). */
export function markCisNilMonth(orgId: number, period: string, kind: CisNilMarkKind): Promise<CisNilMark> {
  return api.post(nilMarkUrl(orgId, period), { kind }, { schema: cisNilMarkSchema });
}

/** DELETE /api/xero/cis/returns/{period}/nil-mark: an administrator takes the mark off. */
export function unmarkCisNilMonth(orgId: number, period: string): Promise<unknown> {
  return api.delete(nilMarkUrl(orgId, period), {
    schema: z.object({ period: z.string(), nilMark: z.null() }),
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
    markNil: useMutation({
      mutationFn: ({ period, kind }: { period: string; kind: CisNilMarkKind }) =>
        markCisNilMonth(orgId, period, kind),
      onSettled: settle,
    }),
    unmarkNil: useMutation({
      mutationFn: ({ period }: { period: string }) => unmarkCisNilMonth(orgId, period),
      onSettled: settle,
    }),
  };
}
