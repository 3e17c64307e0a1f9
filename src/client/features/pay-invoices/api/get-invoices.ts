import { queryOptions, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  INVOICES_SYNC_HEADER,
  invoiceListResponseSchema,
  parseInvoiceSyncHeader,
  type Invoice,
  type InvoiceSyncStatus,
} from '@/shared/pay-invoices';
import { api } from '@/client/lib/api-client';
import { payInvoicesKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/** Invoices cache (docs/product/features.md §9): 5 minutes, 2 retries, 1 s then 3 s. */
export const INVOICES_STALE_MS = 5 * 60_000;
export const INVOICES_RETRY_DELAYS_MS = [1000, 3000] as const;
/**
 * While the server is still reading a first visit's invoices from Xero (issue 19), the list is asked for again
 * every second: each page read shows up without a reload. Polling rather than a live event: the progress is in
 * every answer, so this needs nothing else, survives a dropped event stream and works on every instance; an
 * unchanged list costs a 304.
 */
export const INVOICES_SYNC_POLL_MS = 1000;

/**
 * GET /api/xero/invoices (docs/product/features.md §7); `refresh` first asks Xero what changed (Standard
 * Refresh). `onSync` hears how complete the list is (the `X-Invoices-Sync` header).
 */
export function getInvoices(
  orgId: number,
  options: { refresh?: boolean; onSync?: (sync: InvoiceSyncStatus) => void } = {},
): Promise<Invoice[]> {
  return api.get(orgUrl('/api/xero/invoices', orgId, { refresh: options.refresh ? 'true' : undefined }), {
    schema: invoiceListResponseSchema,
    onHeaders: (headers) => options.onSync?.(parseInvoiceSyncHeader(headers.get(INVOICES_SYNC_HEADER))),
  });
}

/** Keeps what an answer said of the list's completeness beside the list. */
export function rememberInvoicesSync(queryClient: QueryClient, orgId: number, sync: InvoiceSyncStatus): void {
  queryClient.setQueryData(payInvoicesKeys.invoicesSync(orgId), sync);
}

function isSyncing(queryClient: QueryClient, orgId: number): boolean {
  const sync = queryClient.getQueryData<InvoiceSyncStatus>(payInvoicesKeys.invoicesSync(orgId));
  return sync !== undefined && !sync.complete;
}

export const invoicesQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: payInvoicesKeys.invoices(orgId),
    queryFn: ({ client }) =>
      getInvoices(orgId, { onSync: (sync) => rememberInvoicesSync(client, orgId, sync) }),
    staleTime: INVOICES_STALE_MS,
    retry: (failureCount, error) => failureCount < INVOICES_RETRY_DELAYS_MS.length && !isPermanent(error),
    retryDelay: (attempt) =>
      INVOICES_RETRY_DELAYS_MS[Math.min(attempt, INVOICES_RETRY_DELAYS_MS.length - 1)] ?? 3000,
  });

/**
 * Asks for the list before the screen is on the page (issue 32: at start-up, beside the page's chunk, see
 * src/client/app/page-data.ts); the screen's `useInvoices` then finds the answer in the cache or on its way.
 */
export function prefetchInvoices(queryClient: QueryClient, orgId: number): Promise<void> {
  return queryClient.prefetchQuery(invoicesQueryOptions(orgId));
}

/** A refusal (not signed in, no access, feature off) does not get better by asking again. */
function isPermanent(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export function useInvoices(orgId: number | null) {
  const queryClient = useQueryClient();
  return useQuery({
    ...invoicesQueryOptions(orgId ?? 0),
    enabled: orgId !== null,
    refetchInterval: () => (orgId !== null && isSyncing(queryClient, orgId) ? INVOICES_SYNC_POLL_MS : false),
  });
}

/** How complete the list on screen is; complete until an answer says otherwise. */
export function useInvoicesSync(orgId: number | null): InvoiceSyncStatus {
  const { data } = useQuery<InvoiceSyncStatus>({
    queryKey: payInvoicesKeys.invoicesSync(orgId ?? 0),
    queryFn: () => COMPLETE,
    enabled: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return data ?? COMPLETE;
}

const COMPLETE: InvoiceSyncStatus = { complete: true, fetched: 0, total: null };
