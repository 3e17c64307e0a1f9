/**
 * Stock Journal contracts and rules (docs/product/features.md §2–§9 Stock Journal; docs/architecture.md §4
 * Stock Journal).
 *
 * Weeks run Monday to Sunday. A week that spans two calendar months is split into two sub-periods, each
 * with its own journal, looked up by the key `periodStart_periodEnd`. Periods are always whole weeks (not
 * clipped to the from/to filter) so a period's key does not change when the user changes the date range.
 * All sums are in integer pence; the journal amount is net ÷ margin rate rounded half up to the penny,
 * computed as an exact fraction (no float division on money).
 */
import { z } from 'zod';
import { contactSchema } from './settings';
import { refreshFlagSchema } from './input';
import {
  compareIsoDates,
  documentDateSchema,
  formatDateMedium,
  formatDateShort,
  getDaysBetween,
  getMonthEnd,
  getWeekEnd,
  getWeekStart,
  isIsoDate,
  isoDateSchema,
  isSameMonth,
  splitRangeByMonth,
} from './dates';
import {
  fromPence,
  moneyAmountSchema,
  positiveMoneySchema,
  roundHalfUp,
  roundPoundsToPence,
  sumPence,
} from './money';
import type { UserMessage } from './user-message';

// The one message shape of every feature's rules (user-message.ts), re-exported for this area's callers.
export type { UserMessage } from './user-message';

/**
 * The customer filter value meaning every customer (docs/product/features.md §2 "All Customers"; §5 "not
 * 'all'").
 */
export const ALL_CUSTOMERS = 'all';
/** Longest sales range one query may ask for, in days (a bound for the server, not from the spec). */
export const MAX_SALES_RANGE_DAYS = 731;

/**
 * An invoice line of a sales period (docs/product/features.md §3 "Invoice line: customerName, invoiceNumber,
 * date, formattedDate, grossAmount, vatAmount, netAmount"). Gross = total, VAT = total tax, net = subtotal
 * (docs/architecture.md §4); negative figures come from credit notes.
 */
export const salesInvoiceLineSchema = z.object({
  customerName: z.string().nullish(),
  invoiceNumber: z.string().nullish(),
  date: isoDateSchema,
  formattedDate: z.string(),
  grossAmount: moneyAmountSchema,
  vatAmount: moneyAmountSchema,
  netAmount: moneyAmountSchema,
});
export type SalesInvoiceLine = z.infer<typeof salesInvoiceLineSchema>;

/**
 * A day of a sales period (docs/product/features.md §3 "Day: date, grossTotal, vatTotal, netTotal,
 * invoiceCount, invoices[]"), as sent.
 */
export const salesDaySchema = z.object({
  date: isoDateSchema,
  grossTotal: moneyAmountSchema,
  vatTotal: moneyAmountSchema,
  netTotal: moneyAmountSchema,
  invoiceCount: z.number().int().min(0),
  invoices: z.array(salesInvoiceLineSchema),
});
type SalesDay = z.infer<typeof salesDaySchema>;

/**
 * A day as the client reads it (docs/product/features.md §3): "Missing day totals count as 0 or an empty
 * list."
 */
export const salesDayLenientSchema = z.object({
  date: isoDateSchema,
  grossTotal: moneyAmountSchema.nullish().transform((v) => v ?? 0),
  vatTotal: moneyAmountSchema.nullish().transform((v) => v ?? 0),
  netTotal: moneyAmountSchema.nullish().transform((v) => v ?? 0),
  invoiceCount: z
    .number()
    .int()
    .min(0)
    .nullish()
    .transform((v) => v ?? 0),
  invoices: z
    .array(salesInvoiceLineSchema)
    .nullish()
    .transform((v) => v ?? []),
});

/** Totals of a period or day, in pounds. */
interface SalesTotals {
  grossTotal: number;
  vatTotal: number;
  netTotal: number;
  invoiceCount: number;
}

/** Sum day totals in pence (docs/product/features.md §3 "missing period totals are summed from the days"). */
export function sumSalesDays(days: readonly Pick<SalesDay, keyof SalesTotals>[]): SalesTotals {
  return {
    grossTotal: fromPence(sumPence(days.map((d) => roundPoundsToPence(d.grossTotal)))),
    vatTotal: fromPence(sumPence(days.map((d) => roundPoundsToPence(d.vatTotal)))),
    netTotal: fromPence(sumPence(days.map((d) => roundPoundsToPence(d.netTotal)))),
    invoiceCount: days.reduce((n, d) => n + d.invoiceCount, 0),
  };
}

/**
 * A weekly sales period as the server sends it (docs/product/features.md §3 "Sales period (weekly):
 * weekStart, weekEnd, formattedRange, grossTotal, vatTotal, netTotal, invoiceCount, days[]"). Transform-free,
 * so it is also the response schema.
 */
export const salesPeriodSchema = z.object({
  weekStart: isoDateSchema,
  weekEnd: isoDateSchema,
  formattedRange: z.string(),
  grossTotal: moneyAmountSchema,
  vatTotal: moneyAmountSchema,
  netTotal: moneyAmountSchema,
  invoiceCount: z.number().int().min(0),
  days: z.array(salesDaySchema),
});
export type SalesPeriod = z.infer<typeof salesPeriodSchema>;

/**
 * A weekly period as the client reads it (docs/product/features.md §3): missing day totals count as 0 or an
 * empty list, and "missing period totals are summed from the days". The output is a complete {@link
 * SalesPeriod}.
 */
export const salesPeriodLenientSchema = z
  .object({
    weekStart: isoDateSchema,
    weekEnd: isoDateSchema,
    formattedRange: z.string().nullish(),
    grossTotal: moneyAmountSchema.nullish(),
    vatTotal: moneyAmountSchema.nullish(),
    netTotal: moneyAmountSchema.nullish(),
    invoiceCount: z.number().int().min(0).nullish(),
    days: z
      .array(salesDayLenientSchema)
      .nullish()
      .transform((v) => v ?? []),
  })
  .transform((period): SalesPeriod => {
    const summed = sumSalesDays(period.days);
    return {
      weekStart: period.weekStart,
      weekEnd: period.weekEnd,
      formattedRange: period.formattedRange || formatPeriodRange(period.weekStart, period.weekEnd),
      grossTotal: period.grossTotal ?? summed.grossTotal,
      vatTotal: period.vatTotal ?? summed.vatTotal,
      netTotal: period.netTotal ?? summed.netTotal,
      invoiceCount: period.invoiceCount ?? summed.invoiceCount,
      days: period.days,
    };
  });

/**
 * Answer of `GET /api/xero/sales` (docs/product/features.md §7): an array of weekly periods, as the server
 * sends it.
 */
export const salesResponseSchema = z.array(salesPeriodSchema);

/** The same answer read leniently by the client (see {@link salesPeriodLenientSchema}). */
export const salesResponseLenientSchema = z.array(salesPeriodLenientSchema);

/**
 * Query of `GET /api/xero/sales` (docs/product/features.md §7): customerId (omitted for all), fromDate,
 * toDate (yyyy-MM-dd). The range may not run backwards and is at most {@link MAX_SALES_RANGE_DAYS} days.
 */
export const salesQuerySchema = z
  .object({
    customerId: z.string().min(1).max(100).optional(),
    fromDate: isoDateSchema,
    toDate: isoDateSchema,
    /** Ours: `true` brings the cached invoices up to date with Xero first (Refresh Data). */
    refresh: refreshFlagSchema,
  })
  .refine((q) => !isValidRange(q) || getDaysBetween(q.fromDate, q.toDate) >= 0, {
    message: 'fromDate must not be after toDate',
    path: ['toDate'],
  })
  .refine((q) => !isValidRange(q) || getDaysBetween(q.fromDate, q.toDate) < MAX_SALES_RANGE_DAYS, {
    message: `The date range may be at most ${MAX_SALES_RANGE_DAYS} days`,
    path: ['toDate'],
  });
export type SalesQuery = z.infer<typeof salesQuerySchema>;

/**
 * The days a sales query covers: whole Monday–Sunday weeks around the from/to dates. Periods are whole
 * weeks (their keys never change with the filter), so their totals must be whole weeks too: a journal is
 * never posted from the part of a week that happened to fall inside the filter.
 */
export function getWeeklySalesRange(fromDate: string, toDate: string): { fromDate: string; toDate: string } {
  return { fromDate: getWeekStart(fromDate), toDate: getWeekEnd(toDate) };
}

/**
 * Answer of `GET /api/xero/customers` (docs/product/features.md §3 "Customer: id, name"; §7), sorted by name.
 */
export const customersResponseSchema = z.array(contactSchema);
export type Customer = z.infer<typeof contactSchema>;

function isValidRange(q: { fromDate: unknown; toDate: unknown }): boolean {
  return isoDateSchema.safeParse(q.fromDate).success && isoDateSchema.safeParse(q.toDate).success;
}

/**
 * A stock journal entry (docs/product/features.md §3 "periodStart, periodEnd, journalId or xeroJournalId,
 * status; looked up by the key periodStart_periodEnd").
 */
export const stockJournalEntrySchema = z.object({
  periodStart: isoDateSchema,
  periodEnd: isoDateSchema,
  journalId: z.string().nullish(),
  xeroJournalId: z.string().nullish(),
  status: z.string().nullish(),
  /** Beyond the spec, for the chart and the CSV export: the journal's amount, the net it came from, its rate and narration. */
  amount: moneyAmountSchema.nullish(),
  netAmount: moneyAmountSchema.nullish(),
  marginRate: z.number().finite().nullish(),
  reference: z.string().nullish(),
});
export type StockJournalEntry = z.infer<typeof stockJournalEntrySchema>;

/** Answer of `GET /api/xero/stock-journal/entries` (docs/product/features.md §7): an array of entries. */
export const stockJournalEntryListResponseSchema = z.array(stockJournalEntrySchema);

/**
 * Body of `POST /api/xero/stock-journal` (docs/product/features.md §3 "Journal create payload: periodStart,
 * periodEnd, netAmount, contactId, stockAccountId, costAccountId, marginRate (number), reference").
 * `journalDate` is ours: the Journal Date of the Stock Journal card (docs/product/features.md §2), inside the
 * period; without it the journal is dated at the period end (docs/architecture.md §4).
 */
export const journalCreateRequestSchema = z
  .object({
    periodStart: documentDateSchema(),
    periodEnd: documentDateSchema(),
    netAmount: positiveMoneySchema,
    contactId: z.string().min(1).max(100),
    stockAccountId: z.string().min(1).max(100),
    costAccountId: z.string().min(1).max(100),
    marginRate: z.number().finite().positive().max(1000),
    reference: z.string().min(1).max(255),
    journalDate: documentDateSchema().optional(),
  })
  .strict()
  .refine(
    (body) =>
      body.journalDate === undefined ||
      !isValidRange({ fromDate: body.periodStart, toDate: body.periodEnd }) ||
      !isIsoDate(body.journalDate) ||
      (body.journalDate >= body.periodStart && body.journalDate <= body.periodEnd),
    { message: 'Journal date must be within the period', path: ['journalDate'] },
  )
  .refine(
    (body) =>
      !isValidRange({ fromDate: body.periodStart, toDate: body.periodEnd }) ||
      body.periodStart <= body.periodEnd,
    {
      message: 'Invalid date range',
      path: ['periodEnd'],
    },
  )
  .refine(
    (body) =>
      !isValidRange({ fromDate: body.periodStart, toDate: body.periodEnd }) ||
      body.periodStart > body.periodEnd ||
      getDaysBetween(body.periodStart, body.periodEnd) < 7,
    { message: 'Invalid date range', path: ['periodEnd'] },
  );
export type JournalCreateRequest = z.infer<typeof journalCreateRequestSchema>;

/**
 * Answer of the create call (docs/product/features.md §3 "Create response fields read: journalId, status").
 */
export const journalCreateResponseSchema = z.object({
  journalId: z.string().nullish(),
  status: z.string(),
});
export type JournalCreateResponse = z.infer<typeof journalCreateResponseSchema>;

/** Answer of `POST /api/xero/stock-journal/sync-status` (docs/product/features.md §3, §7): updatedCount. */
export const syncStatusResponseSchema = z.object({ updatedCount: z.number().int().min(0) });
export type SyncStatusResponse = z.infer<typeof syncStatusResponseSchema>;

/** Journal status filter (docs/product/features.md §2, §4): All Journals, Posted Only, Unposted Only. */
export const journalStatusFilterSchema = z.enum(['all', 'posted', 'unposted']);
export type JournalStatusFilter = z.infer<typeof journalStatusFilterSchema>;

/** The lookup key of a journal entry (docs/product/features.md §3): `periodStart_periodEnd`. */
export function getStockJournalKey(periodStart: string, periodEnd: string): string {
  return `${periodStart}_${periodEnd}`;
}

/** Index entries by their key (docs/product/features.md §3). */
export function indexStockJournalEntries(
  entries: readonly StockJournalEntry[],
): Map<string, StockJournalEntry> {
  return new Map(entries.map((e) => [getStockJournalKey(e.periodStart, e.periodEnd), e]));
}

/** Display of a period's range: "d MMM yyyy - d MMM yyyy". */
export function formatPeriodRange(start: string, end: string): string {
  return `${formatDateShort(start)} - ${formatDateShort(end)}`;
}

/**
 * One invoice as the grouping takes it (the line of docs/product/features.md §3 without its display date).
 */
export type SalesLineInput = Omit<SalesInvoiceLine, 'formattedDate'> & { formattedDate?: string };

/**
 * Group invoice lines into Monday–Sunday weekly periods with days (docs/product/features.md §2, §3;
 * docs/architecture.md §4), sorted by start date ascending; days ascending, invoices by date in input order.
 * Only weeks and days with invoices appear. Totals are summed in pence, so the periods add up to exactly the
 * sum of the lines.
 */
export function groupSalesByWeek(lines: readonly SalesLineInput[]): SalesPeriod[] {
  const weeks = new Map<string, Map<string, SalesInvoiceLine[]>>();
  // Many lines share a date: work out each date's week and display text once.
  const dateInfo = new Map<string, { weekStart: string; formattedDate: string }>();
  for (const line of lines) {
    let info = dateInfo.get(line.date);
    if (!info) {
      info = { weekStart: getWeekStart(line.date), formattedDate: formatDateMedium(line.date) };
      dateInfo.set(line.date, info);
    }
    let days = weeks.get(info.weekStart);
    if (!days) {
      days = new Map<string, SalesInvoiceLine[]>();
      weeks.set(info.weekStart, days);
    }
    let invoices = days.get(line.date);
    if (!invoices) {
      invoices = [];
      days.set(line.date, invoices);
    }
    // Only the fields of the line DTO, whatever else the caller's rows carry.
    invoices.push({
      customerName: line.customerName,
      invoiceNumber: line.invoiceNumber,
      date: line.date,
      formattedDate: line.formattedDate ?? info.formattedDate,
      grossAmount: line.grossAmount,
      vatAmount: line.vatAmount,
      netAmount: line.netAmount,
    });
  }
  return [...weeks.entries()]
    .sort(([a], [b]) => compareIsoDates(a, b))
    .map(([weekStart, dayMap]) => {
      const days: SalesDay[] = [...dayMap.entries()]
        .sort(([a], [b]) => compareIsoDates(a, b))
        .map(([date, invoices]) => ({
          date,
          grossTotal: fromPence(sumPence(invoices.map((i) => roundPoundsToPence(i.grossAmount)))),
          vatTotal: fromPence(sumPence(invoices.map((i) => roundPoundsToPence(i.vatAmount)))),
          netTotal: fromPence(sumPence(invoices.map((i) => roundPoundsToPence(i.netAmount)))),
          invoiceCount: invoices.length,
          invoices,
        }));
      const weekEnd = getWeekEnd(weekStart);
      return {
        weekStart,
        weekEnd,
        formattedRange: formatPeriodRange(weekStart, weekEnd),
        ...sumSalesDays(days),
        days,
      };
    });
}

/** A period a journal is posted for: a whole week, or one half of a week split at a month end. */
export interface JournalPeriod extends SalesTotals {
  periodStart: string;
  periodEnd: string;
  key: string;
  formattedRange: string;
  isSubPeriod: boolean;
  days: SalesDay[];
}

/** Whether a weekly period spans two calendar months (docs/product/features.md §2). */
export function isSplitPeriod(period: Pick<SalesPeriod, 'weekStart' | 'weekEnd'>): boolean {
  return !isSameMonth(period.weekStart, period.weekEnd);
}

/**
 * The journal periods of a week (docs/product/features.md §2): "A period spanning two calendar months is
 * split into two sub-periods: first to the end of the start month, then the next month start through the
 * period end." Each sub-period carries its own days and totals (summed from its days); a week inside one
 * month gives itself, with the week's totals.
 */
export function splitSalesPeriod(period: SalesPeriod): JournalPeriod[] {
  if (!isSplitPeriod(period)) {
    return [
      {
        periodStart: period.weekStart,
        periodEnd: period.weekEnd,
        key: getStockJournalKey(period.weekStart, period.weekEnd),
        formattedRange: period.formattedRange || formatPeriodRange(period.weekStart, period.weekEnd),
        isSubPeriod: false,
        grossTotal: period.grossTotal,
        vatTotal: period.vatTotal,
        netTotal: period.netTotal,
        invoiceCount: period.invoiceCount,
        days: period.days,
      },
    ];
  }
  return splitRangeByMonth(period.weekStart, period.weekEnd).map(({ start, end }) => {
    const days = period.days.filter((d) => d.date >= start && d.date <= end);
    return {
      periodStart: start,
      periodEnd: end,
      key: getStockJournalKey(start, end),
      formattedRange: formatPeriodRange(start, end),
      isSubPeriod: true,
      ...sumSalesDays(days),
      days,
    };
  });
}

function toRational(rate: number): { numerator: bigint; denominator: bigint } | null {
  if (!Number.isFinite(rate) || rate <= 0) return null;
  let text = String(rate);
  if (/e/i.test(text)) text = rate.toFixed(12);
  const [whole = '0', fraction = ''] = text.split('.');
  const digits = fraction.replace(/0+$/, '').slice(0, 12);
  const numerator = BigInt(`${whole}${digits}`);
  if (numerator === 0n) return null;
  return { numerator, denominator: 10n ** BigInt(digits.length) };
}

/**
 * Journal amount (docs/product/features.md §2, §9 "cost amount = net / margin rate", "2 decimals"), in pence:
 * net pence ÷ the margin rate taken as its exact decimal value, rounded half up to the penny. Null when the
 * rate is not a positive number.
 */
export function getJournalAmountPence(netPence: number, marginRate: number): number | null {
  const rate = toRational(marginRate);
  if (!rate) return null;
  return Number(roundHalfUp(BigInt(netPence) * rate.denominator, rate.numerator));
}

/** Journal amount in pounds from a net in pounds (see {@link getJournalAmountPence}); 0 when the rate is invalid. */
export function getJournalAmount(net: number, marginRate: number): number {
  return fromPence(getJournalAmountPence(roundPoundsToPence(net), marginRate) ?? 0);
}

/**
 * The journal reference and narration (docs/product/features.md §3): 'Stock Transfer Journal - {start d MMM
 * yyyy} to {end d MMM yyyy}', e.g. "Stock Transfer Journal - 3 Nov 2025 to 9 Nov 2025".
 */
export function getStockJournalReference(periodStart: string, periodEnd: string): string {
  return `Stock Transfer Journal - ${formatDateShort(periodStart)} to ${formatDateShort(periodEnd)}`;
}

/**
 * How people name a journal period when two of them act on it at once (issue 28, one writer per document):
 * "The week of 16 Nov 2026" for a whole Monday–Sunday week, "The journal for 1 Dec 2026 to 6 Dec 2026" for one
 * side of a week split at a month end. The refusal reads "… is being posted by carol; try again in a moment."
 */
export function getJournalPeriodLabel(periodStart: string, periodEnd: string): string {
  if (periodStart === getWeekStart(periodStart) && periodEnd === getWeekEnd(periodStart))
    return `The week of ${formatDateShort(periodStart)}`;
  return `The journal for ${formatDateShort(periodStart)} to ${formatDateShort(periodEnd)}`;
}

const MONTH_NUMBERS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

function parseReferenceDate(text: string): string | null {
  const trimmed = text.trim();
  if (isIsoDate(trimmed)) return trimmed;
  const match = /^(\d{1,2}) ([A-Za-z]{3}) (\d{4})$/.exec(trimmed);
  const month = match ? MONTH_NUMBERS[match[2]!.toLowerCase()] : undefined;
  if (!match || !month) return null;
  const iso = `${match[3]}-${String(month).padStart(2, '0')}-${match[1]!.padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : null;
}

/**
 * Reads the period back from a journal's narration: the reference of docs/product/features.md §3, or the same
 * words with ISO dates (as journals posted before Ledgerlink may carry), with or without the mark of the write
 * that posted it after them (" [LL-0123456789]", issue 28: journals posted since carry it, older ones do not).
 * Null for any other narration, or a range that runs backwards or is longer than a week.
 */
export function parseStockJournalReference(
  narration: string | null | undefined,
): { periodStart: string; periodEnd: string } | null {
  const text = (narration ?? '').trim().replace(/ \[LL-[0-9a-f]{10}\]$/, '');
  const match = /^Stock Transfer Journal - (.+) to (.+)$/.exec(text);
  if (!match) return null;
  const periodStart = parseReferenceDate(match[1]!);
  const periodEnd = parseReferenceDate(match[2]!);
  if (!periodStart || !periodEnd || periodStart > periodEnd || getDaysBetween(periodStart, periodEnd) >= 7)
    return null;
  return { periodStart, periodEnd };
}

/**
 * Whether a range is a journal period: a Monday–Sunday week inside one month, or one side of a week split
 * at a month end (docs/product/features.md §2), so a journal is always dated in the month whose sales it
 * covers.
 */
export function isJournalPeriod(periodStart: string, periodEnd: string): boolean {
  if (!isIsoDate(periodStart) || !isIsoDate(periodEnd) || periodStart > periodEnd) return false;
  if (getWeekStart(periodStart) !== getWeekStart(periodEnd) || !isSameMonth(periodStart, periodEnd))
    return false;
  const startsRight = getWeekStart(periodStart) === periodStart || periodStart.endsWith('-01');
  const endsRight = getWeekEnd(periodEnd) === periodEnd || getMonthEnd(periodEnd) === periodEnd;
  return startsRight && endsRight;
}

/**
 * Journal Date default (docs/product/features.md §2 "defaulting to the last day's date"): the last day with
 * sales, else the period end.
 */
export function getDefaultJournalDate(period: {
  periodEnd: string;
  days: readonly Pick<SalesDay, 'date'>[];
}): string {
  const dates = period.days.map((d) => d.date).sort(compareIsoDates);
  return dates[dates.length - 1] ?? period.periodEnd;
}

/**
 * The state of a period's journal as the screen shows it (docs/product/features.md §4): none, draft, posted,
 * or anything else = unclear. (Xero's own ManualJournal statuses are the Xero port's `Journal.status`.)
 */
export type JournalState = 'none' | 'draft' | 'posted' | 'unclear';

/** The id of an entry's journal: journalId or xeroJournalId (docs/product/features.md §3). */
export function getJournalId(entry: StockJournalEntry | null | undefined): string | null {
  return entry?.journalId || entry?.xeroJournalId || null;
}

/**
 * Journal status of a period (docs/product/features.md §4): no entry (or status "none" with no journal id) is
 * none; "draft" and "posted" (any letter case, Xero sends DRAFT/POSTED) are themselves; anything else is
 * unclear.
 */
export function getJournalState(entry: StockJournalEntry | null | undefined): JournalState {
  if (!entry) return 'none';
  const status = (entry.status ?? '').trim().toLowerCase();
  if (status === 'draft' || status === 'posted') return status;
  if ((status === '' || status === 'none') && !getJournalId(entry)) return 'none';
  return 'unclear';
}

/**
 * The post button is disabled "while posting, when a journal already exists for the period, or when net
 * is 0 or less" (docs/product/features.md §4).
 */
export function canPostJournal(input: {
  isPosting: boolean;
  entry: StockJournalEntry | null | undefined;
  netTotal: number;
}): boolean {
  return !input.isPosting && getJournalId(input.entry) === null && roundPoundsToPence(input.netTotal) > 0;
}

/**
 * Journal status filter (docs/product/features.md §4): "'posted' keeps periods whose journal exists and is
 * posted; 'unposted' keeps periods with no journal entry (a draft therefore counts as not unposted); 'all'
 * keeps everything". For a split week: posted when every half is posted, unposted when no half has an entry.
 */
export function filterPeriodsByJournalStatus<T extends Pick<SalesPeriod, 'weekStart' | 'weekEnd'>>(
  periods: readonly T[],
  entries: ReadonlyMap<string, StockJournalEntry>,
  filter: JournalStatusFilter,
): T[] {
  if (filter === 'all') return [...periods];
  return periods.filter((period) => {
    const halves = isSplitPeriod(period)
      ? splitRangeByMonth(period.weekStart, period.weekEnd)
      : [{ start: period.weekStart, end: period.weekEnd }];
    const found = halves.map((h) => entries.get(getStockJournalKey(h.start, h.end)));
    if (filter === 'posted') return found.every((e) => e !== undefined && getJournalState(e) === 'posted');
    return found.every((e) => e === undefined);
  });
}

/**
 * Posting checks of docs/product/features.md §5, in order, each an error toast: customer specific (not
 * 'all'); stock account, cost account and margin rate all set; margin rate a number above zero; period net
 * above 0.
 */
export function validateJournalPosting(input: {
  customerId: string | null | undefined;
  stockAccountId: string | null | undefined;
  costAccountId: string | null | undefined;
  marginRate: number | string | null | undefined;
  netTotal: number;
}): UserMessage | null {
  if (!input.customerId || input.customerId === ALL_CUSTOMERS) {
    return {
      title: 'Customer Required',
      description: "Please select a specific customer in the settings page under 'Stock Journal Settings'.",
    };
  }
  const rateMissing = input.marginRate === null || input.marginRate === undefined || input.marginRate === '';
  if (!input.stockAccountId || !input.costAccountId || rateMissing) {
    return {
      title: 'Configuration Required',
      description: 'Please complete the stock journal settings first.',
    };
  }
  const rate = typeof input.marginRate === 'number' ? input.marginRate : Number(input.marginRate);
  if (!Number.isFinite(rate) || rate <= 0) {
    return {
      title: 'Invalid Margin Rate',
      description: 'Margin rate must be a positive number greater than zero.',
    };
  }
  if (roundPoundsToPence(input.netTotal) <= 0) {
    return {
      title: 'No Sales Data',
      description: 'There are no sales for this period. A journal cannot be created without sales data.',
    };
  }
  return null;
}

/** The legacy confirm path's check (docs/product/features.md §5): a week and a customer are required. */
export function validateJournalConfirmation(input: {
  periodStart?: string | null;
  customerId?: string | null;
}): UserMessage | null {
  if (input.periodStart && input.customerId && input.customerId !== ALL_CUSTOMERS) return null;
  return {
    title: 'Missing Required Information',
    description: "Please ensure you've selected a week and customer before creating a journal.",
  };
}

/** The create payload for a journal period (docs/product/features.md §3), with the spec's reference. */
export function buildJournalCreateRequest(input: {
  period: Pick<JournalPeriod, 'periodStart' | 'periodEnd' | 'netTotal'>;
  contactId: string;
  stockAccountId: string;
  costAccountId: string;
  marginRate: number;
}): JournalCreateRequest {
  return {
    periodStart: input.period.periodStart,
    periodEnd: input.period.periodEnd,
    netAmount: input.period.netTotal,
    contactId: input.contactId,
    stockAccountId: input.stockAccountId,
    costAccountId: input.costAccountId,
    marginRate: input.marginRate,
    reference: getStockJournalReference(input.period.periodStart, input.period.periodEnd),
  };
}

/**
 * What the server answers when it refuses a journal. The client maps a 400 by keyword
 * (docs/product/features.md §8 "Invalid Journal Data"), so each names what is wrong: customer, account,
 * margin rate or date.
 */
export const JOURNAL_SERVER_MESSAGES = {
  alreadyExists:
    'A journal entry already exists for this period. Check your Xero account for the existing journal.',
  sameAccounts:
    'Invalid account selection: the stock account and the cost account must be different accounts.',
  unknownCustomer: 'Invalid customer: this customer was not found in Xero.',
  badPeriod: 'Invalid date range: a journal covers one Monday to Sunday week, split at a month end.',
  salesChanged: 'The sales for this period have changed since they were loaded. Refresh Data and try again.',
  zeroAmount: 'Invalid margin rate: the journal amount would be £0.00.',
  noAnswer: 'Xero did not return the journal it created.',
} as const;

/** The invoices of a period, sorted by date (docs/product/features.md §2), stable within a day. */
export function sortInvoiceLines<T extends Pick<SalesInvoiceLine, 'date'>>(lines: readonly T[]): T[] {
  return [...lines].sort((a, b) => compareIsoDates(a.date, b.date));
}

/**
 * "View in Xero" (docs/product/features.md §2): the journal's view page when posted, else its edit page,
 * under the given Xero web base URL (https://go.xero.com for the real Xero).
 */
export function getJournalXeroUrl(
  journalId: string,
  status: JournalState,
  baseUrl = 'https://go.xero.com',
): string {
  const page = status === 'posted' ? 'View' : 'Edit';
  return `${baseUrl.replace(/\/+$/, '')}/Journal/${page}.aspx?invoiceID=${encodeURIComponent(journalId)}`;
}

/**
 * Xero's list of manual journals, for 'Check in Xero' when a journal's id is not known
 * (docs/product/features.md §4).
 */
export function getManualJournalsXeroUrl(baseUrl = 'https://go.xero.com'): string {
  return `${baseUrl.replace(/\/+$/, '')}/Journal/Search.aspx`;
}
