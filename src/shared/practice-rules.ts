/**
 * The Today page (issue 47): every organisation a bookkeeper keeps, one row each, with what needs doing. The
 * rules here are pure and zod-free (decision 022): which weeks the stock-journal figure counts, which CIS month
 * a row shows, and the order of the rows. The answer's schema is in `practice.ts`.
 */
import { addDays, getIsoWeekday, getMonthStart } from './dates';

export const CIS_ROW_STATES = ['current', 'due', 'overdue', 'filed', 'not-needed'] as const;
export type CisRowState = (typeof CIS_ROW_STATES)[number];

/** How complete a row's figures are. */
export const TODAY_ROW_STATUSES = ['ready', 'reading', 'waiting', 'failed', 'not-connected'] as const;
export type TodayRowStatus = (typeof TODAY_ROW_STATUSES)[number];

export const CONNECTION_STATES = ['connected', 'reconnect', 'not-connected'] as const;
export type TodayConnectionState = (typeof CONNECTION_STATES)[number];

/** A CIS return due within this many days is something to do today (it sorts above other work). */
export const CIS_DUE_SOON_DAYS = 7;

/**
 * The weeks the Stock Journal figure counts: the weeks that have ended (to the Sunday before today) from the start
 * of last month, so a week left unposted at a month's end is still counted in the first days of the next. The
 * row's link opens Stock Journal on exactly this range with the "Unposted" filter.
 */
export function getUnpostedWeeksRange(today: string): { fromDate: string; toDate: string } {
  const lastSunday = addDays(today, -getIsoWeekday(today));
  return { fromDate: getMonthStart(addDays(getMonthStart(today), -1)), toDate: lastSunday };
}

/** A tax month as the CIS Returns screen lists it (the fields the row needs). */
export interface CisMonthLike {
  period: string;
  state: string;
  dueDate: string;
  daysToDue: number;
  penaltyAmount: number;
  nil: boolean;
  nilReturnRequired: boolean;
  filing: unknown;
}

export interface CisRowMonth {
  period: string;
  state: CisRowState;
  dueDate: string;
  daysToDue: number;
  penaltyAmount: number;
  /** Months whose return is overdue (the row names the one with the largest penalty). */
  overdueMonths: number;
}

/** The month's state as the screen's badge says it: a nil month needing no return is "not-needed". */
function rowStateOf(month: CisMonthLike): CisRowState {
  if (month.state === 'filed' || (month.filing && month.state !== 'overdue')) return 'filed';
  if (month.state === 'current') return 'current';
  if (month.state === 'overdue' || month.penaltyAmount > 0) return 'overdue';
  if (month.nil && !month.nilReturnRequired) return 'not-needed';
  return 'due';
}

/**
 * The CIS month a row shows, from the months the CIS Returns screen lists (newest first): the overdue return with
 * the largest penalty (the oldest of equals) when any is overdue; otherwise the month the screen opens on, the
 * newest that has ended; the current month when none has. Null when the screen lists none.
 */
export function pickCisMonth(months: readonly CisMonthLike[]): CisRowMonth | null {
  const overdue = months.filter((m) => rowStateOf(m) === 'overdue');
  let chosen: CisMonthLike | undefined;
  for (const m of overdue) if (!chosen || m.penaltyAmount >= chosen.penaltyAmount) chosen = m;
  chosen ??= months.find((m) => m.state !== 'current') ?? months[0];
  if (!chosen) return null;
  return {
    period: chosen.period,
    state: rowStateOf(chosen),
    dueDate: chosen.dueDate,
    daysToDue: chosen.daysToDue,
    penaltyAmount: chosen.penaltyAmount,
    overdueMonths: overdue.length,
  };
}

/** What the order of the rows is decided on. */
export interface RankableRow {
  tenantName: string | null;
  organizationId: number;
  status: TodayRowStatus;
  connection: { state: TodayConnectionState };
  invoicesAwaiting: { count: number; amount: number } | null;
  draftInvoices: number | null;
  draftBills: number | null;
  cis: { state: CisRowState; daysToDue: number; penaltyAmount: number } | null;
  stockJournalUnposted: number | null;
  needsReview: number;
}

/** The work waiting on a row that a person does in Ledgerlink: drafts to approve, bills, weeks to post. */
export function countWork(row: RankableRow): number {
  return (row.draftInvoices ?? 0) + (row.draftBills ?? 0) + (row.stockJournalUnposted ?? 0);
}

/**
 * How urgent a row is, lowest first: a connection that needs reconnecting (nothing else can be done), writes
 * waiting for a person in Needs review, an overdue CIS return, one due within a week, other work, nothing to
 * do but invoices to collect; then rows still being read, and organisations not connected.
 */
export function getUrgency(row: RankableRow): number {
  if (row.connection.state === 'not-connected' || row.status === 'not-connected') return 7;
  if (row.connection.state === 'reconnect') return 0;
  if (row.needsReview > 0) return 1;
  if (row.cis?.state === 'overdue') return 2;
  if (row.cis?.state === 'due' && row.cis.daysToDue <= CIS_DUE_SOON_DAYS) return 3;
  if (row.status !== 'ready' && row.status !== 'reading') return 6;
  if (countWork(row) > 0) return 4;
  if ((row.invoicesAwaiting?.count ?? 0) > 0) return 5;
  return row.status === 'ready' ? 5 : 6;
}

/** The rows in the order a bookkeeper works them: most urgent first, then the most to do, then by name. */
export function sortTodayRows<T extends RankableRow>(rows: readonly T[]): T[] {
  const name = (r: RankableRow) => (r.tenantName ?? '').trim() || 'Unknown Organization';
  return [...rows].sort((a, b) => {
    const ua = getUrgency(a);
    const ub = getUrgency(b);
    if (ua !== ub) return ua - ub;
    let by = 0;
    if (ua === 1) by = b.needsReview - a.needsReview;
    else if (ua === 2) by = (b.cis?.penaltyAmount ?? 0) - (a.cis?.penaltyAmount ?? 0);
    else if (ua === 3) by = (a.cis?.daysToDue ?? 0) - (b.cis?.daysToDue ?? 0);
    else if (ua === 4) by = countWork(b) - countWork(a);
    else if (ua === 5) by = (b.invoicesAwaiting?.amount ?? 0) - (a.invoicesAwaiting?.amount ?? 0);
    if (by !== 0) return by;
    return (
      name(a).localeCompare(name(b), 'en-GB', { sensitivity: 'base' }) || a.organizationId - b.organizationId
    );
  });
}

/** "Reading 37 of 100 organisations": rows with figures shown, of the rows that will have them. */
export function describeReadingProgress(
  rows: readonly Pick<RankableRow, 'status'>[],
): { done: number; total: number } | null {
  const counted = rows.filter((r) => r.status !== 'not-connected');
  const done = counted.filter((r) => r.status === 'ready' || r.status === 'failed').length;
  if (done === counted.length) return null;
  return { done, total: counted.length };
}
