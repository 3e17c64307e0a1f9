import { CreditCard } from 'lucide-react';
import { useCallback, useMemo } from 'react';
import { getUkToday } from '@/shared/dates';
import {
  canProcessPayments,
  isInvoiceAwaitingPayment,
  type BankAccountsResponse,
  type Invoice,
  type InvoiceSyncStatus,
} from '@/shared/pay-invoices';
import type { Connection } from '@/client/lib/connection';
import { LoadingOverlay } from '@/client/components/loading-overlay';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { useChangedElsewhere } from '../hooks/use-changed-elsewhere';
import { useInvoiceNavigation } from '../hooks/use-invoice-navigation';
import { useInvoiceRefreshes } from '../hooks/use-invoice-refreshes';
import { useKeyboardShortcuts } from '../hooks/use-keyboard-shortcuts';
import { useMediaQuery, WIDE_SCREEN_QUERY } from '../hooks/use-media-query';
import { useOutOfSync } from '../hooks/use-out-of-sync';
import { usePaymentForm } from '../hooks/use-payment-form';
import { usePaymentRuns } from '../hooks/use-payment-runs';
import { usePrefetchAttachments } from '../hooks/use-prefetch-attachments';
import { AttachmentsPanel } from './attachments-panel';
import { OutOfSyncBanner, PaymentSuccessBanner, UndoStrip } from './banners';
import { InvoiceDetail } from './invoice-detail';
import { countActiveFilters, InvoiceFiltersPanel } from './invoice-filters';
import { InvoiceNavigator } from './invoice-navigator';
import { InvoiceToolbar } from './invoice-toolbar';
import { KeyboardHint } from './keyboard-hint';
import { InvoiceLoadErrorState, NoInvoicesState, NoMatchesState } from './page-states';
import { PaymentAllocation } from './payment-allocation';
import { InvoicesSyncProgress } from './sync-progress';
import { ChangedElsewhereNotice, RefreshErrorNotice } from './workspace-notices';

/**
 * The Pay Invoices workspace (docs/product/features.md §2, §4): one outstanding invoice at a time with its
 * payment form and attachments, the toolbar, the notices and the banners. Each concern is a hook: which
 * invoice is on screen (`useInvoiceNavigation`), its payment form (`usePaymentForm`), the refreshes
 * (`useInvoiceRefreshes`) and the payments with their Undo (`usePaymentRuns`).
 */
export function PayInvoicesWorkspace({
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
  const isWide = useMediaQuery(WIDE_SCREEN_QUERY);
  const today = getUkToday();
  const nav = useInvoiceNavigation(invoices, today);
  const { invoice, position, list } = nav;
  const awaitingCount = useMemo(() => invoices.filter(isInvoiceAwaitingPayment).length, [invoices]);

  // Paid or changed in Xero or another browser while on screen: said in words, and no payment against the old balance.
  const changedElsewhere = useChangedElsewhere(invoice, invoices);
  const outOfSync = useOutOfSync();
  const payment = usePaymentForm(invoice, accounts, connection, changedElsewhere.announcedAmountDue);
  const canProcess =
    payment.allocation !== null && canProcessPayments(payment.allocation) && !changedElsewhere.isStale;
  const refreshes = useInvoiceRefreshes({ orgId, sync, invoice, outOfSync });
  const runs = usePaymentRuns({
    orgId,
    today,
    outOfSync,
    changedElsewhere,
    onUndone: nav.showInvoice,
  });
  usePrefetchAttachments(orgId, nav.next);

  const { moveTo } = nav;
  const { clearRefreshError } = refreshes;
  const { dismiss: dismissChangedElsewhere } = changedElsewhere;
  const goTo = useCallback(
    (target: number) => {
      moveTo(target);
      // Previous and next clear the out-of-sync flag (docs/product/features.md §4); moving on clears the
      // refresh error.
      outOfSync.clear();
      clearRefreshError();
      dismissChangedElsewhere();
    },
    [moveTo, outOfSync, clearRefreshError, dismissChangedElsewhere],
  );
  const processPayments = () => runs.pay(invoice, payment.values);

  useKeyboardShortcuts(
    {
      previous: () => goTo(position - 1),
      next: () => goTo(position + 1),
      focusCard: () => payment.cardInput.current?.focus(),
      focusCash: () => payment.cashInput.current?.focus(),
      focusSearch: () => nav.searchInput.current?.focus(),
      process: () => {
        if (!invoice || canProcess) processPayments();
      },
    },
    !runs.isProcessing,
  );

  return (
    <div className="grid gap-4">
      <InvoiceToolbar
        search={nav.search}
        onSearchChange={nav.setSearch}
        searchRef={nav.searchInput}
        sort={nav.sort}
        onSortChange={nav.setSort}
        isFilterOpen={nav.isFilterOpen}
        activeFilterCount={countActiveFilters(nav.filters)}
        onToggleFilter={nav.toggleFilter}
        onStandardRefresh={refreshes.refreshList}
        onForceRefresh={refreshes.forceRefresh}
        isRefreshingInvoices={refreshes.isRefreshingList}
        onRefreshAccounts={refreshes.refreshAccounts}
        isRefreshingAccounts={refreshes.isRefreshingAccounts}
        disabled={runs.isProcessing}
      />
      {sync.complete ? null : <InvoicesSyncProgress sync={sync} />}
      {nav.isFilterOpen ? <InvoiceFiltersPanel applied={nav.filters} onApply={nav.setFilters} /> : null}
      {outOfSync.isOutOfSync ? (
        <OutOfSyncBanner onRefresh={refreshes.refreshCurrent} isRefreshing={refreshes.isRefreshingInvoice} />
      ) : null}
      {changedElsewhere.notice ? (
        <ChangedElsewhereNotice notice={changedElsewhere.notice} onDismiss={changedElsewhere.dismiss} />
      ) : null}
      {refreshes.hasRefreshError ? (
        <RefreshErrorNotice onSkip={() => goTo(position + 1)} canSkip={position < list.length - 1} />
      ) : null}
      {runs.lastRun ? (
        <UndoStrip
          run={runs.lastRun}
          onUndo={() => runs.lastRun && runs.undo(runs.lastRun)}
          isUndoing={runs.isUndoing}
          onExpire={runs.expireLastRun}
        />
      ) : null}

      {list.length === 0 ? (
        awaitingCount === 0 && sync.complete ? (
          <NoInvoicesState onRefresh={refreshes.refreshList} isRefreshing={refreshes.isRefreshingList} />
        ) : (
          <NoMatchesState onClear={nav.clearSearchAndFilters} />
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
                  onRefresh={refreshes.refreshCurrent}
                  isRefreshing={refreshes.isRefreshingInvoice}
                  onProcess={processPayments}
                  canProcess={canProcess}
                  isBusy={runs.isProcessing}
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
                cardAccountId={payment.values.cardAccountId}
                cashAccountId={payment.values.cashAccountId}
                onCardAccountChange={payment.setCardAccountId}
                onCashAccountChange={payment.setCashAccountId}
                cardAmount={payment.values.cardAmount}
                cashAmount={payment.values.cashAmount}
                onCardAmountChange={payment.onCardAmountChange}
                onCashAmountChange={payment.onCashAmountChange}
                cardInputRef={payment.cardInput}
                cashInputRef={payment.cashInput}
                onSubmit={() => {
                  if (canProcess) processPayments();
                }}
                disabled={runs.isProcessing || isAccountsLoading}
              />
              {isWide ? null : (
                <Button
                  className="w-full"
                  size="lg"
                  onClick={processPayments}
                  disabled={!canProcess || runs.isProcessing}
                >
                  <CreditCard aria-hidden />
                  Process Payments
                </Button>
              )}
            </CardContent>
          </Card>
          <AttachmentsPanel orgId={orgId} invoice={invoice} layout={isWide ? 'side' : 'below'} />
        </div>
      )}

      <LoadingOverlay open={runs.isProcessing} message="Processing payments..." />
      {runs.bannerRun ? (
        <PaymentSuccessBanner
          key={runs.bannerRun.payments[0]?.paymentId}
          run={runs.bannerRun}
          onDone={runs.closeBanner}
          onUndo={() => runs.bannerRun && runs.undo(runs.bannerRun)}
          isUndoing={runs.isUndoing}
        />
      ) : null}
    </div>
  );
}
