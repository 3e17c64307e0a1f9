import { forceRefreshResponseSchema, type ForceRefreshResponse } from '@/shared/pay-invoices';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';

/**
 * POST /api/xero/invoices/refresh with no body: Force Refresh (Clear Cache); answers the count
 * (docs/product/features.md §7).
 */
export function forceRefreshInvoices(orgId: number): Promise<ForceRefreshResponse> {
  return api.post(orgUrl('/api/xero/invoices/refresh', orgId), undefined, {
    schema: forceRefreshResponseSchema,
  });
}
