/**
 * What the Stock Journal feature needs from Xero, in our vocabulary: manual journals (pence, ISO dates,
 * statuses) and the sales invoices of every customer over a range. The HTTP implementation is in
 * `xero-http/stock-journal.ts`; unit tests pass a small in-memory fake.
 */
import type { XeroContext } from './xero-port';

/** Xero's ManualJournal statuses (docs/xero-api.md §4.7). */
export type JournalStatus = 'DRAFT' | 'POSTED' | 'DELETED' | 'VOIDED' | 'ARCHIVED';

/** A manual journal as Xero holds it. */
export interface Journal {
  journalId: string;
  narration: string | null;
  /** ISO date (yyyy-mm-dd) the journal is dated at. */
  date: string | null;
  /** Xero's status, upper case; an unknown one passes through as Xero wrote it. */
  status: string;
  /** When Xero last changed it (If-Modified-Since high-water). */
  updatedAt: Date | null;
  /** The debit side, in pence. */
  debitPence: number;
}

/** A stock transfer journal to create: debit the cost account, credit the stock account, `amountPence` each. */
export interface StockTransferJournal {
  narration: string;
  /** ISO date the journal is dated at. */
  date: string;
  status: 'DRAFT' | 'POSTED';
  amountPence: number;
  /** Xero account id (GUID) or code. */
  costAccountId: string;
  stockAccountId: string;
  costDescription: string;
  stockDescription: string;
}

/** One approved sales invoice as the weekly grouping takes it: Xero's own figures, in pence. */
export interface SaleInvoice {
  invoiceNumber: string | null;
  contactName: string | null;
  date: string;
  totalPence: number;
  totalTaxPence: number;
  subTotalPence: number;
}

/** A journal still counts (records its transfer) unless deleted or voided in Xero. */
export function isLiveJournal(journal: Pick<Journal, 'status'>): boolean {
  return journal.status !== 'DELETED' && journal.status !== 'VOIDED';
}

export interface JournalsPort {
  /**
   * Journals Xero changed since `since` (every journal without it), oldest change first, all pages.
   * `notModified` when Xero answered that nothing changed.
   */
  list(ctx: XeroContext, options?: { since?: Date }): Promise<{ journals: Journal[]; notModified: boolean }>;
  /** Journals dated in the range (both ends included), whatever their status. */
  listDated(ctx: XeroContext, fromDate: string, toDate: string): Promise<Journal[]>;
  /** Creates the journal under the idempotency key; the journal as Xero answered it. */
  create(ctx: XeroContext, journal: StockTransferJournal, idempotencyKey: string): Promise<Journal>;
}

export interface SalesPort {
  /** Approved and paid sales invoices of every customer dated in the range (both ends included), oldest first. */
  listInRange(ctx: XeroContext, fromDate: string, toDate: string): Promise<SaleInvoice[]>;
}
