import type { InvoiceSyncProgress } from './context';
import type { xeroSyncState } from '../../db/schema/index';

/**
 * The slices of Xero's invoices each screen needs. A view's first sync asks only for its statuses
 * (Pay Invoices: AUTHORISED sales invoices, 5 pages of 1,000 for 5,000 outstanding); later syncs ask for
 * every invoice of its type changed since the view's high-water mark, whatever its status, so an
 * invoice that was paid, approved, voided or deleted meanwhile is updated too. All views share one table.
 */
export type InvoiceView =
  | { key: 'sales-open' }
  | { key: 'sales-draft' }
  | { key: 'bills-draft' }
  | { key: 'bills-paid' }
  | { key: 'sales-contact'; contactId: string };

export function describeView(view: InvoiceView) {
  switch (view.key) {
    case 'sales-open':
      return {
        resource: 'invoices:sales-open',
        type: 'ACCREC',
        initialStatuses: ['AUTHORISED'],
        contactId: undefined,
        summaryOnly: true,
      };
    case 'sales-draft':
      return {
        resource: 'invoices:sales-draft',
        type: 'ACCREC',
        initialStatuses: ['DRAFT'],
        contactId: undefined,
        summaryOnly: true,
      };
    case 'bills-draft':
      return {
        resource: 'invoices:bills-draft',
        type: 'ACCPAY',
        initialStatuses: ['DRAFT'],
        contactId: undefined,
        // CIS Bills edits and approves the draft bills' lines: they are read whole.
        summaryOnly: false,
      };
    case 'bills-paid':
      return {
        resource: 'invoices:bills-paid',
        type: 'ACCPAY',
        // The CIS month-end (issue 29) counts payments on approved bills: their payments, lines (materials) and
        // Xero's CIS deduction are read whole. Later syncs bring every bill changed since, paid or not.
        initialStatuses: ['AUTHORISED', 'PAID'],
        contactId: undefined,
        summaryOnly: false,
      };
    case 'sales-contact':
      return {
        resource: `invoices:contact:${view.contactId}`,
        type: 'ACCREC',
        initialStatuses: ['AUTHORISED', 'PAID'],
        contactId: view.contactId,
        summaryOnly: true,
      };
  }
}

export type SyncStateRow = typeof xeroSyncState.$inferSelect;

/** Complete: read whole once, and no read of the whole view left unfinished since (a crash, a forced refresh). */
export function isComplete(state: SyncStateRow | null): boolean {
  return Boolean(state?.lastSyncAt) && state?.initialReadAt === null;
}

export function describeProgress(state: SyncStateRow | null): InvoiceSyncProgress {
  if (state && isComplete(state))
    return { complete: true, fetched: state.itemsRead, total: state.itemsTotal ?? state.itemsRead };
  return { complete: false, fetched: state?.itemsRead ?? 0, total: state?.itemsTotal ?? null };
}
