import { describe, expect, it } from 'vitest';
import {
  describeReadingProgress,
  getUnpostedWeeksRange,
  getUrgency,
  pickCisMonth,
  sortTodayRows,
  type CisMonthLike,
  type RankableRow,
} from './practice';

const month = (period: string, over: Partial<CisMonthLike> = {}): CisMonthLike => ({
  period,
  state: 'due',
  dueDate: `${period}-19`,
  daysToDue: 10,
  penaltyAmount: 0,
  nil: false,
  nilReturnRequired: true,
  filing: null,
  ...over,
});

const row = (name: string, over: Partial<RankableRow> = {}): RankableRow => ({
  organizationId: name.length,
  tenantName: name,
  status: 'ready',
  connection: { state: 'connected' },
  invoicesAwaiting: { count: 0, amount: 0 },
  draftInvoices: 0,
  draftBills: 0,
  cis: null,
  stockJournalUnposted: 0,
  needsReview: 0,
  ...over,
});

describe('the weeks the stock-journal figure counts', () => {
  it('runs from the start of last month to the Sunday before today', () => {
    // Saturday 28 November 2026: the week ending Sunday 22 November is the last one ended.
    expect(getUnpostedWeeksRange('2026-11-28')).toEqual({ fromDate: '2026-10-01', toDate: '2026-11-22' });
    // On a Monday the week ended yesterday.
    expect(getUnpostedWeeksRange('2026-11-30')).toEqual({ fromDate: '2026-10-01', toDate: '2026-11-29' });
    // On a Sunday that week has not ended yet.
    expect(getUnpostedWeeksRange('2026-11-29')).toEqual({ fromDate: '2026-10-01', toDate: '2026-11-22' });
    // In January, last month is December of the year before.
    expect(getUnpostedWeeksRange('2027-01-02')).toEqual({ fromDate: '2026-12-01', toDate: '2026-12-27' });
  });
});

describe('the CIS month a row shows', () => {
  it('is the overdue return with the largest penalty, the oldest of equals, with how many are overdue', () => {
    const picked = pickCisMonth([
      month('2026-12', { state: 'current' }),
      month('2026-11', { state: 'overdue', penaltyAmount: 100, daysToDue: -9 }),
      month('2026-10', { state: 'overdue', penaltyAmount: 300, daysToDue: -40 }),
      month('2026-09', { state: 'overdue', penaltyAmount: 300, daysToDue: -70 }),
    ]);
    expect(picked).toEqual({
      period: '2026-09',
      state: 'overdue',
      dueDate: '2026-09-19',
      daysToDue: -70,
      penaltyAmount: 300,
      overdueMonths: 3,
    });
  });

  it('is otherwise the newest month that has ended, as the screen opens on it', () => {
    expect(
      pickCisMonth([
        month('2026-12', { state: 'current' }),
        month('2026-11', { daysToDue: 3 }),
        month('2026-10'),
      ]),
    ).toMatchObject({ period: '2026-11', state: 'due', daysToDue: 3, overdueMonths: 0 });
    expect(
      pickCisMonth([
        month('2026-12', { state: 'current' }),
        month('2026-11', { state: 'filed', filing: {} }),
      ]),
    ).toMatchObject({ period: '2026-11', state: 'filed' });
    // A nil month before nil returns were compulsory needs none.
    expect(pickCisMonth([month('2026-03', { nil: true, nilReturnRequired: false })])).toMatchObject({
      state: 'not-needed',
    });
    expect(pickCisMonth([month('2026-12', { state: 'current' })])).toMatchObject({ state: 'current' });
    expect(pickCisMonth([])).toBeNull();
  });
});

describe('the order of the rows', () => {
  it('puts what needs doing first: reconnect, Needs review, overdue, due soon, work, invoices, reading, not connected', () => {
    const rows = [
      row('Idle'),
      row('Not connected', { connection: { state: 'not-connected' }, status: 'not-connected' }),
      row('Reading', { status: 'waiting', invoicesAwaiting: null }),
      row('Invoices', { invoicesAwaiting: { count: 3, amount: 50 } }),
      row('Work', { draftInvoices: 2 }),
      row('Due soon', { cis: { state: 'due', daysToDue: 4, penaltyAmount: 0 } }),
      row('Due later', { cis: { state: 'due', daysToDue: 12, penaltyAmount: 0 } }),
      row('Overdue small', { cis: { state: 'overdue', daysToDue: -5, penaltyAmount: 100 } }),
      row('Overdue large', { cis: { state: 'overdue', daysToDue: -60, penaltyAmount: 300 } }),
      row('Review', { needsReview: 1 }),
      row('Reconnect', { connection: { state: 'reconnect' }, status: 'failed' }),
    ];
    expect(sortTodayRows(rows).map((r) => r.tenantName)).toEqual([
      'Reconnect',
      'Review',
      'Overdue large',
      'Overdue small',
      'Due soon',
      'Work',
      'Invoices',
      'Due later',
      'Idle',
      'Reading',
      'Not connected',
    ]);
  });

  it('ranks more work higher, then more due, then by name', () => {
    const sorted = sortTodayRows([
      row('b', { draftBills: 1 }),
      row('a', { draftBills: 1 }),
      row('c', { stockJournalUnposted: 4 }),
    ]);
    expect(sorted.map((r) => r.tenantName)).toEqual(['c', 'a', 'b']);
    expect(getUrgency(row('x', { invoicesAwaiting: { count: 1, amount: 1 } }))).toBe(5);
  });
});

describe('reading progress', () => {
  it('counts the rows whose figures are in, of those that will have them', () => {
    expect(
      describeReadingProgress([
        { status: 'ready' },
        { status: 'reading' },
        { status: 'waiting' },
        { status: 'failed' },
        { status: 'not-connected' },
      ]),
    ).toEqual({ done: 2, total: 4 });
    expect(describeReadingProgress([{ status: 'ready' }, { status: 'not-connected' }])).toBeNull();
  });
});
