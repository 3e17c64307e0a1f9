import { queryOptions, useQuery } from '@tanstack/react-query';
import { invoiceListResponseSchema, type Invoice } from '@/shared/pay-invoices';
import { api } from '@/client/lib/api-client';
import { payInvoicesKeys } from './keys';
import { orgUrl } from '@/client/lib/org-url';

/** Invoices cache (docs/product/features.md §9): 5 minutes, 2 retries, 1 s then 3 s. */
export const INVOICES_STALE_MS = 5 * 60_000;
export const INVOICES_RETRY_DELAYS_MS = [1000, 3000] as const;

/**
 * GET /api/xero/invoices (docs/product/features.md §7); `refresh` first asks Xero what changed (Standard
 * Refresh).
 */
export function getInvoices(orgId: number, options: { refresh?: boolean } = {}): Promise<Invoice[]> {
  return api.get(orgUrl('/api/xero/invoices', orgId, { refresh: options.refresh ? 'true' : undefined }), {
    schema: invoiceListResponseSchema,
  });
}

export const invoicesQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: payInvoicesKeys.invoices(orgId),
    queryFn: () => getInvoices(orgId),
    staleTime: INVOICES_STALE_MS,
    retry: (failureCount, error) => failureCount < INVOICES_RETRY_DELAYS_MS.length && !isPermanent(error),
    retryDelay: (attempt) =>
      INVOICES_RETRY_DELAYS_MS[Math.min(attempt, INVOICES_RETRY_DELAYS_MS.length - 1)] ?? 3000,
  });

/** A refusal (not signed in, no access, feature off) does not get better by asking again. */
function isPermanent(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export function useInvoices(orgId: number | null) {
  return useQuery({ ...invoicesQueryOptions(orgId ?? 0), enabled: orgId !== null });
}
