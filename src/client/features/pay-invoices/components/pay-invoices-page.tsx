import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, CreditCard, SkipForward } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { getUkToday } from '@/shared/dates';
import {
  buildPaymentRequests,
  canProcessPayments,
  chooseDefaultAccounts,
  DEFAULT_INVOICE_SORT,
  findInvoicesToPay,
  getAllocation,
  getAutoFillAmount,
  isInvoiceAwaitingPayment,
  needsAttachmentFetch,
  validatePaymentForm,
  type BankAccountsResponse,
  type Invoice,
  type InvoiceSort,
  type InvoiceSyncStatus,
} from '@/shared/pay-invoices';
import { paths } from '@/client/config/paths';
import { getMessage } from '@/client/lib/api-client';
import { isFeatureDisabled } from '@/client/lib/api-errors';
import { connectionQueryOptions, type Connection } from '@/client/lib/connection';
import { queryKeys } from '@/client/lib/query-client';
import { toast } from '@/client/lib/toast';
import { LoadingOverlay } from '@/client/components/loading-overlay';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { attachmentsQueryOptions, getAttachmentContentUrl } from '../api/get-attachments';
import {
  getBankAccounts,
  useBankAccounts,
  BANK_ACCOUNTS_ORG_CHANGE_DELAY_MS,
} from '../api/get-bank-accounts';
import { getInvoices, rememberInvoicesSync, useInvoices, useInvoicesSync } from '../api/get-invoices';
import { payInvoicesKeys } from '../api/keys';
import { refreshInvoice } from '../api/refresh-invoice';
import { forceRefreshInvoices } from '../api/refresh-invoices';
import { useKeyboardShortcuts } from '../hooks/use-keyboard-shortcuts';
import { useMediaQuery, WIDE_SCREEN_QUERY } from '../hooks/use-media-query';
import { useChangedElsewhere } from '../hooks/use-changed-elsewhere';
import { useOutOfSync } from '../hooks/use-out-of-sync';
import { usePaymentProcessing, useUndoPayments, type PaymentRun } from '../hooks/use-payment-processing';
import { updateInvoiceInList } from '../utils/invoice-cache';
import { AttachmentsPanel } from './attachments-panel';
import { OutOfSyncBanner, PaymentSuccessBanner, UndoStrip } from './banners';
import { InvoiceDetail } from './invoice-detail';
import { countActiveFilters, EMPTY_FILTERS, InvoiceFiltersPanel } from './invoice-filters';
import { InvoiceNavigator } from './invoice-navigator';
import { InvoiceToolbar } from './invoice-toolbar';
import {
  ConnectionErrorState,
  FeatureNotAvailableState,
  InvoiceLoadErrorState,
  LoadingInvoicesState,
  NoInvoicesState,
  NoMatchesState,
} from './page-states';
import { PaymentAllocation } from './payment-allocation';
import { InvoicesSyncProgress } from './sync-progress';
import { markPartial } from '../utils/sync-progress';

const NO_ACCOUNTS: BankAccountsResponse = { creditCardAccounts: [], cashAccounts: [] };
/** Connection data on Pay Invoices is cached 30 s (docs/product/features.md §9). */
const CONNECTION_STALE_MS = 30_000;

function describeCount(n: number): string {
  return `${n} invoices awaiting payment`;
}

/**
 * The Pay Invoices screen (docs/product/features.md §2): loads the invoices and bank accounts, then shows the
 * workspace or a state.
 */
export function PayInvoicesPage() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const { data: connection } = useQuery({ ...connectionQueryOptions(), staleTime: CONNECTION_STALE_MS });
  const orgId = connection?.organizationId ?? null;
  const invoicesQuery = useInvoices(orgId);
  const sync = useInvoicesSync(orgId);
  const accountsQuery = useBankAccounts(orgId);
  const [isRetrying, setRetrying] = useState(false);

  // 'Connection Error' when the invoices or the bank accounts fail to load (docs/product/features.md §8).
  const invoicesError = invoicesQuery.error;
  useEffect(() => {
    if (invoicesError && !isFeatureDisabled(invoicesError)) {
      toast({
        title: 'Connection Error',
        description: `Failed to load invoices: ${getMessage(invoicesError, 'Xero could not be reached')}`,
        variant: 'destructive',
      });
    }
  }, [invoicesError]);
  const accountsError = accountsQuery.error;
  useEffect(() => {
    if (accountsError && !isFeatureDisabled(accountsError.cause)) {
      toast({
        title: 'Connection Error',
        description: getMessage(accountsError, 'Failed to load bank accounts'),
        variant: 'destructive',
      });
    }
  }, [accountsError]);

  // Bank accounts are fetched again 0.5 s after the organisation changes (docs/product/features.md §9).
  const previousOrg = useRef(orgId);
  useEffect(() => {
    const before = previousOrg.current;
    previousOrg.current = orgId;
    if (before === null || orgId === null || before === orgId) return;
    const timer = setTimeout(() => {
      void queryClient.refetchQueries({ queryKey: payInvoicesKeys.bankAccounts(orgId) });
    }, BANK_ACCOUNTS_ORG_CHANGE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [orgId, queryClient]);

  const retry = async () => {
    setRetrying(true);
    try {
      await queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      await Promise.all([invoicesQuery.refetch(), accountsQuery.refetch()]);
    } finally {
      setRetrying(false);
    }
  };

  const awaiting = useMemo(
    () => (invoicesQuery.data ?? []).filter(isInvoiceAwaitingPayment),
    [invoicesQuery.data],
  );

  let content;
  if (orgId === null || invoicesQuery.isPending) {
    content = <LoadingInvoicesState />;
  } else if (invoicesQuery.isError) {
    content = isFeatureDisabled(invoicesQuery.error) ? (
      <FeatureNotAvailableState
        isRefreshing={isRetrying}
        onRefreshPermissions={() => {
          void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
          void retry();
        }}
        onReturn={() => navigate(paths.organizations.getHref())}
      />
    ) : (
      <ConnectionErrorState
        message={getMessage(invoicesQuery.error, 'Xero could not be reached')}
        onRetry={() => void retry()}
        isRetrying={isRetrying}
      />
    );
  } else {
    content = (
      <PayInvoicesWorkspace
        orgId={orgId}
        invoices={invoicesQuery.data}
        sync={sync}
        accounts={accountsQuery.data ?? NO_ACCOUNTS}
        isAccountsLoading={accountsQuery.isPending}
        connection={connection}
      />
    );
  }

  return (
    <div>
      <PageHeader
        title="Pay Invoices"
        description={
          invoicesQuery.data
            ? markPartial(describeCount(awaiting.length), sync)
            : 'Record card and cash payments against outstanding sales invoices.'
        }
      />
      {content}
    </div>
  );
}

function KeyboardHint() {
  const key = (label: string) => (
    <kbd className="rounded border border-border bg-card px-1 font-sans text-[11px] text-foreground">
      {label}
    </kbd>
  );
  return (
    <p
      className="hidden flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground md:flex"
      aria-label="Keyboard shortcuts"
    >
      <span>
        {key('←')} {key('→')} or {key('PgUp')} {key('PgDn')} previous / next
      </span>
      <span>{key('1')} card amount</span>
      <span>{key('2')} cash amount</span>
      <span>
        {key('Enter')} in an amount or {key('Ctrl')}+{key('Enter')} process
      </span>
      <span>{key('/')} search</span>
    </p>
  );
}

function PayInvoicesWorkspace({
  orgId,
  invoices,
  sync,
  accounts,
  isAccountsLoading,
  connection,
}: {
  orgId: number;
  invoices: Invoice[];
  /** How complete `invoices` is: a first visit's list grows while the server reads Xero (issue 19). */
  sync: InvoiceSyncStatus;
  accounts: BankAccountsResponse;
  isAccountsLoading: boolean;
  connection: Connection | undefined;
}) {
  const queryClient = useQueryClient();
  const isWide = useMediaQuery(WIDE_SCREEN_QUERY);
  const today = getUkToday();

  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<InvoiceSort>(DEFAULT_INVOICE_SORT);
  const [filters, setFilters] = useState(EMPTY_FILTERS);
  const [isFilterOpen, setFilterOpen] = useState(false);
  /**
   * Where the user is: a position, and the invoice shown there. While the list grows (a first visit's pages
   * arriving, issue 19) the same invoice stays on screen wherever the new ones sort; when it leaves the list
   * (paid), the position shows the next one.
   */
  const [place, setPlace] = useState<{ index: number; invoiceId: string | null }>({
    index: 0,
    invoiceId: null,
  });
  const setIndex = useCallback((index: number) => setPlace({ index, invoiceId: null }), []);
  const [focusInvoiceId, setFocusInvoiceId] = useState<string | null>(null);

  const awaitingCount = useMemo(() => invoices.filter(isInvoiceAwaitingPayment).length, [invoices]);
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
  const next = list[position + 1] ?? null;
  // Paid or changed in Xero or another browser while on screen: said in words, and no payment against the old balance.
  const changedElsewhere = useChangedElsewhere(invoice, invoices);
  const dismissChangedElsewhere = changedElsewhere.dismiss;

  // Payment allocation.
  const [cardAmount, setCardAmount] = useState('');
  const [cashAmount, setCashAmount] = useState('');
  const cardInput = useRef<HTMLInputElement>(null);
  const cashInput = useRef<HTMLInputElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const invoiceKey = invoice ? `${invoice.invoiceId}:${invoice.amountDue}` : '';
  const isFirstInvoice = useRef(true);
  /** Which amounts the user typed for this invoice; only the other, untouched one is auto-filled. */
  const typed = useRef({ card: false, cash: false });
  useEffect(() => {
    // When the invoice changes both amounts clear and the amount input is focused
    // (docs/product/features.md §4).
    setCardAmount('');
    setCashAmount('');
    typed.current = { card: false, cash: false };
    if (isFirstInvoice.current) {
      isFirstInvoice.current = false;
      return;
    }
    // Never pull focus out of a field the user is typing in (the search box narrows the list as they type).
    const active = document.activeElement;
    const isBusyElsewhere =
      active instanceof HTMLElement &&
      active !== cardInput.current &&
      active !== cashInput.current &&
      (active.tagName === 'INPUT' ||
        active.tagName === 'TEXTAREA' ||
        active.getAttribute('role') === 'combobox');
    if (invoiceKey && !isBusyElsewhere) cardInput.current?.focus();
  }, [invoiceKey]);

  const defaults = useMemo(
    () =>
      chooseDefaultAccounts(accounts, {
        defaultCreditCardAccountId: connection?.defaultCreditCardAccountId,
        defaultCashAccountId: connection?.defaultCashAccountId,
      }),
    [accounts, connection?.defaultCreditCardAccountId, connection?.defaultCashAccountId],
  );
  const [cardAccountId, setCardAccountId] = useState<string | null>(defaults.cardAccountId);
  const [cashAccountId, setCashAccountId] = useState<string | null>(defaults.cashAccountId);
  useEffect(() => setCardAccountId(defaults.cardAccountId), [defaults.cardAccountId]);
  useEffect(() => setCashAccountId(defaults.cashAccountId), [defaults.cashAccountId]);

  // Auto-fill (docs/product/features.md §4): typing one amount fills the other with the rest of the amount
  // due (0.00 beyond it). Once the user has typed in both boxes neither overwrites the other, so a part
  // payment can be entered.
  const onCardAmountChange = (value: string) => {
    setCardAmount(value);
    typed.current.card = true;
    if (invoice && !typed.current.cash) setCashAmount(getAutoFillAmount(invoice.amountDue, value));
  };
  const onCashAmountChange = (value: string) => {
    setCashAmount(value);
    typed.current.cash = true;
    if (invoice && !typed.current.card) setCardAmount(getAutoFillAmount(invoice.amountDue, value));
  };
  const allocation = invoice ? getAllocation(invoice.amountDue, cardAmount, cashAmount) : null;
  const canProcess = allocation !== null && canProcessPayments(allocation) && !changedElsewhere.isStale;

  // Banners and flags.
  const outOfSync = useOutOfSync();
  const [hasRefreshError, setRefreshError] = useState(false);
  const [bannerRun, setBannerRun] = useState<PaymentRun | null>(null);
  const [lastRun, setLastRun] = useState<PaymentRun | null>(null);
  const { process, isProcessing } = usePaymentProcessing(orgId);
  const { undo, isUndoing } = useUndoPayments(orgId);

  // Refreshes.
  const [isRefreshingInvoice, setRefreshingInvoice] = useState(false);
  const [isRefreshingList, setRefreshingList] = useState(false);
  const [isRefreshingAccounts, setRefreshingAccounts] = useState(false);

  const goTo = useCallback(
    (target: number) => {
      const index = Math.max(0, Math.min(target, list.length - 1));
      setPlace({ index, invoiceId: list[index]?.invoiceId ?? null });
      // Previous and next clear the out-of-sync flag (docs/product/features.md §4); moving on clears the
      // refresh error.
      outOfSync.clear();
      setRefreshError(false);
      dismissChangedElsewhere();
    },
    [list, outOfSync, dismissChangedElsewhere],
  );

  const standardRefresh = async () => {
    setRefreshingList(true);
    try {
      let freshSync: InvoiceSyncStatus = sync;
      const fresh = await getInvoices(orgId, {
        refresh: true,
        onSync: (value) => {
          freshSync = value;
          rememberInvoicesSync(queryClient, orgId, value);
        },
      });
      queryClient.setQueryData(payInvoicesKeys.invoices(orgId), fresh);
      toast({
        title: 'Invoices Refreshed',
        description: markPartial(describeCount(fresh.filter(isInvoiceAwaitingPayment).length), freshSync),
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Refresh Failed',
        description: getMessage(error, 'Invoices could not be refreshed'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingList(false);
    }
  };

  /** Refresh Invoice; from the out-of-sync banner it also works once the invoice has left the list. */
  const refreshCurrent = async () => {
    const invoiceId = invoice?.invoiceId ?? outOfSync.outOfSyncInvoiceId;
    if (!invoiceId) {
      await standardRefresh();
      outOfSync.clear();
      return;
    }
    setRefreshingInvoice(true);
    try {
      const result = await refreshInvoice(orgId, invoiceId);
      updateInvoiceInList(queryClient, orgId, invoiceId, result.invoice);
      toast({
        title: 'Invoice Refreshed',
        description: 'Latest data from Xero has been loaded',
        variant: 'success',
      });
      outOfSync.clear();
      setRefreshError(false);
    } catch (error) {
      toast({
        title: 'Refresh Failed',
        description: getMessage(error, 'The invoice could not be refreshed'),
        variant: 'destructive',
      });
      setRefreshError(true);
    } finally {
      setRefreshingInvoice(false);
    }
  };

  const forceRefresh = async () => {
    setRefreshingList(true);
    try {
      const result = await forceRefreshInvoices(orgId);
      await queryClient.invalidateQueries({ queryKey: payInvoicesKeys.invoices(orgId) });
      toast({
        title: 'Cache Refreshed',
        description: `${result.count} invoices loaded from Xero`,
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Force Refresh Failed',
        description: getMessage(error, 'The cache could not be refreshed'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingList(false);
    }
  };

  const refreshAccounts = async () => {
    setRefreshingAccounts(true);
    try {
      const fresh = await getBankAccounts(orgId, { refresh: true });
      queryClient.setQueryData(payInvoicesKeys.bankAccounts(orgId), fresh);
      const n = fresh.creditCardAccounts.length + fresh.cashAccounts.length;
      toast({
        title: 'Bank Accounts Refreshed',
        description: `${n} bank accounts loaded from Xero`,
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Refresh Error',
        description: getMessage(error, 'Failed to get bank accounts'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingAccounts(false);
    }
  };

  const processPayments = async () => {
    if (isProcessing) return;
    const form = { invoice, cardAmount, cashAmount, cardAccountId, cashAccountId };
    const problem = validatePaymentForm(form);
    if (problem || !invoice) {
      toast({
        title: problem?.title ?? 'No Invoice',
        description: problem?.description ?? '',
        variant: 'destructive',
      });
      return;
    }
    changedElsewhere.expectOwnChange(invoice.invoiceId);
    const run = await process(invoice, buildPaymentRequests(invoice, form, today));
    if (run?.partial) {
      // Part failed: no success banner; the out-of-sync flag stays and the Undo strip offers what was paid.
      setLastRun(run);
    } else if (run) {
      outOfSync.clear();
      setBannerRun(run);
      setLastRun(run);
    }
  };

  const undoRun = async (run: PaymentRun) => {
    changedElsewhere.expectOwnChange(run.invoiceId);
    const ok = await undo(run);
    if (ok) {
      setBannerRun(null);
      setLastRun(null);
      setFocusInvoiceId(run.invoiceId);
    }
  };

  useKeyboardShortcuts(
    {
      previous: () => goTo(position - 1),
      next: () => goTo(position + 1),
      focusCard: () => cardInput.current?.focus(),
      focusCash: () => cashInput.current?.focus(),
      focusSearch: () => searchInput.current?.focus(),
      process: () => {
        if (!invoice || canProcess) void processPayments();
      },
    },
    !isProcessing,
  );

  // The next invoice's attachments are fetched ahead, images included, so moving on shows them at once.
  const nextId = next && needsAttachmentFetch(next.attachments) ? next.invoiceId : null;
  useEffect(() => {
    if (!nextId) return;
    let cancelled = false;
    queryClient
      .fetchQuery(attachmentsQueryOptions(orgId, nextId))
      .then((files) => {
        if (cancelled) return;
        for (const file of files) {
          if (file.mimeType.startsWith('image/')) new Image().src = getAttachmentContentUrl(orgId, file.url);
        }
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [nextId, orgId, queryClient]);

  const clearSearchAndFilters = () => {
    setSearch('');
    setFilters(EMPTY_FILTERS);
  };

  const attachments = invoice ? (
    <AttachmentsPanel orgId={orgId} invoice={invoice} layout={isWide ? 'side' : 'below'} />
  ) : null;

  return (
    <div className="grid gap-4">
      <InvoiceToolbar
        search={search}
        onSearchChange={setSearch}
        searchRef={searchInput}
        sort={sort}
        onSortChange={setSort}
        isFilterOpen={isFilterOpen}
        activeFilterCount={countActiveFilters(filters)}
        onToggleFilter={() => setFilterOpen((open) => !open)}
        onStandardRefresh={() => void standardRefresh()}
        onForceRefresh={() => void forceRefresh()}
        isRefreshingInvoices={isRefreshingList}
        onRefreshAccounts={() => void refreshAccounts()}
        isRefreshingAccounts={isRefreshingAccounts}
        disabled={isProcessing}
      />
      {sync.complete ? null : <InvoicesSyncProgress sync={sync} />}
      {isFilterOpen ? <InvoiceFiltersPanel applied={filters} onApply={setFilters} /> : null}
      {outOfSync.isOutOfSync ? (
        <OutOfSyncBanner onRefresh={() => void refreshCurrent()} isRefreshing={isRefreshingInvoice} />
      ) : null}
      {changedElsewhere.notice ? (
        <Alert>
          <AlertTriangle aria-hidden />
          <div className="min-w-0 flex-1">
            <AlertTitle>Changed elsewhere</AlertTitle>
            <AlertDescription>{changedElsewhere.notice}</AlertDescription>
          </div>
          <Button size="sm" variant="outline" onClick={changedElsewhere.dismiss}>
            Dismiss
          </Button>
        </Alert>
      ) : null}
      {hasRefreshError ? (
        <Alert variant="destructive">
          <AlertTriangle aria-hidden />
          <div className="min-w-0 flex-1">
            <AlertTitle>Refresh Failed</AlertTitle>
            <AlertDescription>
              This invoice could not be read from Xero. Try again, or skip to the next invoice.
            </AlertDescription>
          </div>
          <Button
            size="sm"
            variant="outline"
            onClick={() => goTo(position + 1)}
            disabled={position >= list.length - 1}
          >
            <SkipForward aria-hidden />
            Skip
          </Button>
        </Alert>
      ) : null}
      {lastRun ? (
        <UndoStrip
          run={lastRun}
          onUndo={() => void undoRun(lastRun)}
          isUndoing={isUndoing}
          onExpire={() => setLastRun(null)}
        />
      ) : null}

      {list.length === 0 ? (
        awaitingCount === 0 && sync.complete ? (
          <NoInvoicesState onRefresh={() => void standardRefresh()} isRefreshing={isRefreshingList} />
        ) : (
          <NoMatchesState onClear={clearSearchAndFilters} />
        )
      ) : !invoice ? (
        <InvoiceLoadErrorState onReload={() => goTo(0)} />
      ) : (
        <div className="grid items-start gap-4 md:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
          <Card className="min-w-0">
            <CardContent className="grid gap-5 pt-5">
              <div className="grid gap-2">
                <InvoiceNavigator
                  position={position + 1}
                  total={list.length}
                  isPartial={!sync.complete}
                  onPrevious={() => goTo(position - 1)}
                  onNext={() => goTo(position + 1)}
                  onRefresh={() => void refreshCurrent()}
                  isRefreshing={isRefreshingInvoice}
                  onProcess={() => void processPayments()}
                  canProcess={canProcess}
                  isBusy={isProcessing}
                  showProcess={isWide}
                />
                <KeyboardHint />
              </div>
              <div className="h-px bg-border" />
              <InvoiceDetail invoice={invoice} today={today} />
              <div className="h-px bg-border" />
              <PaymentAllocation
                invoice={invoice}
                accounts={accounts}
                cardAccountId={cardAccountId}
                cashAccountId={cashAccountId}
                onCardAccountChange={setCardAccountId}
                onCashAccountChange={setCashAccountId}
                cardAmount={cardAmount}
                cashAmount={cashAmount}
                onCardAmountChange={onCardAmountChange}
                onCashAmountChange={onCashAmountChange}
                cardInputRef={cardInput}
                cashInputRef={cashInput}
                onSubmit={() => {
                  if (canProcess) void processPayments();
                }}
                disabled={isProcessing || isAccountsLoading}
              />
              {isWide ? null : (
                <Button
                  className="w-full"
                  size="lg"
                  onClick={() => void processPayments()}
                  disabled={!canProcess || isProcessing}
                >
                  <CreditCard aria-hidden />
                  Process Payments
                </Button>
              )}
            </CardContent>
          </Card>
          {attachments}
        </div>
      )}

      <LoadingOverlay open={isProcessing} message="Processing payments..." />
      {bannerRun ? (
        <PaymentSuccessBanner
          key={bannerRun.payments[0]?.paymentId}
          run={bannerRun}
          onDone={() => setBannerRun(null)}
          onUndo={() => void undoRun(bannerRun)}
          isUndoing={isUndoing}
        />
      ) : null}
    </div>
  );
}
