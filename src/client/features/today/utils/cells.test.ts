import { describe, expect, it } from 'vitest';
import type { TodayRow } from '@/shared/practice';
import { makeTodayRow } from '@/client/testing/fixtures';
import { describeCells, describeConnection } from './cells';

describe('a Today row, figure by figure', () => {
  it('says each figure and opens its screen on the organisation', () => {
    const cells = Object.fromEntries(describeCells(makeTodayRow()).map((c) => [c.key, c]));
    expect(cells.invoices).toMatchObject({
      text: '1,200 · £4,321.50',
      href: '/invoices?org=7',
      tone: 'work',
    });
    expect(cells.drafts).toMatchObject({
      text: '3',
      description: '3 drafts to approve',
      href: '/add-invoices?org=7',
    });
    expect(cells.bills).toMatchObject({ text: '0', href: '/cis-invoices?org=7', tone: 'muted' });
    expect(cells.cis).toMatchObject({
      text: 'Overdue · £100.00 penalty',
      detail: '2 months overdue',
      href: '/cis-returns?org=7&period=2026-11',
      tone: 'danger',
    });
    expect(cells.stock).toMatchObject({
      text: '2',
      href: '/stock-journal?org=7&from=2026-10-01&to=2026-11-22&status=unposted',
    });
    expect(cells.review).toMatchObject({ text: '1', href: '/settings?org=7&tab=review', tone: 'danger' });
  });

  it('shows a list still being read "so far", a feature not in use as a dash, Needs review unlinked for a non-administrator', () => {
    const cells = Object.fromEntries(
      describeCells(
        makeTodayRow({
          invoicesAwaiting: { count: 250, amount: 10, otherCurrencies: 0, complete: false, total: 5068 },
          draftBills: null,
          cis: null,
          stockJournalUnposted: null,
          canReview: false,
        }),
      ).map((c) => [c.key, c]),
    );
    expect(cells.invoices).toMatchObject({ text: '250 · £10.00', detail: 'Read so far, of 5,068' });
    expect(cells.invoices?.description).toBe('250 invoices awaiting payment so far, £10.00 due');
    expect(cells.bills).toMatchObject({ text: '—', href: null });
    expect(cells.cis).toMatchObject({ text: '—', href: null });
    expect(cells.stock).toMatchObject({ text: '—', href: null });
    expect(cells.review?.href).toBeNull();
  });

  it('says a figure is still being read while its row is read', () => {
    const cis = describeCells(makeTodayRow({ status: 'reading', pending: ['cis'], cis: null })).find(
      (c) => c.key === 'cis',
    );
    expect(cis).toMatchObject({
      text: 'Reading…',
      href: null,
      description: 'CIS return: still being read from Xero',
    });
  });

  it('says when a CIS return is due, filed or needs none', () => {
    const cis = (over: Partial<NonNullable<TodayRow['cis']>>) =>
      describeCells(makeTodayRow({ cis: { ...makeTodayRow().cis!, ...over } })).find((c) => c.key === 'cis');
    expect(cis({ state: 'due', daysToDue: 1, penaltyAmount: 0 })?.text).toBe('Due in 1 day');
    expect(cis({ state: 'due', daysToDue: 0, penaltyAmount: 0 })?.text).toBe('Due today');
    expect(cis({ state: 'filed' })).toMatchObject({ text: 'Filed', tone: 'done' });
    expect(cis({ state: 'not-needed' })?.text).toBe('No return needed');
  });

  it('describes the connection', () => {
    expect(describeConnection(makeTodayRow()).text).toBe('Connected');
    expect(
      describeConnection(
        makeTodayRow({
          connection: { state: 'connected', liveUpdates: { state: 'fallback', reason: 'gap', since: null } },
        }),
      ).tone,
    ).toBe('warning');
    expect(
      describeConnection(makeTodayRow({ connection: { state: 'reconnect', liveUpdates: null } })).text,
    ).toBe('Reconnect to Xero');
  });
});
