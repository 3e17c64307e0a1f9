import { queryOptions, useQuery } from '@tanstack/react-query';
import { ALL_CUSTOMERS, salesResponseLenientSchema, type SalesPeriod } from '@/shared/stock-journal';
import { api, getMessage } from '@/client/lib/api-client';
import { stockJournalKeys, type SalesFilters } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/**
 * The sales answer with what went wrong, if anything: "non-OK gives empty list"
 * (docs/product/features.md §7), yet the screen says why.
 */
export interface SalesResult {
  periods: SalesPeriod[];
  error: string | null;
}

/**
 * GET /api/xero/sales (docs/product/features.md §7): customerId (omitted for all), fromDate, toDate. A failed
 * answer gives an empty list (docs/product/features.md §7), with its message kept for the screen. `refresh`
 * first brings Ledgerlink's copy of the invoices up to date with Xero (Refresh Data).
 */
export async function getSales(
  orgId: number,
  filters: SalesFilters,
  options: { refresh?: boolean } = {},
): Promise<SalesResult> {
  try {
    const periods = await api.get(
      orgUrl('/api/xero/sales', orgId, {
        customerId:
          filters.customerId && filters.customerId !== ALL_CUSTOMERS ? filters.customerId : undefined,
        fromDate: filters.fromDate,
        toDate: filters.toDate,
        refresh: options.refresh ? 'true' : undefined,
      }),
      { schema: salesResponseLenientSchema },
    );
    return { periods, error: null };
  } catch (error) {
    return { periods: [], error: getMessage(error, 'Failed to load sales data') };
  }
}

export const salesQueryOptions = (orgId: number, filters: SalesFilters) =>
  queryOptions({
    queryKey: stockJournalKeys.sales(orgId, filters),
    queryFn: () => getSales(orgId, filters),
  });

/**
 * The sales query runs only when both dates are set and the organisation has the feature
 * (docs/product/features.md §5).
 */
export function useSales(orgId: number | null, filters: SalesFilters, enabled: boolean) {
  return useQuery({
    ...salesQueryOptions(orgId ?? 0, filters),
    enabled:
      enabled &&
      orgId !== null &&
      Boolean(filters.fromDate) &&
      Boolean(filters.toDate) &&
      filters.fromDate <= filters.toDate,
    // Keep the weeks on screen while another range loads, so the list does not flash empty.
    placeholderData: (previous) => previous,
  });
}
