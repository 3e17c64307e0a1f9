import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { TodayRow } from '@/shared/practice';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { makeTodayRow } from '@/client/testing/fixtures';

function answer(rows: TodayRow[]) {
  server.use(http.get('*/api/practice/today', () => HttpResponse.json(rows)));
}

describe('the Today page (issue 47)', () => {
  it('lists every organisation with its figures, each opening its screen on that organisation', async () => {
    answer([
      makeTodayRow(),
      makeTodayRow({
        organizationId: 8,
        tenantName: 'Ashworth Bakery Ltd',
        needsReview: 0,
        cis: null,
        draftBills: null,
      }),
    ]);
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Organisations, most urgent first' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'Bramley Builders Ltd',
      'Ashworth Bakery Ltd',
    ]);
    expect(
      screen.getByRole('link', {
        name: 'Bramley Builders Ltd: 1,200 invoices awaiting payment, £4,321.50 due',
      }),
    ).toHaveAttribute('href', '/invoices?org=7');
    expect(
      screen.getByRole('link', {
        name: /^Bramley Builders Ltd: CIS return for the tax month ending 2026-11/,
      }),
    ).toHaveAttribute('href', '/cis-returns?org=7&period=2026-11');
    expect(
      screen.getByRole('link', { name: 'Ashworth Bakery Ltd: 2 weeks of stock journal not posted' }),
    ).toHaveAttribute('href', '/stock-journal?org=8&from=2026-10-01&to=2026-11-22&status=unposted');
    // The Organizations page stays a click away.
    expect(screen.getByRole('link', { name: 'Your Xero Organizations' })).toHaveAttribute(
      'href',
      '/organizations',
    );
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('says how far a first read has got', async () => {
    answer([
      makeTodayRow(),
      makeTodayRow({ organizationId: 9, tenantName: 'Carrington Consulting Ltd', status: 'reading' }),
      makeTodayRow({
        organizationId: 10,
        tenantName: 'Dunmore Deli Ltd',
        status: 'waiting',
        invoicesAwaiting: null,
      }),
    ]);
    renderApp('/today');
    expect(await screen.findByRole('progressbar', { name: 'Reading 1 of 3 organisations' })).toHaveAttribute(
      'aria-valuenow',
      '1',
    );
    expect(screen.getByText('Waiting to be read from Xero')).toBeInTheDocument();
    expect(screen.getByText('Reading from Xero…')).toBeInTheDocument();
  });

  it('points someone with no organisation to the Organizations page', async () => {
    answer([]);
    renderApp('/today');
    expect(await screen.findByRole('heading', { name: 'No organisations yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Organizations' })).toHaveAttribute(
      'href',
      '/organizations',
    );
  });
});
