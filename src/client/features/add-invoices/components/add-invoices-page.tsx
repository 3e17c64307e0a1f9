import { useQueryClient } from '@tanstack/react-query';
import { RefreshCw, TriangleAlert } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import {
  DEFAULT_DRAFT_SORT,
  applyProcessedRows,
  buildCreateRequest,
  buildUpdateItems,
  canProcessNewInvoice,
  createDraftInvoiceRow,
  createNewInvoiceForm,
  needsZeroAmountConfirmation,
  sortDraftInvoices,
  toggleDraftSort,
  validateDraftInvoiceRow,
  validateNewInvoice,
  validateProcessAll,
  type DraftInvoice,
  type DraftInvoiceRow,
  type DraftInvoiceUpdateItem,
  type DraftSort,
  type NewInvoiceForm,
} from '@/shared/add-invoices';
import { formatCount } from '@/shared/counts';
import { getUkToday } from '@/shared/dates';
import { findDefaultNamedIn } from '@/shared/required-defaults-rules';
import { formatPounds, fromPence, toPence } from '@/shared/money';
import { paths } from '@/client/config/paths';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { FeatureDisabledState, NotConnectedState } from '@/client/components/state-card';
import { Button } from '@/client/components/ui/button';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { isConflict, isFeatureDisabled, isNotConnected } from '@/client/lib/api-errors';
import { useConnection, type Connection } from '@/client/lib/connection';
import { MissingDefaultsNotice } from '@/client/components/xero/missing-defaults-notice';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { queryKeys } from '@/client/lib/query-client';
import { RedoDeclined } from '@/client/lib/redo-warning';
import { toast } from '@/client/lib/toast';
import { useCreateDraftInvoice } from '../api/create-draft-invoice';
import { getDraftInvoices, useDraftInvoices } from '../api/get-draft-invoices';
import { useNewInvoiceDefaults } from '../api/get-new-invoice-defaults';
import { useUnfinishedActions } from '../api/get-unfinished-actions';
import { addInvoicesKeys } from '../api/query-keys';
import { useUpdateDraftInvoices } from '../api/update-draft-invoices';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { DraftInvoiceCards } from './draft-invoice-cards';
import { DraftInvoicesTable } from './draft-invoices-table';
import {
  ProcessAllProgressBar,
  ProcessAllSummaryPanel,
  type ProcessAllProgress,
  type ProcessAllSummary,
} from './process-all-status';
import { ZeroAmountDialog } from './zero-amount-dialog';

/** docs/product/features.md §2: the header is one line, "{title} - {subtitle}". */
export const ADD_INVOICES_HEADER = 'Add Invoices - Add cash sales and approve draft invoices';
const [HEADER_TITLE, HEADER_SUBTITLE] = ADD_INVOICES_HEADER.split(' - ') as [string, string];

/**
 * Rows per Process All request. One request already batches its approvals and payments into one Xero call
 * each (up to 50); 25 per request lets the progress bar move on a long list for 2 extra Xero calls per 50.
 */
export const PROCESS_ALL_BATCH_SIZE = 25;

type RowEdit = Pick<DraftInvoiceRow, 'cashAmount' | 'approve'>;

/** One clear message for an invoice Xero approved whose cash payment was not recorded (issue 17 item 3). */
export function describeApprovedCashFailed(invoiceNumber: string, cashAmount: number, currency: string) {
  const cash =
    cashAmount > 0 ? `its cash payment of ${formatPounds(cashAmount, currency)}` : 'its cash payment';
  return {
    title: 'Approved, Cash Not Recorded',
    description: `${invoiceNumber} was approved in Xero, but ${cash} was not recorded. Pay it on Pay Invoices, where the invoice is now waiting.`,
  };
}

/** docs/product/features.md §2 Add Invoices: no connection. */
function AddInvoicesNotConnectedState() {
  return (
    <NotConnectedState
      description="You need to connect to Xero before managing draft invoices."
      connectHref={paths.organizations.getHref()}
    />
  );
}

/** docs/product/features.md §2 Add Invoices: the flag is off. */
function AddInvoicesDisabledState() {
  return <FeatureDisabledState title="Add Invoices is not available" />;
}

/**
 * Add Invoices (docs/product/features.md §2): the connection is refreshed on entry; without one, or with the
 * feature off, the screen says so; otherwise the draft invoices table with the New Invoice row and Process
 * All.
 */
export function AddInvoicesPage() {
  const queryClient = useQueryClient();
  const { data: connection, isLoading } = useConnection();
  const { flags, isLoading: flagsLoading } = useFeatureFlags();

  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
  }, [queryClient]);

  if (isLoading || !connection) return <PageSpinner label="Checking the Xero connection" />;
  if (!connection.connected || connection.organizationId === null) return <AddInvoicesNotConnectedState />;
  if (!flagsLoading && !flags['add-invoices']) return <AddInvoicesDisabledState />;
  return (
    <DraftInvoicesScreen
      key={connection.organizationId}
      connection={connection}
      orgId={connection.organizationId}
    />
  );
}

function DraftInvoicesScreen({ connection, orgId }: { connection: Connection; orgId: number }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const drafts = useDraftInvoices(orgId);
  const unfinished = useUnfinishedActions(orgId);
  const defaults = useNewInvoiceDefaults(orgId, [
    connection.defaultContactId,
    connection.defaultSalesAccountId,
    connection.defaultCashAccountId,
    connection.defaultVatRateId,
  ]);
  const [edits, setEdits] = useState<Record<string, RowEdit>>({});
  const [processingIds, setProcessingIds] = useState<ReadonlySet<string>>(new Set());
  const [sort, setSort] = useState<DraftSort>(DEFAULT_DRAFT_SORT);
  const [confirmRowId, setConfirmRowId] = useState<string | null>(null);
  const [progress, setProgress] = useState<ProcessAllProgress | null>(null);
  const [summary, setSummary] = useState<ProcessAllSummary | null>(null);
  const [form, setForm] = useState<NewInvoiceForm>(() => createNewInvoiceForm(getUkToday()));
  const createMutation = useCreateDraftInvoice(orgId);
  const updateMutation = useUpdateDraftInvoices(orgId);
  const creating = createMutation.isPending;
  const [refreshing, setRefreshing] = useState(false);
  const narrow = useNarrowScreen();
  const DraftInvoicesView = narrow ? DraftInvoiceCards : DraftInvoicesTable;

  const rows = useMemo(
    () =>
      sortDraftInvoices(
        (drafts.data ?? []).map((d) => ({
          ...createDraftInvoiceRow(d),
          ...edits[d.id],
          processing: processingIds.has(d.id),
        })),
        sort,
      ),
    [drafts.data, edits, processingIds, sort],
  );

  // docs/product/features.md §8 "loading drafts fails: 'Error' / 'Failed to load draft invoices from Xero'"
  // (once per failure).
  const reportedError = useRef<unknown>(null);
  useEffect(() => {
    if (!drafts.error || reportedError.current === drafts.error) return;
    reportedError.current = drafts.error;
    if (isFeatureDisabled(drafts.error) || isNotConnected(drafts.error)) return;
    toast({ title: 'Error', description: 'Failed to load draft invoices from Xero', variant: 'destructive' });
  }, [drafts.error]);

  if (drafts.error && isFeatureDisabled(drafts.error)) return <AddInvoicesDisabledState />;
  if (drafts.error && isNotConnected(drafts.error)) return <AddInvoicesNotConnectedState />;

  const busy = progress !== null;
  const draftsKey = addInvoicesKeys.drafts(orgId);

  /** docs/product/features.md §4: re-fetch with refresh (the server asks Xero for what changed). */
  async function refetchWithRefresh(): Promise<boolean> {
    void queryClient.invalidateQueries({ queryKey: addInvoicesKeys.unfinished(orgId) });
    try {
      await queryClient.fetchQuery({
        queryKey: draftsKey,
        queryFn: () => getDraftInvoices(orgId, { refresh: true }),
        staleTime: 0,
      });
      return true;
    } catch {
      toast({
        title: 'Error',
        description: 'Failed to load draft invoices from Xero',
        variant: 'destructive',
      });
      return false;
    }
  }

  async function refreshInvoices() {
    setRefreshing(true);
    const ok = await refetchWithRefresh();
    setRefreshing(false);
    if (ok)
      toast({
        title: 'Invoices Refreshed',
        description: 'Latest draft invoices from Xero have been loaded',
        variant: 'success',
      });
  }

  /** After a refused approval: reads the drafts again and says whether the invoice has left them (Xero approved it). */
  async function leftTheDrafts(id: string): Promise<boolean> {
    try {
      const fresh = await queryClient.fetchQuery({
        queryKey: draftsKey,
        queryFn: () => getDraftInvoices(orgId, { refresh: true }),
        staleTime: 0,
      });
      return !fresh.some((d) => d.id === id);
    } catch {
      return false;
    }
  }

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

  function changeApprove(row: DraftInvoiceRow, checked: boolean) {
    // docs/product/features.md §4: approving with zero or empty cash asks first. Pending cash is paid on
    // approval, so then it is not £0.
    if (checked && needsZeroAmountConfirmation(row.cashAmount) && row.pendingCashAmount <= 0) {
      setConfirmRowId(row.id);
      return;
    }
    setEdit(row.id, { approve: checked });
  }

  function approveAll(checked: boolean) {
    // docs/product/features.md §4: "The header checkbox sets approve for all rows without confirmation."
    setEdits((prev) => {
      const next = { ...prev };
      for (const row of rows) next[row.id] = { cashAmount: row.cashAmount, approve: checked };
      return next;
    });
  }

  /** "Open Settings" at the default a refusal names (issue 33 item 6), for its toast. */
  function openSettingsFor(message: string) {
    const named = findDefaultNamedIn('add-invoices', message);
    if (!named) return {};
    return {
      action: {
        label: 'Open Settings',
        altText: `Open Settings at the ${named.label}`,
        onAction: () => navigate(paths.settings.getHref(orgId, undefined, named.field)),
      },
    };
  }

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

  async function createInvoice() {
    const invalid = validateNewInvoice(form);
    if (invalid) {
      toast({ ...invalid, variant: 'destructive' });
      return;
    }
    const body = buildCreateRequest(form);
    if (!body) return;
    try {
      const result = await createMutation.mutateAsync(body);
      toast({
        title: 'Invoice Created',
        description: `Invoice ${result.invoiceNumber} was created in Xero${body.approve ? ' and approved' : ' as a draft'}.`,
        variant: 'success',
      });
      if (result.warning)
        toast({
          title: 'Cash payment not recorded',
          description: result.warning,
          variant: 'warning',
          duration: 10_000,
        });
      setForm(createNewInvoiceForm(getUkToday()));
      await refetchWithRefresh();
    } catch (error) {
      // The person chose not to make it again after the redo warning (issue 44): nothing was sent.
      if (error instanceof RedoDeclined) {
        toast({ title: 'Invoice not created', description: error.message, variant: 'info' });
        return;
      }
      const text = getMessage(error, 'Failed to create the invoice');
      toast({
        title: 'Error creating invoice',
        description: text,
        variant: 'destructive',
        ...openSettingsFor(text),
      });
    }
  }

  const confirmRow = confirmRowId ? rows.find((r) => r.id === confirmRowId) : undefined;
  const contactName = defaults.data?.contact?.name ?? (connection.defaultContactId ? '' : null);
  const missing = defaults.data?.missing ?? [
    ...(connection.defaultContactId ? [] : ['Default Contact']),
    ...(connection.defaultSalesAccountId ? [] : ['Default Sales Account']),
  ];
  const canCreate = canProcessNewInvoice({
    defaultContactId: connection.defaultContactId,
    defaultSalesAccountId: connection.defaultSalesAccountId,
    date: form.date,
    totalAmount: form.totalAmount,
  });

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <h1 className="text-2xl font-semibold tracking-tight">
          {HEADER_TITLE} <span className="hidden font-normal text-muted-foreground sm:inline">-</span>{' '}
          <span className="mt-1 block text-base font-normal text-muted-foreground sm:mt-0 sm:inline">
            {HEADER_SUBTITLE}
          </span>
        </h1>
        <Button
          variant="outline"
          onClick={() => void refreshInvoices()}
          disabled={refreshing || busy || drafts.isLoading}
        >
          <RefreshCw aria-hidden className={refreshing ? 'animate-spin' : undefined} />
          Refresh Invoices
        </Button>
      </div>

      <MissingDefaultsNotice feature="add-invoices" defaults={connection} organizationId={orgId} />

      {unfinished.data && unfinished.data.length > 0 ? (
        <Alert variant="warning">
          <TriangleAlert aria-hidden />
          <div>
            <AlertTitle>Changes Ledgerlink could not finish</AlertTitle>
            <AlertDescription>
              <ul className="list-disc space-y-1 pl-4">
                {unfinished.data.map((u) => (
                  <li key={u.writeId}>{u.message}</li>
                ))}
              </ul>
            </AlertDescription>
          </div>
        </Alert>
      ) : null}

      {drafts.isLoading ? (
        <PageSpinner label="Loading draft invoices" />
      ) : drafts.isError && !drafts.data ? (
        <Alert variant="destructive">
          <TriangleAlert aria-hidden />
          <div className="flex-1">
            <AlertTitle>Error</AlertTitle>
            <AlertDescription>Failed to load draft invoices from Xero</AlertDescription>
          </div>
          <Button size="sm" variant="outline" onClick={() => void drafts.refetch()}>
            Try again
          </Button>
        </Alert>
      ) : (
        <>
          <DraftInvoicesView
            rows={rows}
            sort={sort}
            onSort={(column) => setSort((s) => toggleDraftSort(s, column))}
            onCashChange={(id, text) => setEdit(id, { cashAmount: text })}
            onApproveChange={changeApprove}
            onApproveAll={approveAll}
            onProcess={(row) => void processRow(row)}
            busy={busy}
            newInvoice={{
              form,
              onChange: (patch) => setForm((f) => ({ ...f, ...patch })),
              contactName,
              missing,
              organizationId: orgId,
              canProcess: canCreate,
              creating,
              onCreate: () => void createInvoice(),
            }}
          />
          <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-end">
            {progress ? (
              <div className="sm:mr-auto sm:w-80">
                <ProcessAllProgressBar progress={progress} />
              </div>
            ) : null}
            <Button
              onClick={() => void processAll()}
              disabled={busy || rows.length === 0}
              className="sm:min-w-36"
            >
              {busy ? <Spinner className="size-4 text-current" label="Processing invoices" /> : null}
              Process All
            </Button>
          </div>
          {summary ? <ProcessAllSummaryPanel summary={summary} onDismiss={() => setSummary(null)} /> : null}
        </>
      )}

      <ZeroAmountDialog
        invoiceNumber={confirmRow ? confirmRow.invoiceNumber || confirmRow.id : null}
        onCancel={() => setConfirmRowId(null)}
        onConfirm={() => {
          if (confirmRowId) setEdit(confirmRowId, { approve: true });
          setConfirmRowId(null);
        }}
      />
    </div>
  );
}
