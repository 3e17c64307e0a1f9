import { render, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { INVOICES_SYNC_HEADER, type Invoice } from '@/shared/pay-invoices';
import { INVOICES_SYNC_POLL_MS } from '@/client/features/pay-invoices/api/get-invoices';
import { createQueryClient } from '@/client/lib/query-client';
import { makeConnection, makeOrganization, builderOrg } from '@/client/testing/fixtures';
import { server, signedOutHandlers } from '@/client/testing/server';
import { AppProvider } from './provider';
import { AppRouter } from './router';
import { prefetchPageData } from './page-data';

const FIRST: Invoice = {
  invoiceId: '00000000-0000-4000-8000-000000000001',
  invoiceNumber: 'INV-0001',
  contactName: 'Daily Sales',
  date: '2026-10-01',
  dueDate: '2026-10-08',
  status: 'AUTHORISED',
  totalAmount: 35,
  amountDue: 35,
  currency: 'GBP',
  attachments: [],
};

/**
 * Issue 32: on a first visit the invoice list waits for Xero, so the browser asks for it at start-up, as soon
 * as who is signed in, the connection and the organisation's features are known, rather than once the page
 * has rendered; and asks nothing the page would not.
 */
describe('the page in the address bar asks for its data at start-up', () => {
  let asked: string[];
  const onRequest = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    asked.push(`${url.pathname}${url.search}`);
  };
  // The Pay Invoices page's code is loaded before the tests, as in the browser, where its chunk downloads beside
  // the page's first questions: the tests' waits are for the data, not for Vitest compiling the page (which took
  // over 15 s at a load of 19 and failed the render's wait: issue 46).
  beforeAll(async () => {
    await import('./routes/pay-invoices');
  }, 180_000);

  beforeEach(() => {
    asked = [];
    server.events.on('request:start', onRequest);
    server.use(
      http.get('*/api/xero/invoices', () =>
        HttpResponse.json([FIRST], {
          headers: { [INVOICES_SYNC_HEADER]: JSON.stringify({ complete: false, fetched: 250, total: 5068 }) },
        }),
      ),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
      ),
    );
  });
  afterEach(() => {
    server.events.removeListener('request:start', onRequest);
  });

  it('Pay Invoices: the list of the active organisation is asked for before the page renders, and the page shows it without asking again', async () => {
    const queryClient = createQueryClient();
    await prefetchPageData('/invoices', queryClient);
    await waitFor(() => expect(asked).toContain('/api/xero/invoices?org=1'));
    // The questions it depends on came first: who is signed in, then the connection and the organisations.
    const at = (path: string) => asked.findIndex((a) => a.startsWith(path));
    expect(at('/api/auth/current-user')).toBeLessThan(at('/api/xero/connection'));
    expect(at('/api/xero/connection')).toBeLessThan(at('/api/xero/invoices'));
    expect(at('/api/user-organizations')).toBeLessThan(at('/api/xero/invoices'));

    window.history.replaceState(null, '', '/invoices');
    // The list is still being read (250 of 5,068), so the page asks again every second for the progress: held
    // here, so that a slow render (a busy machine) is not taken for the page asking again when it opens.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      render(
        <AppProvider queryClient={queryClient}>
          <AppRouter />
        </AppProvider>,
      );
      expect(await screen.findByRole('heading', { name: 'INV-0001' })).toBeInTheDocument();
      expect(screen.getByText('Loading invoices from Xero: 250 of 5,068')).toBeInTheDocument();
      expect(asked.filter((a) => a.startsWith('/api/xero/invoices'))).toHaveLength(1);
      expect(asked.filter((a) => a.startsWith('/api/xero/connection'))).toHaveLength(1);
      // A second later it asks how far the read has got.
      vi.advanceTimersByTime(INVOICES_SYNC_POLL_MS);
      await waitFor(() => expect(asked.filter((a) => a.startsWith('/api/xero/invoices'))).toHaveLength(2));
    } finally {
      vi.useRealTimers();
    }
  });

  it('a signed-out visitor: only who is signed in is asked', async () => {
    server.use(...signedOutHandlers);
    await prefetchPageData('/invoices', createQueryClient());
    expect(asked).toEqual(['/api/auth/current-user']);
  });

  it('the active organisation not connected, or Pay Invoices off for it: no invoice list is asked for', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(makeConnection({ connected: false, organizationId: null })),
      ),
    );
    await prefetchPageData('/invoices', createQueryClient());
    expect(asked.some((a) => a.startsWith('/api/xero/invoices'))).toBe(false);

    asked = [];
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(makeConnection({ featurePayInvoices: false })),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ featurePayInvoices: false }), builderOrg]),
      ),
    );
    await prefetchPageData('/invoices', createQueryClient());
    expect(asked).toContain('/api/xero/connection');
    expect(asked.some((a) => a.startsWith('/api/xero/invoices'))).toBe(false);
  });

  it('a page without data of its own asks nothing', async () => {
    await prefetchPageData('/organizations', createQueryClient());
    expect(asked).toEqual([]);
  });
});
