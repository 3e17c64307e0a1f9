import type { QueryClient } from '@tanstack/react-query';
import { isInvoiceAwaitingPayment, type Invoice } from '@/shared/pay-invoices';
import { payInvoicesKeys } from '../api/query-keys';

/**
 * Puts a freshly read invoice into the cached list without asking the server for the whole list again: the
 * row is replaced, or dropped once it no longer awaits payment (docs/product/features.md §4).
 */
export function updateInvoiceInList(
  queryClient: QueryClient,
  orgId: number,
  invoiceId: string,
  invoice: Invoice | null,
): void {
  queryClient.setQueryData<Invoice[]>(payInvoicesKeys.invoices(orgId), (list) => {
    if (!list) return list;
    const keep = invoice && isInvoiceAwaitingPayment(invoice);
    const next: Invoice[] = [];
    let found = false;
    for (const item of list) {
      if (item.invoiceId !== invoiceId) next.push(item);
      else {
        found = true;
        // The list carries the attachment placeholder; a refreshed invoice keeps what the list knew.
        if (keep)
          next.push({
            ...invoice,
            attachments: invoice.attachments.length > 0 ? invoice.attachments : item.attachments,
          });
      }
    }
    if (!found && keep) next.push(invoice);
    return next;
  });
}
