import type { JournalStatusFilter } from '@/shared/stock-journal';

/** What the sales query asks for: the filters the server understands. */
export interface SalesFilters {
  /** A contact id, or 'all' (docs/product/features.md §2 "All Customers"). */
  customerId: string;
  fromDate: string;
  toDate: string;
}

/** Everything the screen filters by (docs/product/features.md §2 Filters). */
export interface StockJournalFilters extends SalesFilters {
  /** As typed in the Margin Rate input (placeholder 1.35). */
  marginRate: string;
  journalStatus: JournalStatusFilter;
}

/**
 * Query keys of the Stock Journal: they start with the organisation (docs/code-style.md §2), so an
 * organisation switch never shows another tenant's sales, and the shell's switch invalidation (`['org']`)
 * clears them.
 */
export const stockJournalKeys = {
  all: (orgId: number) => ['org', orgId, 'stock-journal'] as const,
  customers: (orgId: number) => ['org', orgId, 'stock-journal', 'customers'] as const,
  salesAll: (orgId: number) => ['org', orgId, 'stock-journal', 'sales'] as const,
  sales: (orgId: number, filters: SalesFilters) =>
    [
      'org',
      orgId,
      'stock-journal',
      'sales',
      { customerId: filters.customerId, fromDate: filters.fromDate, toDate: filters.toDate },
    ] as const,
  entries: (orgId: number) => ['org', orgId, 'stock-journal', 'entries'] as const,
};
