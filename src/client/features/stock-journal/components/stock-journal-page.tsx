import { formatCount } from '@/shared/counts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Download, Info } from 'lucide-react';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Link, useSearch } from 'wouter';
import { getCurrentMonthRange, getDaysBetween, getUkToday, isIsoDate } from '@/shared/dates';
import {
  ALL_CUSTOMERS,
  filterPeriodsByJournalStatus,
  indexStockJournalEntries,
  MAX_SALES_RANGE_DAYS,
  type JournalStatusFilter,
} from '@/shared/stock-journal';
import { paths } from '@/client/config/paths';
import { isApiError } from '@/client/lib/api-client';
import { connectionQueryOptions } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { toast } from '@/client/lib/toast';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { FeatureDisabledState } from '@/client/components/state-card';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { getSales } from '../api/get-sales';
import { useCustomers } from '../api/get-customers';
import { useJournalEntries } from '../api/get-journal-entries';
import { useSales } from '../api/get-sales';
import { stockJournalKeys, type StockJournalFilters } from '../api/query-keys';
import { syncJournalStatus } from '../api/sync-journal-status';
import { useJournalPosting } from '../hooks/use-journal-posting';
import { buildPeriodsCsv, downloadCsv } from '../utils/export-csv';
import { describeSyncResult } from '../utils/messages';
import {
  buildChartPoints,
  buildWeekRows,
  getPartAmount,
  parseMarginRate,
  type JournalPart,
} from '../utils/periods';
import { ConfirmJournalDialog, type PendingConfirmation } from './confirm-journal-dialog';
import { JournalFilters } from './journal-filters';
import { SalesPeriods } from './sales-periods';

const SalesChart = lazy(() => import('./sales-chart'));

/** The header of docs/product/features.md §2, written as the spec has it. */
const HEADER = 'Stock Journal: View and analyze sales data by date range';
/** The connection is cached 10 minutes on this screen (docs/product/features.md §9). */
const CONNECTION_STALE_MS = 10 * 60_000;

function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={`animate-pulse rounded-md bg-muted ${className ?? ''}`} />;
}

function PeriodsSkeleton() {
  return (
    <div role="status" aria-label="Loading sales data" className="grid gap-2">
      <Skeleton className="h-10 w-full" />
      {Array.from({ length: 5 }, (_, i) => (
        <Skeleton key={i} className="h-12 w-full" />
      ))}
    </div>
  );
}

/** docs/product/features.md §2 Stock Journal: the feature is off for the organisation. */
function FeatureNotAvailable() {
  return (
    <FeatureDisabledState
      title="Feature Not Available"
      actions={
        <Button variant="outline" asChild>
          <Link href={paths.organizations.getHref()}>Return to Organizations</Link>
        </Button>
      }
    />
  );
}

/**
 * The range and journal status a link opens the screen on (`?from=&to=&status=`, the Today page's "weeks to
 * post", issue 47); the current month and every status otherwise. A range that is not one is ignored.
 */
function readLinkFilters(search: string): {
  fromDate?: string;
  toDate?: string;
  journalStatus?: JournalStatusFilter;
} {
  const params = new URLSearchParams(search);
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const status = params.get('status');
  const range =
    isIsoDate(from) &&
    isIsoDate(to) &&
    getDaysBetween(from, to) >= 0 &&
    getDaysBetween(from, to) < MAX_SALES_RANGE_DAYS
      ? { fromDate: from, toDate: to }
      : {};
  const statuses: readonly JournalStatusFilter[] = ['all', 'posted', 'unposted'];
  const known = statuses.find((s) => s === status);
  const journalStatus = known ? { journalStatus: known } : {};
  return { ...range, ...journalStatus };
}

/** Stock Journal (docs/product/features.md §2 /stock-journal): weekly sales, their journals, and posting. */
export function StockJournalPage() {
  const search = useSearch();
  const queryClient = useQueryClient();
  const { data: connection } = useQuery({
    ...connectionQueryOptions(),
    staleTime: CONNECTION_STALE_MS,
    gcTime: CONNECTION_STALE_MS,
    refetchOnWindowFocus: false,
    refetchOnMount: false,
  });
  const { flags } = useFeatureFlags();
  const orgId = connection?.organizationId ?? null;
  const enabled = Boolean(connection?.connected) && flags['stock-journal'];

  const [filters, setFilters] = useState<StockJournalFilters>(() => ({
    customerId: connection?.defaultStockJournalContactId || ALL_CUSTOMERS,
    marginRate: connection ? String(connection.defaultStockJournalMarginRate) : '',
    journalStatus: 'all',
    ...getCurrentMonthRange(),
    ...readLinkFilters(search),
  }));
  // The saved customer and margin rate arrive with the connection; take them once, unless the user chose first.
  const [seededFor, setSeededFor] = useState<number | null>(connection ? orgId : null);
  useEffect(() => {
    if (!connection || seededFor === orgId) return;
    setSeededFor(orgId);
    setFilters((f) => ({
      ...f,
      customerId: connection.defaultStockJournalContactId || ALL_CUSTOMERS,
      marginRate: String(connection.defaultStockJournalMarginRate),
    }));
  }, [connection, orgId, seededFor]);

  const customers = useCustomers(orgId, enabled);
  const sales = useSales(orgId, filters, enabled);
  const entries = useJournalEntries(orgId, enabled);
  const [openKey, setOpenKey] = useState('');
  const [isRefreshing, setRefreshing] = useState(false);
  const [pending, setPending] = useState<PendingConfirmation | null>(null);

  const marginRate = parseMarginRate(filters.marginRate);
  const posting = useJournalPosting(orgId, {
    customerId: filters.customerId,
    stockAccountId: connection?.defaultStockJournalStockAccountId ?? '',
    costAccountId: connection?.defaultStockJournalCostAccountId ?? '',
    marginRate: filters.marginRate,
  });

  const entryIndex = useMemo(() => indexStockJournalEntries(entries.data ?? []), [entries.data]);
  const periods = sales.data?.periods;
  const rows = useMemo(() => {
    const shown = filterPeriodsByJournalStatus(periods ?? [], entryIndex, filters.journalStatus);
    return buildWeekRows(shown, entryIndex);
  }, [periods, entryIndex, filters.journalStatus]);
  const chartPoints = useMemo(() => buildChartPoints(rows, marginRate), [rows, marginRate]);

  if (entries.error && isApiError(entries.error) && entries.error.status === 403)
    return <FeatureNotAvailable />;

  const customerName =
    filters.customerId === ALL_CUSTOMERS
      ? 'All Customers'
      : (customers.data?.find((c) => c.id === filters.customerId)?.name ?? 'Selected customer');
  const settingsMissing =
    Boolean(connection) &&
    (!connection?.defaultStockJournalStockAccountId || !connection.defaultStockJournalCostAccountId);

  function changeFilters(next: Partial<StockJournalFilters>) {
    setFilters((f) => ({ ...f, ...next }));
    if (next.customerId !== undefined || next.fromDate !== undefined || next.toDate !== undefined)
      setOpenKey('');
  }

  /**
   * Refresh Data (docs/product/features.md §2): refetch sales, refetch journal entries and run a status sync,
   * together.
   */
  async function refreshData() {
    if (orgId === null) return;
    setRefreshing(true);
    try {
      const salesKey = stockJournalKeys.sales(orgId, filters);
      const refreshSales = getSales(orgId, filters, { refresh: true }).then((result) =>
        queryClient.setQueryData(salesKey, result),
      );
      const refetchEntries = queryClient.refetchQueries({ queryKey: stockJournalKeys.entries(orgId) });
      const syncStatus = syncJournalStatus(orgId).then(
        async (result) => {
          const message = describeSyncResult(result.updatedCount);
          toast({
            title: message.title,
            description: message.description,
            variant: result.updatedCount > 0 ? 'success' : 'default',
          });
          await queryClient.invalidateQueries({ queryKey: stockJournalKeys.entries(orgId) });
        },
        () =>
          toast({
            title: 'Sync Failed',
            description: 'Unable to sync journal status from Xero. Please try again.',
            variant: 'destructive',
          }),
      );
      await Promise.allSettled([refreshSales, refetchEntries, syncStatus]);
    } finally {
      setRefreshing(false);
    }
  }

  function requestPost(part: JournalPart, journalDate: string) {
    if (!posting.check(part.period)) return;
    // A week that has not ended yet may still take sales: ask first (issue 17 item 18).
    const unfinished = getUkToday() <= part.period.periodEnd;
    if (unfinished || connection?.defaultStockJournalPostingStatus === 'posted') {
      setPending({
        part,
        journalDate,
        amount: getPartAmount(part, marginRate),
        customerName,
        unfinished,
        posted: connection?.defaultStockJournalPostingStatus === 'posted',
      });
      return;
    }
    void posting.post(part.period, { journalDate, onPosted: () => setOpenKey('') });
  }

  function confirmPost(confirmed: PendingConfirmation) {
    setPending(null);
    void posting.post(confirmed.part.period, {
      journalDate: confirmed.journalDate,
      confirmed: true,
      onPosted: () => setOpenKey(''),
    });
  }

  function exportCsv() {
    const customer =
      filters.customerId === ALL_CUSTOMERS
        ? 'all-customers'
        : customerName.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    downloadCsv(
      `stock-journal-${customer}-${filters.fromDate}-to-${filters.toDate}.csv`,
      buildPeriodsCsv(rows, marginRate),
    );
  }

  const [title, subtitle] = HEADER.split(': ');
  const loading = sales.isLoading || (sales.isFetching && !sales.data);

  return (
    <div className="grid gap-5">
      <header>
        {/* One line as docs/product/features.md §2 quotes it, "Stock Journal: View and analyze sales data by date range". */}
        <h1 className="text-2xl font-semibold tracking-tight">
          {title}
          <span className="hidden font-normal text-muted-foreground sm:inline">:</span>{' '}
          <span className="mt-1 block text-base font-normal text-muted-foreground sm:mt-0 sm:inline">
            {subtitle}
          </span>
        </h1>
      </header>

      {settingsMissing ? (
        <Alert variant="info">
          <Info aria-hidden />
          <div>
            <AlertTitle>Stock journal settings incomplete</AlertTitle>
            <AlertDescription>
              Choose the stock account and the cost account under Stock Journal Settings before posting
              journals.{' '}
              <Link
                href={paths.settings.getHref(
                  orgId,
                  undefined,
                  connection?.defaultStockJournalStockAccountId
                    ? 'defaultStockJournalCostAccountId'
                    : 'defaultStockJournalStockAccountId',
                )}
                className="font-medium underline underline-offset-2"
              >
                Open Settings
              </Link>
            </AlertDescription>
          </div>
        </Alert>
      ) : null}

      <JournalFilters
        filters={filters}
        customers={customers.data ?? []}
        customersLoading={customers.isLoading}
        isRefreshing={isRefreshing}
        onChange={changeFilters}
        onRefresh={() => void refreshData()}
      />

      <Card>
        <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
          <div className="grid gap-1.5">
            <CardTitle>Sales Invoices</CardTitle>
            <CardDescription>
              {loading
                ? 'Loading weekly sales…'
                : rows.length > 0
                  ? `${formatCount(rows.length, 'week')}, Monday to Sunday · ${customerName}`
                  : `Weekly sales, Monday to Sunday · ${customerName}`}
            </CardDescription>
          </div>
          <Button variant="outline" size="sm" onClick={exportCsv} disabled={loading || rows.length === 0}>
            <Download aria-hidden />
            Export CSV
          </Button>
        </CardHeader>
        <CardContent className="grid gap-5">
          {loading ? (
            <PeriodsSkeleton />
          ) : rows.length === 0 ? (
            <div className="grid justify-items-center gap-1 rounded-xl border border-dashed border-border px-4 py-12 text-center">
              <p className="font-medium">No sales data found</p>
              <p className="max-w-md text-sm text-muted-foreground">
                There&apos;s no sales data matching your filter criteria. Try selecting a different customer
                or check back later.
              </p>
              {sales.data?.error ? <p className="mt-2 text-xs text-destructive">{sales.data.error}</p> : null}
            </div>
          ) : (
            <>
              <Suspense fallback={<Skeleton className="h-64 w-full" />}>
                <SalesChart points={chartPoints} />
              </Suspense>
              <SalesPeriods
                rows={rows}
                openKey={openKey}
                onOpenChange={setOpenKey}
                marginRate={marginRate}
                postingKey={posting.postingKey}
                onPost={requestPost}
              />
            </>
          )}
        </CardContent>
      </Card>

      <ConfirmJournalDialog pending={pending} onCancel={() => setPending(null)} onConfirm={confirmPost} />
    </div>
  );
}
