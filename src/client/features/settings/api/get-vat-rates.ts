import { useQuery } from '@tanstack/react-query';
import { vatRatesResponseSchema, type VatRate } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/vat-rates';

/** GET /api/xero/vat-rates (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getVatRates(orgId: OrgId, refresh = false): Promise<VatRate[]> {
  return fetchReferenceList(PATH, vatRatesResponseSchema, orgId, refresh);
}

export const vatRatesQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<VatRate>('vat-rates', PATH, vatRatesResponseSchema, orgId);

export function useVatRates(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...vatRatesQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
