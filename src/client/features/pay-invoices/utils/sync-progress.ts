/**
 * What the Pay Invoices screen says while the server is still reading a first visit's invoices from Xero (issue
 * 19): the progress line, and the mark beside counts that only cover the invoices in so far.
 */
import type { InvoiceSyncStatus } from '@/shared/pay-invoices';

export const PARTIAL_MARK = '(so far)';
export const PARTIAL_NOTE = 'Search, sort and counts cover only the invoices loaded so far.';

const count = (n: number) => n.toLocaleString('en-GB');

/** "Loading invoices from Xero: 1,000 of 5,048", or "… 1,000 so far" until Xero has said how many. */
export function describeSyncProgress(sync: InvoiceSyncStatus): string {
  const of = sync.total === null ? ' so far' : ` of ${count(Math.max(sync.total, sync.fetched))}`;
  return `Loading invoices from Xero: ${count(sync.fetched)}${of}`;
}

/** A count, marked as partial while the list is. */
export function markPartial(text: string, sync: InvoiceSyncStatus): string {
  return sync.complete ? text : `${text} ${PARTIAL_MARK}`;
}
