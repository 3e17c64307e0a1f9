import { getUkToday } from '../../../shared/dates';
import { fromPence } from '../../../shared/money';
import { getUnpostedWeeksRange, type CisRowMonth, type TodayRow } from '../../../shared/practice';
import { filterPeriodsByJournalStatus, indexStockJournalEntries } from '../../../shared/stock-journal';
import type { SalesPeriod, SalesQuery, StockJournalEntry } from '../../../shared/stock-journal';
import type { DraftBill } from '../../../shared/cis-bills';
import type { DraftInvoice } from '../../../shared/add-invoices';
import type { InvoiceSyncStatus } from '../../../shared/pay-invoices';
import { describeView, isComplete, type InvoiceView } from '../../xero/sync/invoice-views';
import type { RequestContext } from '../organizations/tenancy';
import type { ReadState } from './practice.repository';

/**
 * Each figure of a Today row through the code its own screen's endpoint runs (issue 47), one narrow function per
 * feature, wired in src/server/wiring.ts: never a second formula. Each screen first brings its part of the cache
 * up to date (a view read once, the contacts' CIS settings, the journals); here that happens only when the row
 * is read in the background (`read`), under the gate's background priority. Answered from the cache (`cache`),
 * the same functions find everything in it and call nothing, and figures.ts says beforehand (`missingReads`)
 * when they would have to.
 */
export interface FigureSources {
  /** Pay Invoices: the list's rows counted, and how far its read has got; its first page, its whole read. */
  payInvoices: {
    summarizeOutstanding(ctx: RequestContext): Promise<{
      count: number;
      amountDuePence: number;
      otherCurrencies: number;
      progress: InvoiceSyncStatus;
    }>;
    startInvoiceList(ctx: RequestContext): Promise<void>;
    readInvoiceList(ctx: RequestContext): Promise<void>;
  };
  /** Add Invoices' GET /api/xero/draft-invoices. */
  listDrafts(ctx: RequestContext, options: { refresh: boolean }): Promise<DraftInvoice[]>;
  /** CIS Bills' GET /api/xero/draft-bills?cisOnly=true (the screen's "Draft bills"). */
  listDraftBills(ctx: RequestContext, options: { refresh: boolean; cisOnly: boolean }): Promise<DraftBill[]>;
  /** CIS Returns' months, narrowed to the one the row shows (cis-month.ts, the one place that reads them). */
  readCisMonth(ctx: RequestContext): Promise<CisRowMonth | null>;
  /** Stock Journal's GET /api/xero/sales for one customer, and its entries (read from Xero, or as held). */
  getSales(ctx: RequestContext, query: SalesQuery): Promise<SalesPeriod[]>;
  listEntries(ctx: RequestContext): Promise<StockJournalEntry[]>;
  listKnownEntries(ctx: RequestContext): Promise<StockJournalEntry[]>;
  /**
   * What the screens above read first, started side by side by a background read (`warmUp`) so each screen's
   * code then finds it in the cache: a view read whole if it never was, the contacts and accounts.
   */
  ensureView(ctx: RequestContext, view: InvoiceView): Promise<unknown>;
  syncContacts(ctx: RequestContext): Promise<unknown>;
  syncAccounts(ctx: RequestContext): Promise<unknown>;
}

/** A row's figures by name, as the answer names them. */
export type FigureKey = 'invoicesAwaiting' | 'draftInvoices' | 'draftBills' | 'cis' | 'stockJournalUnposted';

/** The figures of a row: the part every user of the organisation sees alike. */
export type OrgFigures = Pick<
  TodayRow,
  'invoicesAwaiting' | 'draftInvoices' | 'draftBills' | 'cis' | 'stockJournalUnposted' | 'stockJournalWeeks'
>;

export const NO_FIGURES: OrgFigures = {
  invoicesAwaiting: null,
  draftInvoices: null,
  draftBills: null,
  cis: null,
  stockJournalUnposted: null,
  stockJournalWeeks: null,
};

type Org = RequestContext['organization'];

/** The resources of xero_sync_state a row's figures are read from, for the features switched on. */
export function resourcesOf(org: Org): string[] {
  const views: string[] = [];
  if (org.featurePayInvoices) views.push(describeView({ key: 'sales-open' }).resource);
  if (org.featureAddInvoices) views.push(describeView({ key: 'sales-draft' }).resource);
  if (org.featureCisBills)
    views.push(
      describeView({ key: 'bills-draft' }).resource,
      describeView({ key: 'bills-paid' }).resource,
      'contacts',
      'accounts',
    );
  if (org.featureStockJournal && org.defaultStockJournalContactId)
    views.push(
      describeView({ key: 'sales-contact', contactId: org.defaultStockJournalContactId.toLowerCase() })
        .resource,
      'manual-journals',
    );
  return views;
}

/**
 * What still has to be read from Xero before the row can be answered from the cache: views never read whole (the
 * invoice list may be half read while a read of it goes on: it is then counted "so far"), contacts and accounts
 * never read, journals never looked at. Empty: the row can be answered from the cache.
 */
export function missingReads(org: Org, state: ReadState | undefined, listBeingRead: boolean): string[] {
  const missing: string[] = [];
  const salesOpen = describeView({ key: 'sales-open' }).resource;
  for (const resource of resourcesOf(org)) {
    const row = state?.get(resource);
    if (resource === salesOpen && listBeingRead) continue;
    const read = resource.startsWith('invoices:')
      ? isComplete(row ? ({ ...row } as Parameters<typeof isComplete>[0]) : null)
      : Boolean(row?.lastSyncAt);
    if (!read) missing.push(resource);
  }
  return missing;
}

/** The figures that need CIS Bills' reads (the subcontractors' contacts, bills and CIS settings). */
export const CIS_FIGURES: readonly FigureKey[] = ['draftBills', 'cis'];

/** The figures an organisation's row has: those of the features switched on (Stock Journal: with a customer). */
export function figuresOf(org: Org): FigureKey[] {
  const keys: FigureKey[] = [];
  if (org.featurePayInvoices) keys.push('invoicesAwaiting');
  if (org.featureAddInvoices) keys.push('draftInvoices');
  if (org.featureCisBills) keys.push('draftBills', 'cis');
  if (org.featureStockJournal && org.defaultStockJournalContactId) keys.push('stockJournalUnposted');
  return keys;
}

/**
 * Starts side by side what the row's screens read first, instead of one screen's read after another's: `list`,
 * the invoice list's first page; `first`, what the other figures but CIS Bills' need (the drafts, the
 * stock-journal customer's sales and the journals); `cis`, what CIS Bills and CIS Returns read (draft and paid
 * bills, contacts, accounts).
 * An organisation's first open then takes about as long as its longest read, within the gate's background share.
 */
export async function warmUp(
  sources: FigureSources,
  ctx: RequestContext,
  part: 'list' | 'first' | 'cis',
): Promise<void> {
  const org = ctx.organization;
  const reads: Array<Promise<unknown>> = [];
  if (part === 'list') {
    if (org.featurePayInvoices) reads.push(sources.payInvoices.startInvoiceList(ctx));
  } else if (part === 'first') {
    if (org.featureAddInvoices) reads.push(sources.ensureView(ctx, { key: 'sales-draft' }));
    const customerId = org.defaultStockJournalContactId;
    if (org.featureStockJournal && customerId)
      reads.push(
        sources.ensureView(ctx, { key: 'sales-contact', contactId: customerId.toLowerCase() }),
        sources.listEntries(ctx),
      );
  } else if (org.featureCisBills) {
    reads.push(
      sources.ensureView(ctx, { key: 'bills-draft' }),
      sources.ensureView(ctx, { key: 'bills-paid' }),
      sources.syncContacts(ctx),
      sources.syncAccounts(ctx),
    );
  }
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * A row's figures for one organisation. `read`: as each screen does on a first visit (the invoice list's first
 * page, the other views whole, CIS settings, the journals), with `background` priority from the caller; the
 * list's other pages go on after this answers. `cache`: from what Ledgerlink holds.
 */
export async function computeFigures(
  sources: FigureSources,
  ctx: RequestContext,
  mode: 'read' | 'cache',
  today = getUkToday(),
  leaveOut: ReadonlySet<FigureKey> = new Set(),
): Promise<OrgFigures> {
  const org = { ...ctx.organization };
  // A figure left out is not read (it stays null; the caller says it is still being read).
  if (leaveOut.has('invoicesAwaiting')) org.featurePayInvoices = false;
  if (leaveOut.has('draftInvoices')) org.featureAddInvoices = false;
  if (leaveOut.has('stockJournalUnposted')) org.featureStockJournal = false;
  const leaveOutCis = leaveOut.has('cis');
  const leaveOutBills = leaveOut.has('draftBills');
  const figures: OrgFigures = { ...NO_FIGURES };
  const work: Array<Promise<void>> = [];
  const run = (task: () => Promise<void>) => {
    // Read from Xero side by side (the gate keeps them within the organisation's limits); from the cache in turn.
    if (mode === 'read') work.push(task());
    else work.push((work.at(-1) ?? Promise.resolve()).then(task));
  };
  if (org.featurePayInvoices)
    run(async () => {
      if (mode === 'read') await sources.payInvoices.startInvoiceList(ctx);
      const s = await sources.payInvoices.summarizeOutstanding(ctx);
      figures.invoicesAwaiting = {
        count: s.count,
        amount: fromPence(s.amountDuePence),
        otherCurrencies: s.otherCurrencies,
        complete: s.progress.complete,
        total: s.progress.total,
      };
    });
  if (org.featureAddInvoices)
    run(async () => {
      figures.draftInvoices = (await sources.listDrafts(ctx, { refresh: false })).length;
    });
  if (org.featureCisBills && !leaveOutBills)
    run(async () => {
      figures.draftBills = (await sources.listDraftBills(ctx, { refresh: false, cisOnly: true })).length;
    });
  if (org.featureCisBills && !leaveOutCis)
    run(async () => {
      figures.cis = await sources.readCisMonth(ctx);
    });
  const customerId = org.defaultStockJournalContactId;
  if (org.featureStockJournal && customerId)
    run(async () => {
      const weeks = getUnpostedWeeksRange(today);
      const [periods, entries] = await Promise.all([
        sources.getSales(ctx, { customerId, ...weeks, refresh: false }),
        mode === 'read' ? sources.listEntries(ctx) : sources.listKnownEntries(ctx),
      ]);
      // The screen's "Unposted" filter on the screen's own periods and entries.
      figures.stockJournalUnposted = filterPeriodsByJournalStatus(
        periods,
        indexStockJournalEntries(entries),
        'unposted',
      ).length;
      figures.stockJournalWeeks = weeks;
    });
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return figures;
}
