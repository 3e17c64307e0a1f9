import { queryOptions, useQuery } from '@tanstack/react-query';
import { customersResponseSchema, type Customer } from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { stockJournalKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

/** Customers are cached 5 minutes with 3 retries (docs/product/features.md §7, §9). */
export const CUSTOMERS_STALE_MS = 5 * 60_000;
export const CUSTOMERS_RETRIES = 3;

/** GET /api/xero/customers (docs/product/features.md §7): the customer contacts, sorted by name. */
export function getCustomers(orgId: number): Promise<Customer[]> {
  return api.get(orgUrl('/api/xero/customers', orgId), { schema: customersResponseSchema });
}

export const customersQueryOptions = (orgId: number) =>
  queryOptions({
    queryKey: stockJournalKeys.customers(orgId),
    queryFn: () => getCustomers(orgId),
    staleTime: CUSTOMERS_STALE_MS,
    retry: CUSTOMERS_RETRIES,
  });

export function useCustomers(orgId: number | null, enabled: boolean) {
  return useQuery({ ...customersQueryOptions(orgId ?? 0), enabled: enabled && orgId !== null });
}
