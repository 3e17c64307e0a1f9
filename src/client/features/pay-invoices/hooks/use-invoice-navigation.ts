import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  DEFAULT_INVOICE_SORT,
  findInvoicesToPay,
  type Invoice,
  type InvoiceSort,
} from '@/shared/pay-invoices';
import { EMPTY_FILTERS } from '../components/invoice-filters';

/**
 * Which invoice is on screen (docs/product/features.md §4): the search, sort and filters that make the list,
 * and a place in it. While the list grows (a first visit's pages arriving, issue 19) the same invoice stays on
 * screen wherever the new ones sort; when it leaves the list (paid), the place shows the next one.
 */
export function useInvoiceNavigation(invoices: Invoice[], today: string) {
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<InvoiceSort>(DEFAULT_INVOICE_SORT);
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const [isFilterOpen, setFilterOpen] = useState(false);
  const searchInput = useRef<HTMLInputElement>(null);
  const [place, setPlace] = useState<{ index: number; invoiceId: string | null }>({
    index: 0,
    invoiceId: null,
  });
  const setIndex = useCallback((index: number) => setPlace({ index, invoiceId: null }), []);
  const [focusInvoiceId, setFocusInvoiceId] = useState<string | null>(null);

  const list = useMemo(
    () => findInvoicesToPay(invoices, { search, filters, sort, today }),
    [invoices, search, filters, sort, today],
  );

  // The position goes back to the first invoice when sort, search or filters change
  // (docs/product/features.md §4).
  useEffect(() => setIndex(0), [search, sort, filters, setIndex]);
  // After an Undo, show the invoice the payment came off.
  useEffect(() => {
    if (!focusInvoiceId) return;
    const found = list.findIndex((i) => i.invoiceId === focusInvoiceId);
    if (found >= 0) {
      setPlace({ index: found, invoiceId: focusInvoiceId });
      setFocusInvoiceId(null);
    }
  }, [focusInvoiceId, list]);

  const anchored = useMemo(
    () => (place.invoiceId ? list.findIndex((i) => i.invoiceId === place.invoiceId) : -1),
    [list, place.invoiceId],
  );
  const position = anchored >= 0 ? anchored : Math.min(place.index, Math.max(list.length - 1, 0));
  const invoice = list[position] ?? null;
  const shownId = invoice?.invoiceId ?? null;
  // The invoice on screen becomes the anchor, so the list growing under it does not move the user.
  useEffect(() => {
    if (shownId && shownId !== place.invoiceId) setPlace({ index: position, invoiceId: shownId });
  }, [shownId, place.invoiceId, position]);

  /** Shows the invoice at `target`, kept within the list. */
  const moveTo = useCallback(
    (target: number) => {
      const index = Math.max(0, Math.min(target, list.length - 1));
      setPlace({ index, invoiceId: list[index]?.invoiceId ?? null });
    },
    [list],
  );

  return {
    search,
    setSearch,
    searchInput,
    sort,
    setSort,
    filters,
    setFilters,
    isFilterOpen,
    toggleFilter: () => setFilterOpen((open) => !open),
    clearSearchAndFilters: () => {
      setSearch('');
      setFilters(EMPTY_FILTERS);
    },
    list,
    position,
    invoice,
    next: list[position + 1] ?? null,
    moveTo,
    /** Shows this invoice once the list has it again (after an Undo). */
    showInvoice: setFocusInvoiceId,
  };
}
