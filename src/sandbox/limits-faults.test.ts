import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from './sandbox';
import { api, connect, startTestSandbox, tenantByName } from './test/sandbox';

let sandbox: Sandbox;
let token = '';
let shop = '';
let builders = '';

beforeAll(async () => {
  sandbox = await startTestSandbox({ minuteLimit: 10, concurrentLimit: 3, dailyLimit: 40 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
  sandbox.configure({ minuteLimit: 10, concurrentLimit: 3, dailyLimit: 40 });
  const c = await connect(sandbox);
  token = c.tokens.access_token;
  shop = tenantByName(c.tenants, 'Demo Shop Ltd');
  builders = tenantByName(c.tenants, 'Demo Builders Ltd');
});

/** Redeems a refresh token at the sandbox's token endpoint, as the test client. */
const refreshToken = (token: string) =>
  fetch(`${sandbox.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: 'test-client',
      client_secret: 'test-secret',
    }),
  });
const org = (tenant = shop) => api(sandbox, token, tenant, 'GET', '/Organisation');

async function authorisedInvoice(): Promise<{ id: string; due: number; cardId: string }> {
  const inv = await api<{ Invoices: { InvoiceID: string; AmountDue: number }[] }>(
    sandbox,
    token,
    shop,
    'GET',
    `/Invoices?page=1&pageSize=1&Statuses=AUTHORISED&where=${encodeURIComponent('Type=="ACCREC" AND AmountPaid==0')}`,
  );
  const accounts = await api<{ Accounts: { AccountID: string; Name: string }[] }>(
    sandbox,
    token,
    shop,
    'GET',
    '/Accounts',
  );
  const first = inv.body.Invoices[0];
  return {
    id: first?.InvoiceID ?? '',
    due: first?.AmountDue ?? 0,
    cardId: accounts.body.Accounts.find((a) => a.Name === 'Business Credit Card')?.AccountID ?? '',
  };
}

describe('rate limits', () => {
  it('sends the remaining-limit headers on every answer and 429s the 11th call in a minute', async () => {
    const first = await org();
    expect(first.headers.get('x-minlimit-remaining')).toBe('9');
    expect(first.headers.get('x-daylimit-remaining')).toBe('39');
    expect(Number(first.headers.get('x-appminlimit-remaining'))).toBeGreaterThan(0);
    for (let i = 0; i < 9; i++) expect((await org()).status).toBe(200);
    const limited = await org();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-rate-limit-problem')).toBe('minute');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-minlimit-remaining')).toBe('0');
    // Per tenant: the other organisation is unaffected.
    expect((await org(builders)).status).toBe(200);
    sandbox.advanceClock(61);
    try {
      expect((await org()).status).toBe(200);
    } finally {
      sandbox.setClockOffset(0);
    }
    expect(sandbox.ledger().violations.minute).toBe(1);
  });

  it('enforces the daily budget with a long Retry-After', async () => {
    sandbox.configure({ minuteLimit: 1000, dailyLimit: 3 });
    for (let i = 0; i < 3; i++) expect((await org()).status).toBe(200);
    const limited = await org();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-rate-limit-problem')).toBe('day');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(80_000);
    expect(sandbox.ledger().violations.day).toBe(1);
  });

  it('allows only concurrentLimit calls in flight per tenant', async () => {
    sandbox.setFaults({ latencyMs: 150 });
    const results = await Promise.all(Array.from({ length: 5 }, () => org()));
    sandbox.clearFaults();
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(results.find((r) => r.status === 429)?.headers.get('x-rate-limit-problem')).toBe('concurrent');
    expect(sandbox.ledger().violations.concurrent).toBe(2);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, and refuses the key with another body', async () => {
    sandbox.configure({ minuteLimit: 1000 });
    const { id, cardId } = await authorisedInvoice();
    const body = {
      Payments: [
        { Invoice: { InvoiceID: id }, Account: { AccountID: cardId }, Amount: 1.23, Date: '2026-01-06' },
      ],
    };
    const headers = { 'Idempotency-Key': 'pay-1' };
    const first = await api<{ Payments: { PaymentID: string }[] }>(
      sandbox,
      token,
      shop,
      'PUT',
      '/Payments',
      body,
      headers,
    );
    const second = await api<{ Payments: { PaymentID: string }[] }>(
      sandbox,
      token,
      shop,
      'PUT',
      '/Payments',
      body,
      headers,
    );
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.Payments[0]?.PaymentID).toBe(first.body.Payments[0]?.PaymentID);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(sandbox.ledger().writes.filter((w) => w.kind === 'payment')).toHaveLength(1);
    const other = await api<{ Detail: string }>(
      sandbox,
      token,
      shop,
      'PUT',
      '/Payments',
      { Payments: [{ ...body.Payments[0], Amount: 2 }] },
      headers,
    );
    expect(other.status).toBe(400);
    expect(other.body.Detail).toContain('different request');
    // Errors are replayed too, even when the state would now allow the call.
    const tooMuch = {
      Payments: [{ Invoice: { InvoiceID: id }, Account: { AccountID: cardId }, Amount: 1_000_000 }],
    };
    const err1 = await api(sandbox, token, shop, 'PUT', '/Payments', tooMuch, { 'Idempotency-Key': 'pay-2' });
    const err2 = await api(sandbox, token, shop, 'PUT', '/Payments', tooMuch, { 'Idempotency-Key': 'pay-2' });
    expect(err1.status).toBe(400);
    expect(err2.status).toBe(400);
    expect(err2.text).toBe(err1.text);
    // After the 6-minute window the key is free again.
    sandbox.advanceClock(361);
    try {
      const later = await api<{ Payments: { PaymentID: string }[] }>(
        sandbox,
        token,
        shop,
        'PUT',
        '/Payments',
        body,
        headers,
      );
      expect(later.body.Payments[0]?.PaymentID).not.toBe(first.body.Payments[0]?.PaymentID);
    } finally {
      sandbox.setClockOffset(0);
    }
  });
});

describe('faults', () => {
  it('adds latency', async () => {
    sandbox.setFaults({ latencyMs: 120 });
    const t0 = Date.now();
    expect((await org()).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    sandbox.clearFaults();
  });

  it('fails calls with 500/503 by rate or for the next N calls', async () => {
    sandbox.setFaults({ errorRate: 1, errorStatus: 503 });
    expect((await org()).status).toBe(503);
    sandbox.clearFaults();
    sandbox.setFaults({ failNext: 2, errorStatus: 500 });
    expect((await org()).status).toBe(500);
    expect((await org()).status).toBe(500);
    expect((await org()).status).toBe(200);
    expect(sandbox.ledger().faults.error).toBe(3);
  });

  it('answers 429 bursts with or without Retry-After', async () => {
    sandbox.setFaults({ rateLimitBurst: { count: 1, retryAfterSeconds: 7 } });
    const a = await org();
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('7');
    expect(a.headers.get('x-rate-limit-problem')).toBe('minute');
    sandbox.setFaults({ rateLimitBurst: { count: 1, retryAfterSeconds: null, problem: 'concurrent' } });
    const b = await org();
    expect(b.status).toBe(429);
    expect(b.headers.get('retry-after')).toBeNull();
    expect((await org()).status).toBe(200);
  });

  it('applies a write, then drops the connection; a retry with the same key replays without paying twice', async () => {
    const { id, cardId } = await authorisedInvoice();
    const body = {
      Payments: [
        { Invoice: { InvoiceID: id }, Account: { AccountID: cardId }, Amount: 5, Date: '2026-01-06' },
      ],
    };
    sandbox.setFaults({ dropAfterWrite: 1 });
    await expect(
      api(sandbox, token, shop, 'PUT', '/Payments', body, { 'Idempotency-Key': 'drop-1' }),
    ).rejects.toThrow();
    const payments = sandbox.ledger().writes.filter((w) => w.kind === 'payment');
    expect(payments).toHaveLength(1);
    const retry = await api<{ Payments: { PaymentID: string }[] }>(
      sandbox,
      token,
      shop,
      'PUT',
      '/Payments',
      body,
      { 'Idempotency-Key': 'drop-1' },
    );
    expect(retry.status).toBe(200);
    expect(retry.body.Payments[0]?.PaymentID).toBe(payments[0]?.id);
    expect(sandbox.ledger().writes.filter((w) => w.kind === 'payment')).toHaveLength(1);
    expect(sandbox.ledger().faults.dropped).toBe(1);
  });

  it('expires and revokes tokens through the control endpoint (loopback only)', async () => {
    const c = await connect(sandbox);
    const expire = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ expireTokens: true }),
    });
    expect(expire.status).toBe(200);
    const expired = await api<{ Detail: string }>(
      sandbox,
      c.tokens.access_token,
      shop,
      'GET',
      '/Organisation',
    );
    expect(expired.status).toBe(401);
    expect(expired.body.Detail).toMatch(/^TokenExpired/);
    const refreshed = await refreshToken(c.tokens.refresh_token);
    const fresh = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect((await api(sandbox, fresh.access_token, shop, 'GET', '/Organisation')).status).toBe(200);

    await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ revokeTokens: { email: 'owner@demoshop.example' } }),
    });
    expect((await api(sandbox, fresh.access_token, shop, 'GET', '/Organisation')).status).toBe(401);
    const dead = await refreshToken(fresh.refresh_token);
    expect(await dead.json()).toEqual({ error: 'invalid_grant' });
  });

  it('a refresh racing a revocation hands out nothing usable: GET /connections answers 401, never an empty list', async () => {
    // Signing a token is asynchronous; a revocation landing meanwhile used to leave the new tokens live for a
    // grant whose connections were gone, so /connections answered [] and the app said "Removed in Xero"
    // instead of "Xero access revoked" (e2e organizations.spec, under load). Each order must hold.
    const email = 'racer@demoshop.example';
    let raced = 0;
    for (let round = 0; round < 24; round++) {
      const c = await connect(sandbox, { email });
      const refreshing = refreshToken(c.tokens.refresh_token);
      await new Promise((resolve) => setTimeout(resolve, round % 6));
      sandbox.revokeTokens(email);
      const res = await refreshing;
      const body = (await res.json()) as { access_token?: string; error?: string };
      if (res.status !== 200) {
        expect(body).toEqual({ error: 'invalid_grant' });
        raced += 1;
        continue;
      }
      const listed = await fetch(`${sandbox.url}/connections`, {
        headers: { authorization: `Bearer ${body.access_token}` },
      });
      expect(listed.status, await listed.text()).toBe(401);
    }
    // Some rounds revoked before or during the refresh (the race this is about), not all after it.
    expect(raced).toBeGreaterThan(0);
  });

  it('sets faults, clock and auto-consent over HTTP and reports them', async () => {
    const set = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failNext: 1, errorStatus: 503 }),
    });
    expect(((await set.json()) as { faults: Record<string, unknown> }).faults).toMatchObject({
      failNext: 1,
      errorStatus: 503,
    });
    const bad = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errorStatus: 418 }),
    });
    expect(bad.status).toBe(400);
    await fetch(`${sandbox.url}/__sandbox/faults`, { method: 'DELETE' });
    expect((await org()).status).toBe(200);
    const clock = await fetch(`${sandbox.url}/__sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceSeconds: 3600 }),
    });
    const now = Date.parse(((await clock.json()) as { now: string }).now);
    expect(now - Date.now()).toBeGreaterThan(3_500_000);
    await fetch(`${sandbox.url}/__sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reset: true }),
    });
    const consent = await fetch(`${sandbox.url}/__sandbox/auto-consent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bookkeeper@demobuilders.example', tenants: ['Demo Builders Ltd'] }),
    });
    expect(consent.status).toBe(200);
    const auth = await fetch(
      `${sandbox.url}/identity/connect/authorize?response_type=code&client_id=test-client&redirect_uri=${encodeURIComponent('http://localhost:5000/api/xero/callback')}&scope=openid%20accounting.settings&state=s1`,
      { redirect: 'manual' },
    );
    expect(auth.status).toBe(302);
    expect(new URL(auth.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
    await fetch(`${sandbox.url}/__sandbox/auto-consent`, { method: 'DELETE' });
    const config = await fetch(`${sandbox.url}/__sandbox/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessTokenTtlSeconds: 5 }),
    });
    expect(((await config.json()) as { accessTokenTtlSeconds: number }).accessTokenTtlSeconds).toBe(5);
  });
});

describe('ledger', () => {
  it('counts calls per tenant, method and endpoint, token calls separately, and every write', async () => {
    await fetch(`${sandbox.url}/__sandbox/ledger`, { method: 'DELETE' });
    await org();
    await org();
    await api(sandbox, token, shop, 'GET', '/Invoices?page=1&pageSize=1');
    await org(builders);
    const res = await fetch(`${sandbox.url}/__sandbox/ledger`);
    const ledger = (await res.json()) as {
      calls: { tenantId: string; method: string; endpoint: string; count: number }[];
      totals: { all: number; byTenant: Record<string, number> };
    };
    const row = (tenant: string, endpoint: string) =>
      ledger.calls.find((c) => c.tenantId === tenant && c.endpoint === endpoint && c.method === 'GET')?.count;
    expect(row(shop, '/api.xro/2.0/Organisation')).toBe(2);
    expect(row(shop, '/api.xro/2.0/Invoices')).toBe(1);
    expect(row(builders, '/api.xro/2.0/Organisation')).toBe(1);
    expect(ledger.totals.byTenant[shop]).toBe(3);
    expect(ledger.totals.all).toBe(4);
  });

  it("counts the bytes of every answer per organisation and endpoint, as Xero's egress report does", async () => {
    await fetch(`${sandbox.url}/__sandbox/ledger`, { method: 'DELETE' });
    const received: Record<string, number> = {};
    for (const path of [
      '/Organisation',
      '/Invoices?page=1&pageSize=50',
      '/Invoices?page=1&pageSize=50&summaryOnly=true',
    ]) {
      const res = await fetch(`${sandbox.url}/api.xro/2.0${path}`, {
        headers: { authorization: `Bearer ${token}`, 'xero-tenant-id': shop, accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      const endpoint = path.split('?')[0] ?? '';
      received[endpoint] = (received[endpoint] ?? 0) + Buffer.byteLength(await res.text());
    }
    const ledger = (await (await fetch(`${sandbox.url}/__sandbox/ledger`)).json()) as {
      calls: { tenantId: string; method: string; endpoint: string; count: number; bytes: number }[];
      totals: { bytes: number; bytesByTenant: Record<string, number> };
    };
    const bytes = (endpoint: string) =>
      ledger.calls.find((c) => c.tenantId === shop && c.endpoint === `/api.xro/2.0${endpoint}`)?.bytes;
    expect(bytes('/Organisation')).toBe(received['/Organisation']);
    expect(bytes('/Invoices')).toBe(received['/Invoices']);
    expect(received['/Invoices']).toBeGreaterThan(10_000);
    expect(ledger.totals.bytesByTenant[shop]).toBe(
      (received['/Organisation'] ?? 0) + (received['/Invoices'] ?? 0),
    );
    expect(ledger.totals.bytes).toBe(ledger.totals.bytesByTenant[shop]);
  });

  it('answers control endpoints to loopback clients only', async () => {
    const remote = await sandbox.app.inject({
      method: 'GET',
      url: '/__sandbox/ledger',
      remoteAddress: '10.1.2.3',
    });
    expect(remote.statusCode).toBe(404);
    const local = await sandbox.app.inject({
      method: 'GET',
      url: '/__sandbox/info',
      remoteAddress: '127.0.0.1',
    });
    expect(local.statusCode).toBe(200);
    expect((local.json() as { orgs: { name: string }[] }).orgs.map((o) => o.name)).toEqual([
      'Demo Shop Ltd',
      'Demo Builders Ltd',
    ]);
  });
});
