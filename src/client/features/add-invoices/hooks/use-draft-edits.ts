import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import {
  applyProcessedRows,
  createDraftInvoiceRow,
  sortDraftInvoices,
  type DraftInvoice,
  type DraftInvoiceRow,
  type DraftInvoiceUpdateItem,
  type DraftSort,
} from '@/shared/add-invoices';
import { fromPence, toPence } from '@/shared/money';
import { addInvoicesKeys } from '../api/query-keys';

type RowEdit = Pick<DraftInvoiceRow, 'cashAmount' | 'approve'>;

/**
 * What the Add Invoices screen keeps of its drafts while a person works on them (docs/product/features.md §4):
 * each row's typed cash and approve box, which rows are being processed, the rows in the chosen order, and a
 * processed change applied to the cached list.
 */
export function useDraftEdits(orgId: number, drafts: DraftInvoice[] | undefined, sort: DraftSort) {
  const queryClient = useQueryClient();
  const draftsKey = addInvoicesKeys.drafts(orgId);
  const [edits, setEdits] = useState<Record<string, RowEdit>>({});
  const [processingIds, setProcessingIds] = useState<ReadonlySet<string>>(new Set());

  const rows = useMemo(
    () =>
      sortDraftInvoices(
        (drafts ?? []).map((d) => ({
          ...createDraftInvoiceRow(d),
          ...edits[d.id],
          processing: processingIds.has(d.id),
        })),
        sort,
      ),
    [drafts, edits, processingIds, sort],
  );

  function setEdit(id: string, patch: Partial<RowEdit>) {
    setEdits((prev) => {
      const current = prev[id] ?? { cashAmount: '', approve: false };
      return { ...prev, [id]: { ...current, ...patch } };
    });
  }

  function markProcessing(ids: readonly string[], on: boolean) {
    setProcessingIds((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }

  /**
   * docs/product/features.md §4 after a successful process: an approved invoice leaves the list; one not
   * approved keeps its place with cash cleared, and its cash now shows as pending.
   */
  function applyProcessed(items: readonly DraftInvoiceUpdateItem[]) {
    const done = new Set(items.map((i) => i.id));
    const byId = new Map(items.map((i) => [i.id, i]));
    queryClient.setQueryData<DraftInvoice[]>(draftsKey, (old) => {
      if (!old) return old;
      const kept = applyProcessedRows(
        old.map((d) => ({ ...createDraftInvoiceRow(d), approve: byId.get(d.id)?.approve ?? false })),
        done,
      );
      const keptIds = new Set(kept.map((r) => r.id));
      return old
        .filter((d) => keptIds.has(d.id))
        .map((d) => {
          const item = byId.get(d.id);
          if (!item || item.approve) return d;
          return {
            ...d,
            pendingCashAmount: fromPence(toPence(d.pendingCashAmount) + toPence(item.cashAmount)),
          };
        });
    });
    setEdits((prev) => {
      const next = { ...prev };
      for (const id of done) delete next[id];
      return next;
    });
  }

  function approveAll(checked: boolean) {
    // docs/product/features.md §4: "The header checkbox sets approve for all rows without confirmation."
    setEdits((prev) => {
      const next = { ...prev };
      for (const row of rows) next[row.id] = { cashAmount: row.cashAmount, approve: checked };
      return next;
    });
  }

  return { rows, setEdit, markProcessing, applyProcessed, approveAll };
}
