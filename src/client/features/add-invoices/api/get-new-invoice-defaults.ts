import { queryOptions, useQuery } from '@tanstack/react-query';
import { newInvoiceDefaultsSchema, type NewInvoiceDefaults } from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { addInvoicesKeys } from './query-keys';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

/** GET /api/xero/draft-invoices/defaults: the names of the defaults the New Invoice row uses. */
export function getNewInvoiceDefaults(orgId: OrgId): Promise<NewInvoiceDefaults> {
  return api.get(orgUrl('/api/xero/draft-invoices/defaults', orgId), {
    schema: newInvoiceDefaultsSchema,
  });
}

/**
 * Keyed on the default ids too, so a change saved in Settings shows at once. A failure only hides the
 * names (the row falls back to "not set"), so it is not retried.
 */
export const newInvoiceDefaultsQueryOptions = (orgId: OrgId, ids: readonly string[]) =>
  queryOptions({
    queryKey: [...addInvoicesKeys.defaults(orgId), ids] as const,
    queryFn: () => getNewInvoiceDefaults(orgId),
    staleTime: 5 * 60 * 1000,
  });

export function useNewInvoiceDefaults(orgId: OrgId | undefined, ids: readonly string[]) {
  return useQuery({ ...newInvoiceDefaultsQueryOptions(orgId ?? 'none', ids), enabled: orgId !== undefined });
}
