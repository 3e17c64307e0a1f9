import { useQueryClient } from '@tanstack/react-query';
import { RefreshCw, TriangleAlert } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import {
  DEFAULT_DRAFT_SORT,
  buildCreateRequest,
  canProcessNewInvoice,
  createNewInvoiceForm,
  needsZeroAmountConfirmation,
  toggleDraftSort,
  validateNewInvoice,
  type DraftInvoiceRow,
  type DraftSort,
  type NewInvoiceForm,
} from '@/shared/add-invoices';
import { getUkToday } from '@/shared/dates';
import { findDefaultNamedIn } from '@/shared/required-defaults-rules';
import { paths } from '@/client/config/paths';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { FeatureDisabledState, NotConnectedState } from '@/client/components/state-card';
import { Button } from '@/client/components/ui/button';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { isFeatureDisabled, isNotConnected } from '@/client/lib/api-errors';
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
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { DraftInvoiceCards } from './draft-invoice-cards';
import { DraftInvoicesTable } from './draft-invoices-table';
import { ProcessAllProgressBar, ProcessAllSummaryPanel } from './process-all-status';
import { ZeroAmountDialog } from './zero-amount-dialog';
import { useDraftEdits } from '../hooks/use-draft-edits';
import { useDraftProcessing } from '../hooks/use-draft-processing';

/** docs/product/features.md §2: the header is one line, "{title} - {subtitle}". */
export const ADD_INVOICES_HEADER = 'Add Invoices - Add cash sales and approve draft invoices';
const [HEADER_TITLE, HEADER_SUBTITLE] = ADD_INVOICES_HEADER.split(' - ') as [string, string];

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
  const [sort, setSort] = useState<DraftSort>(DEFAULT_DRAFT_SORT);
  const [confirmRowId, setConfirmRowId] = useState<string | null>(null);
  const [form, setForm] = useState<NewInvoiceForm>(() => createNewInvoiceForm(getUkToday()));
  const createMutation = useCreateDraftInvoice(orgId);
  const creating = createMutation.isPending;
  const [refreshing, setRefreshing] = useState(false);
  const narrow = useNarrowScreen();
  const DraftInvoicesView = narrow ? DraftInvoiceCards : DraftInvoicesTable;

  const draftsKey = addInvoicesKeys.drafts(orgId);
  const { rows, setEdit, markProcessing, applyProcessed, approveAll } = useDraftEdits(
    orgId,
    drafts.data,
    sort,
  );
  // refetchWithRefresh, leftTheDrafts and openSettingsFor are this screen's, declared below.
  const { processRow, processAll, progress, summary, setSummary } = useDraftProcessing({
    orgId,
    rows,
    markProcessing,
    applyProcessed,
    refetchWithRefresh,
    leftTheDrafts,
    openSettingsFor,
  });

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

  function changeApprove(row: DraftInvoiceRow, checked: boolean) {
    // docs/product/features.md §4: approving with zero or empty cash asks first. Pending cash is paid on
    // approval, so then it is not £0.
    if (checked && needsZeroAmountConfirmation(row.cashAmount) && row.pendingCashAmount <= 0) {
      setConfirmRowId(row.id);
      return;
    }
    setEdit(row.id, { approve: checked });
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
