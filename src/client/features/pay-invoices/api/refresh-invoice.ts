import { invoiceRefreshResultSchema, type InvoiceRefreshResult } from '@/shared/pay-invoices';
import { api, isApiError } from '@/client/lib/api-client';
import { sleep } from '@/client/lib/utils';
import { orgUrl } from '@/client/lib/org-url';

/** docs/product/features.md §8 thrown messages. */
export const REFRESH_AUTH_MESSAGE = 'Authentication required before refreshing invoice data';
export const REFRESH_GAVE_UP_MESSAGE = 'Could not refresh invoice after multiple attempts';
export const REFRESH_ATTEMPTS = 3;
const REFRESH_RETRY_DELAY_MS = 1000;

/** GET /api/xero/invoices/{id}?refresh=true (docs/product/features.md §7 single-invoice refresh). */
export function getRefreshedInvoice(orgId: number, invoiceId: string): Promise<InvoiceRefreshResult> {
  return api.get(orgUrl(`/api/xero/invoices/${encodeURIComponent(invoiceId)}`, orgId, { refresh: 'true' }), {
    schema: invoiceRefreshResultSchema,
  });
}

/** POST /api/xero/invoices/refresh {invoiceId}: the single-invoice fallback (docs/product/features.md §7). */
export function refreshInvoiceFallback(orgId: number, invoiceId: string): Promise<InvoiceRefreshResult> {
  return api.post(
    orgUrl('/api/xero/invoices/refresh', orgId),
    { invoiceId },
    { schema: invoiceRefreshResultSchema },
  );
}

/**
 * Re-reads one invoice from Xero: the refresh call, then the fallback, a few times over. A 401 stops at once
 * with 'Authentication required before refreshing invoice data'; giving up throws 'Could not refresh invoice
 * after multiple attempts' (docs/product/features.md §8). A 404 is final too: the invoice is gone.
 */
export async function refreshInvoice(
  orgId: number,
  invoiceId: string,
  attempts = REFRESH_ATTEMPTS,
): Promise<InvoiceRefreshResult> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    for (const read of [getRefreshedInvoice, refreshInvoiceFallback]) {
      try {
        return await read(orgId, invoiceId);
      } catch (error) {
        if (isApiError(error) && error.status === 401)
          throw new Error(REFRESH_AUTH_MESSAGE, { cause: error });
        if (isApiError(error) && (error.status === 404 || error.status === 403)) throw error;
        lastError = error;
      }
    }
    if (attempt + 1 < attempts) await sleep(REFRESH_RETRY_DELAY_MS * (attempt + 1));
  }
  throw new Error(REFRESH_GAVE_UP_MESSAGE, { cause: lastError });
}
