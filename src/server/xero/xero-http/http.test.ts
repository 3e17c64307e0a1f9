import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { xeroAccounts, xeroInvoices, xeroWrites } from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import { createConnectedUser, createXeroTestApp, type XeroTestApp } from '../../test/xero';
import { runCacheOnly, runInBackground } from '../call-context';
import { isNotApplied } from './http';
import { AppWindow, TenantGate } from './tenant-gate';

describe('the Xero HTTP client against the sandbox', () => {
  let t: XeroTestApp;
  let userId: number;
  let tenantId: string;
  let organizationId: number;
  let invoiceId: string;
  let accountId: string;

  beforeAll(async () => {
    t = await createXeroTestApp();
    const owner = await createConnectedUser(t, 'http.owner', { tenants: ['Demo Shop Ltd'] });
    userId = owner.user.id;
    const shop = owner.orgs[0];
    tenantId = shop?.tenantId ?? '';
    organizationId = shop?.organizationId ?? 0;
    const ctx = { organizationId, tenantId, userId };
    await t.parts.sync.syncInvoices(ctx, { key: 'sales-open' });
    await t.parts.sync.syncAccounts(ctx);
    const [inv] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const [bank] = await t.database.db
      .select()
      .from(xeroAccounts)
      .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.type, 'BANK')))
      .limit(1);
    invoiceId = inv?.invoiceId ?? '';
    accountId = bank?.accountId ?? '';
  });
  afterAll(() => t.close());

  const send = (request: Parameters<XeroTestApp['parts']['xeroHttp']['send']>[2]) =>
    t.parts.xeroHttp.send(userId, tenantId, request);
  const paymentBody = (amount: number) => ({
    Payments: [
      {
        Invoice: { InvoiceID: invoiceId },
        Account: { AccountID: accountId },
        Amount: amount,
        Date: '2026-11-20',
      },
    ],
  });
  const paymentsFor = () => t.sandbox.ledger().writes.filter((w) => w.kind === 'payment');

  it('found seeded data to work with', () => {
    expect(invoiceId).not.toBe('');
    expect(accountId).not.toBe('');
  });

  it('retries a read through 5xx answers', async () => {
    t.sandbox.setFaults({ failNext: 2, errorStatus: 503 });
    const res = await send({ method: 'GET', path: '/api.xro/2.0/Organisation' });
    expect(res.status).toBe(200);
    t.sandbox.clearFaults();
  });

  it('a failed single-invoice refresh is said after one try, not after the back-off (issue 17 item 18)', async () => {
    t.sandbox.setFaults({ errorRate: 1, errorStatus: 503, pathPrefix: '/api.xro/2.0/Invoices/' });
    try {
      const before = t.sandbox.ledger().totals.all;
      await expect(
        t.parts.sync.refreshInvoice({ organizationId, tenantId, userId }, invoiceId),
      ).rejects.toMatchObject({ code: 'XERO_UNAVAILABLE' });
      expect(t.sandbox.ledger().totals.all - before).toBe(1);
    } finally {
      t.sandbox.clearFaults();
    }
    // Other reads keep their retries through a passing 5xx.
    t.sandbox.setFaults({ failNext: 1, errorStatus: 503 });
    expect((await send({ method: 'GET', path: `/api.xro/2.0/Invoices/${invoiceId}` })).status).toBe(200);
    t.sandbox.clearFaults();
  });

  it('does not resend a write without an idempotency key after a 5xx', async () => {
    t.sandbox.setFaults({ failNext: 1, errorStatus: 500 });
    const before = t.sandbox.ledger().totals.all;
    await expect(
      send({ method: 'PUT', path: '/api.xro/2.0/Payments', body: paymentBody(0.01) }),
    ).rejects.toMatchObject({ code: 'XERO_UNAVAILABLE' });
    expect(t.sandbox.ledger().totals.all - before).toBe(1);
    t.sandbox.clearFaults();
  });

  it('retries a write with the same key when the answer is lost, and Xero applies it once', async () => {
    const before = paymentsFor().length;
    t.sandbox.setFaults({ dropAfterWrite: 1 });
    const res = await send({
      method: 'PUT',
      path: '/api.xro/2.0/Payments',
      body: paymentBody(0.02),
      idempotencyKey: 'http-test-drop-1',
    });
    expect(res.status).toBe(200);
    expect(paymentsFor().length - before).toBe(1);
    t.sandbox.clearFaults();
  });

  it('waits out a 429 with Retry-After, and one without it', async () => {
    t.sandbox.setFaults({ rateLimitBurst: { count: 1, retryAfterSeconds: 1 } });
    const started = Date.now();
    expect((await send({ method: 'GET', path: '/api.xro/2.0/Organisation' })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    t.sandbox.setFaults({ rateLimitBurst: { count: 1, retryAfterSeconds: null } });
    expect((await send({ method: 'GET', path: '/api.xro/2.0/Organisation' })).status).toBe(200);
  });

  it('refreshes once and retries when Xero says the token is no longer valid', async () => {
    t.sandbox.expireTokens();
    const before = t.sandbox.ledger().refreshCount;
    expect((await send({ method: 'GET', path: '/api.xro/2.0/Organisation' })).status).toBe(200);
    expect(t.sandbox.ledger().refreshCount - before).toBe(1);
  });

  it('keeps at most 5 calls in flight for one organisation', async () => {
    t.sandbox.setFaults({ latencyMs: 40 });
    const before = t.sandbox.ledger().violations;
    await Promise.all(
      Array.from({ length: 25 }, () => send({ method: 'GET', path: '/api.xro/2.0/Organisation' })),
    );
    const after = t.sandbox.ledger().violations;
    expect(after.concurrent - before.concurrent).toBe(0);
    expect(after.minute - before.minute).toBe(0);
    t.sandbox.clearFaults();
  });
  it('a write Xero refused before processing (429 with a long Retry-After) is recorded as failed, not unknown', async () => {
    t.sandbox.setFaults({
      rateLimitBurst: { count: 1, problem: 'minute', retryAfterSeconds: 600 },
      pathPrefix: '/api.xro/2.0/Payments',
    });
    const key = crypto.randomUUID();
    const before = paymentsFor().length;
    const error = await t.parts.ledger
      .execute({
        organizationId,
        tenantId,
        userId,
        kind: 'payment',
        idempotencyKey: key,
        request: paymentBody(0.02),
        send: (idempotencyKey) =>
          send({
            method: 'PUT',
            path: '/api.xro/2.0/Payments',
            body: paymentBody(0.02),
            idempotencyKey,
          }).then(() => ({ xeroId: null, response: {} })),
      })
      .catch((e: unknown) => e);
    t.sandbox.clearFaults();
    expect(isNotApplied(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'XERO_RATE_LIMITED',
      message: "Xero's call limit for this organisation has been reached. Please try again later.",
    });
    expect(paymentsFor()).toHaveLength(before);
    const [row] = await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.idempotencyKey, key));
    expect(row).toMatchObject({ state: 'failed' });
  });

  it('a write whose answer was lost is never called "not applied", whatever comes after', async () => {
    t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Payments' });
    const error = await t.parts.xeroHttp
      .send(userId, tenantId, { method: 'PUT', path: '/api.xro/2.0/Payments', body: paymentBody(0.03) })
      .catch((e: unknown) => e);
    t.sandbox.clearFaults();
    expect(error).toMatchObject({ code: 'XERO_UNAVAILABLE' });
    expect(isNotApplied(error)).toBe(false);
  });

  it('stops at a daily-limit 429 with a clear message instead of hammering Xero', async () => {
    t.sandbox.setFaults({ rateLimitBurst: { count: 1, problem: 'day', retryAfterSeconds: 40_000 } });
    const error = await send({ method: 'GET', path: '/api.xro/2.0/Organisation' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toContain("Xero's call limit for this organisation has been reached");
    // Until Retry-After has passed, calls fail fast without reaching Xero.
    const before = t.sandbox.ledger().totals.all;
    await expect(send({ method: 'GET', path: '/api.xro/2.0/Organisation' })).rejects.toMatchObject({
      code: 'XERO_RATE_LIMITED',
    });
    expect(t.sandbox.ledger().totals.all).toBe(before);
    t.sandbox.clearFaults();
  });
});

describe('TenantGate', () => {
  it('lets at most 60 calls start in any rolling minute and 5 at once', async () => {
    vi.useFakeTimers();
    try {
      const gate = new TenantGate({ maxInFlight: 5, perMinute: 60, windowMs: 60_000 });
      let started = 0;
      const run = async () => {
        await gate.acquire();
        started += 1;
        await new Promise((r) => setTimeout(r, 10));
        gate.release();
      };
      const all = Promise.all(Array.from({ length: 70 }, run));
      await vi.advanceTimersByTimeAsync(5);
      expect(started).toBe(5);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(started).toBe(60);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(started).toBe(70);
      await all;
    } finally {
      vi.useRealTimers();
    }
  });

  it('pauses after a Retry-After', async () => {
    vi.useFakeTimers();
    try {
      const gate = new TenantGate();
      gate.pause(3_000);
      let started = false;
      void gate.acquire().then(() => {
        started = true;
      });
      await vi.advanceTimersByTimeAsync(2_900);
      expect(started).toBe(false);
      await vi.advanceTimersByTimeAsync(200);
      expect(started).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("starts a waiting person's call before every waiting background read (issue 47)", async () => {
    const gate = new TenantGate({ maxInFlight: 1, perMinute: 60, windowMs: 60_000 });
    await gate.acquire();
    const order: string[] = [];
    const queue = (label: string, priority: 'person' | 'background') =>
      gate.acquire(priority).then(() => {
        order.push(label);
        gate.release();
      });
    const all = [
      queue('background 1', 'background'),
      queue('background 2', 'background'),
      queue('person 1', 'person'),
      queue('background 3', 'background'),
      queue('person 2', 'person'),
    ];
    gate.release();
    await Promise.all(all);
    expect(order).toEqual(['person 1', 'person 2', 'background 1', 'background 2', 'background 3']);
  });

  it('keeps a call in flight and a sixth of the minute free of background reads, for a person', async () => {
    vi.useFakeTimers();
    try {
      const gate = new TenantGate({ maxInFlight: 5, perMinute: 60, windowMs: 60_000 });
      let background = 0;
      const held: Array<Promise<void>> = [];
      for (let i = 0; i < 10; i++)
        held.push(
          gate.acquire('background').then(() => {
            background += 1;
          }),
        );
      await vi.advanceTimersByTimeAsync(1);
      // Four of the five in flight: the fifth is a person's.
      expect(background).toBe(4);
      let person = false;
      void gate.acquire('person').then(() => {
        person = true;
      });
      await vi.advanceTimersByTimeAsync(1);
      expect(person).toBe(true);
      gate.release();
      // Background reads answered one after another: 50 of the minute's 60 at most.
      for (let i = 0; i < 60; i++) {
        gate.release();
        void gate.acquire('background').then(() => {
          background += 1;
        });
        await vi.advanceTimersByTimeAsync(1);
      }
      expect(background).toBeLessThanOrEqual(50);
      let second = false;
      void gate.acquire('person').then(() => {
        second = true;
      });
      await vi.advanceTimersByTimeAsync(1);
      expect(second).toBe(true);
      void held;
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the app's minute across organisations, a tenth of it for people", async () => {
    vi.useFakeTimers();
    try {
      const app = new AppWindow(20, 60_000);
      const limits = { maxInFlight: 5, perMinute: 60, windowMs: 60_000 };
      const gates = Array.from({ length: 5 }, () => new TenantGate(limits, app));
      let background = 0;
      for (const gate of gates)
        for (let i = 0; i < 8; i++)
          void gate.acquire('background').then(() => {
            background += 1;
            gate.release();
          });
      await vi.advanceTimersByTimeAsync(10);
      // 18 of the app's 20 for background reads, whatever the organisation.
      expect(background).toBe(18);
      let people = 0;
      for (const gate of gates.slice(0, 3))
        void gate.acquire('person').then(() => {
          people += 1;
          gate.release();
        });
      await vi.advanceTimersByTimeAsync(10);
      expect(people).toBe(2);
      // A minute on, the window has room again and every waiter is served, people first.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(people).toBe(3);
      expect(background).toBe(35);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('whose calls they are (issue 47)', () => {
  let t: XeroTestApp;
  let userId = 0;
  let tenantId = '';

  beforeAll(async () => {
    t = await createXeroTestApp();
    const owner = await createConnectedUser(t, 'priority.owner', { tenants: ['Demo Shop Ltd'] });
    userId = owner.user.id;
    tenantId = owner.orgs[0]?.tenantId ?? '';
  });
  afterAll(() => t.close());

  it('refuses every Xero call inside runCacheOnly before it leaves, and counts it', async () => {
    t.sandbox.clearLedger();
    const { value, refused } = await runCacheOnly(async () => {
      const first = await t.parts.xeroHttp
        .send(userId, tenantId, { method: 'GET', path: '/api.xro/2.0/Organisation' })
        .then(
          () => 'sent',
          (error: unknown) => (error as AppError).code,
        );
      return first;
    });
    expect(value).toBe('XERO_UNAVAILABLE');
    expect(refused).toBe(1);
    expect(t.sandbox.ledger().totals.all).toBe(0);
    // Outside it, the same call goes as before.
    await t.parts.xeroHttp.send(userId, tenantId, { method: 'GET', path: '/api.xro/2.0/Organisation' });
    expect(t.sandbox.ledger().totals.all).toBe(1);
  });

  it("lets a person's call past background reads queued for the same organisation", async () => {
    // Every background read waits on a slow Xero; the person's call, queued last, is answered first among the waiting.
    t.sandbox.setFaults({ latencyMs: 200 });
    try {
      const done: string[] = [];
      const read = (label: string) =>
        t.parts.xeroHttp
          .send(userId, tenantId, { method: 'GET', path: '/api.xro/2.0/Organisation' })
          .then(() => done.push(label));
      const background = runInBackground(() =>
        Promise.all(Array.from({ length: 12 }, (_, i) => read(`background ${i + 1}`))),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      const person = read('person');
      await Promise.all([background, person]);
      // Four background reads were in flight when the person asked (the fifth slot is kept for people).
      expect(done.indexOf('person')).toBeLessThanOrEqual(4);
      expect(t.sandbox.ledger().violations).toEqual({ minute: 0, concurrent: 0, day: 0, appMinute: 0 });
    } finally {
      t.sandbox.clearFaults();
    }
  });
});
