import { useState } from 'react';
import {
  buildUpdateItems,
  validateDraftInvoiceRow,
  validateProcessAll,
  type DraftInvoiceRow,
  type DraftInvoiceUpdateItem,
} from '@/shared/add-invoices';
import { formatCount } from '@/shared/counts';
import { formatPounds } from '@/shared/money';
import { getMessage } from '@/client/lib/api-client';
import { isConflict } from '@/client/lib/api-errors';
import { toast, type ToastAction } from '@/client/lib/toast';
import { useUpdateDraftInvoices } from '../api/update-draft-invoices';
import type { ProcessAllProgress, ProcessAllSummary } from '../components/process-all-status';

/**
 * Rows per Process All request. One request already batches its approvals and payments into one Xero call
 * each (up to 50); 25 per request lets the progress bar move on a long list for 2 extra Xero calls per 50.
 */
export const PROCESS_ALL_BATCH_SIZE = 25;

/** One clear message for an invoice Xero approved whose cash payment was not recorded (issue 17 item 3). */
export function describeApprovedCashFailed(invoiceNumber: string, cashAmount: number, currency: string) {
  const cash =
    cashAmount > 0 ? `its cash payment of ${formatPounds(cashAmount, currency)}` : 'its cash payment';
  return {
    title: 'Approved, Cash Not Recorded',
    description: `${invoiceNumber} was approved in Xero, but ${cash} was not recorded. Pay it on Pay Invoices, where the invoice is now waiting.`,
  };
}

/**
 * Processing drafts on the Add Invoices screen (docs/product/features.md §4): one row's Process, and Process
 * All in batches with its progress and summary; each outcome told in a toast, the list read again when Xero
 * may have changed it.
 */
export function useDraftProcessing({
  orgId,
  rows,
  markProcessing,
  applyProcessed,
  refetchWithRefresh,
  leftTheDrafts,
  openSettingsFor,
}: {
  orgId: number;
  rows: DraftInvoiceRow[];
  markProcessing: (ids: readonly string[], on: boolean) => void;
  applyProcessed: (items: readonly DraftInvoiceUpdateItem[]) => void;
  refetchWithRefresh: () => Promise<boolean>;
  leftTheDrafts: (id: string) => Promise<boolean>;
  openSettingsFor: (message: string) => { action?: ToastAction };
}) {
  const [progress, setProgress] = useState<ProcessAllProgress | null>(null);
  const [summary, setSummary] = useState<ProcessAllSummary | null>(null);
  const updateMutation = useUpdateDraftInvoices(orgId);

  async function processRow(row: DraftInvoiceRow) {
    const invalid = validateDraftInvoiceRow(row);
    if (invalid) {
      toast({ ...invalid, variant: 'destructive' });
      return;
    }
    const items = buildUpdateItems([row]);
    markProcessing([row.id], true);
    try {
      const result = await updateMutation.mutateAsync({ invoices: items });
      const failure = result.failed.find((f) => f.id === row.id);
      if (failure?.approved) {
        // The server says Xero approved it and how its cash failed (issue 17 item 3): its one message, the row leaves.
        await leftTheDrafts(row.id);
        toast({
          title:
            failure.cashOutcome === 'unconfirmed'
              ? 'Approved, Cash Not Confirmed'
              : 'Approved, Cash Not Recorded',
          description: failure.message,
          variant: 'warning',
          duration: 10_000,
        });
      } else if (failure && row.approve && (await leftTheDrafts(row.id))) {
        // Xero approved it, then the cash failed: the invoice is no longer a draft (issue 17 item 3).
        toast({
          ...describeApprovedCashFailed(
            row.invoiceNumber,
            (items[0]?.cashAmount ?? 0) + row.pendingCashAmount,
            row.currency,
          ),
          variant: 'warning',
          duration: 10_000,
        });
      } else if (failure) {
        toast({
          title: 'Error processing invoice',
          description: failure.message,
          variant: 'destructive',
          ...openSettingsFor(failure.message),
        });
      } else {
        applyProcessed(items);
        toast({
          title: row.approve ? 'Invoice Approved' : 'Cash Amount Saved',
          description: row.approve
            ? `${row.invoiceNumber} was approved in Xero${items[0] && items[0].cashAmount + row.pendingCashAmount > 0 ? ' and its cash payment recorded' : ''}.`
            : `The cash amount for ${row.invoiceNumber} is kept and will be paid when the invoice is approved here.`,
          variant: 'success',
        });
      }
    } catch (error) {
      if (isConflict(error)) {
        // Someone else acted on this draft first: say who and what, and show the list as it is now. What
        // was typed stays, to be applied again if it still makes sense.
        toast({
          title: 'Changed by someone else',
          description: getMessage(error, 'This invoice was changed by someone else. Refresh the list.'),
          variant: 'warning',
          duration: 10_000,
        });
        await refetchWithRefresh();
      } else {
        const text = getMessage(error, 'Failed to process the invoice');
        toast({
          title: 'Error processing invoice',
          description: text,
          variant: 'destructive',
          ...openSettingsFor(text),
        });
      }
    } finally {
      markProcessing([row.id], false);
    }
  }

  async function processAll() {
    const invalid = validateProcessAll(rows);
    if (invalid) {
      toast({ ...invalid, variant: 'destructive' });
      return;
    }
    const items = buildUpdateItems(rows);
    const numberOf = new Map(rows.map((r) => [r.id, r.invoiceNumber || r.id]));
    const succeeded: DraftInvoiceUpdateItem[] = [];
    const failed: ProcessAllSummary['failed'] = [];
    setSummary(null);
    setProgress({ done: 0, total: items.length });
    markProcessing(
      items.map((i) => i.id),
      true,
    );
    for (let start = 0; start < items.length; start += PROCESS_ALL_BATCH_SIZE) {
      const batch = items.slice(start, start + PROCESS_ALL_BATCH_SIZE);
      try {
        const result = await updateMutation.mutateAsync({ invoices: batch, processAll: true });
        const failedIds = new Map(result.failed.map((f) => [f.id, f.message]));
        for (const item of batch) {
          const message = failedIds.get(item.id);
          if (message === undefined) succeeded.push(item);
          else failed.push({ invoiceNumber: numberOf.get(item.id) ?? item.id, message });
        }
      } catch (error) {
        const message = getMessage(error, 'Failed to save changes');
        for (const item of batch) failed.push({ invoiceNumber: numberOf.get(item.id) ?? item.id, message });
      }
      setProgress({ done: Math.min(items.length, start + batch.length), total: items.length });
    }
    applyProcessed(succeeded);
    markProcessing(
      items.map((i) => i.id),
      false,
    );
    setProgress(null);
    setSummary({
      approved: succeeded.filter((i) => i.approve).map((i) => numberOf.get(i.id) ?? i.id),
      cashKept: succeeded.filter((i) => !i.approve).map((i) => numberOf.get(i.id) ?? i.id),
      failed,
    });
    if (failed.length === 0) {
      toast({
        title: 'Invoices Processed',
        description: `Processed ${formatCount(succeeded.length, 'invoice')}.`,
        variant: 'success',
      });
    } else {
      const first = failed[0];
      toast({
        title: 'Error saving changes',
        description:
          failed.length === 1 && first
            ? `${first.invoiceNumber}: ${first.message}`
            : `${failed.length} of ${formatCount(items.length, 'invoice')} could not be processed. See the summary below the table.`,
        variant: 'destructive',
        ...openSettingsFor(failed.every((f) => f.message === first?.message) ? (first?.message ?? '') : ''),
      });
    }
    // A failed approval may still have been applied (approved, then the cash failed): read the list again.
    if (succeeded.length > 0 || failed.length > 0) await refetchWithRefresh();
  }

  return { processRow, processAll, progress, summary, setSummary };
}
