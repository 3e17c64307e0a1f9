import { USER_MESSAGES } from './api-client';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { makeConnection } from '@/client/testing/fixtures';
import { server } from '@/client/testing/server';
import { getConnection } from './connection';
import { LOCAL_KEYS, SESSION_KEYS } from './storage';

describe('connection status (spec 000 §3–§4)', () => {
  it('applies the defaults: empty ids, "Tax inclusive", margin 1.35, flags false', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json({ connected: true, tenantName: 'Shop' })),
    );
    const connection = await getConnection();
    expect(connection).toMatchObject({
      connected: true,
      defaultCashAccountId: '',
      defaultTaxStatus: 'Tax inclusive',
      defaultStockJournalMarginRate: 1.35,
      defaultStockJournalPostingStatus: 'draft',
      featureCisBills: false,
    });
  });

  it('a failed call reports connected false with the error text', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ message: 'Token refresh failed' }, { status: 400 }),
      ),
    );
    await expect(getConnection()).resolves.toMatchObject({ connected: false, error: 'Token refresh failed' });
  });

  it('a failure without a body says so in words, not the status text (issue 17 item 12)', async () => {
    server.use(http.get('*/api/xero/connection', () => new HttpResponse('', { status: 500 })));
    await expect(getConnection()).resolves.toMatchObject({
      connected: false,
      error: USER_MESSAGES.serverFault,
    });
  });

  it('saves the defaults when connected and restores them when the connection fails', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({
            defaultBillAccountId: 'bill-1',
            defaultBillVatRateId: 'vat-20',
            defaultStockJournalContactId: 'c-9',
            defaultStockJournalMarginRate: 1.5,
          }),
        ),
      ),
    );
    await getConnection();
    expect(JSON.parse(localStorage.getItem(LOCAL_KEYS.savedDefaults) ?? '{}')).toEqual({
      defaultBillAccountId: 'bill-1',
      defaultBillVatRateId: 'vat-20',
      defaultStockJournalContactId: 'c-9',
      defaultStockJournalMarginRate: 1.5,
    });
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Token has expired' }),
      ),
    );
    await expect(getConnection()).resolves.toMatchObject({
      connected: false,
      defaultBillAccountId: 'bill-1',
      defaultStockJournalMarginRate: 1.5,
    });
  });

  it('"Not authenticated" sets the session-expired flag', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
      ),
    );
    await getConnection();
    expect(sessionStorage.getItem(SESSION_KEYS.lastAuthState)).toBe('session_expired');
  });
});

describe('a connection found lost by an answer (issue 45 item 2)', () => {
  it('is lost at once, then says why when the server agrees', async () => {
    const { QueryClient } = await import('@tanstack/react-query');
    const { markConnectionLost } = await import('./connection');
    const { queryKeys } = await import('./query-client');
    const { getConnectionState } = await import('@/shared/connection-rules');
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Token refresh failed', lostReason: 'revoked' }),
      ),
    );
    const client = new QueryClient();
    client.setQueryData(queryKeys.connection, makeConnection());
    markConnectionLost(client);
    expect(getConnectionState(client.getQueryData(queryKeys.connection))).toEqual({
      kind: 'lost',
      reason: null,
    });
    await expect
      .poll(() => getConnectionState(client.getQueryData(queryKeys.connection)))
      .toEqual({ kind: 'lost', reason: 'revoked' });
  });

  it('stays lost when the server still says connected: the usual re-read decides', async () => {
    const { QueryClient } = await import('@tanstack/react-query');
    const { markConnectionLost } = await import('./connection');
    const { queryKeys } = await import('./query-client');
    let reads = 0;
    server.use(
      http.get('*/api/xero/connection', () => {
        reads += 1;
        return HttpResponse.json(makeConnection());
      }),
    );
    const client = new QueryClient();
    markConnectionLost(client);
    await expect.poll(() => reads).toBe(1);
    expect((client.getQueryData(queryKeys.connection) as { connected: boolean }).connected).toBe(false);
  });
});
