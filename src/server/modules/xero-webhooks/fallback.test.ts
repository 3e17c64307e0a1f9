import crypto from 'node:crypto';
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../../shared/pay-invoices';
import type { UserOrganization } from '../../../shared/organizations';
import { xeroInvoices, xeroWebhookEvents, xeroWebhookHealth, xeroWebhookRanges } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { until } from '../../test/until';

// Issue 18, fallback: live updates from Xero's webhooks while they arrive, today's If-Modified-Since refreshes
// when they do not, and the organisation card says which (docs/decisions/018-webhooks.md, "Fallback").

const KEY = 'fallback-webhook-key-0123456789abcdef';
const METRICS_TOKEN = 'fallback-metrics-token-0123456789';
const sign = (body: string) => crypto.createHmac('sha256', KEY).update(body).digest('base64');
const callsFor = (t: XeroTestApp, tenantId: string) => t.sandbox.ledger().totals.byTenant[tenantId] ?? 0;

// The waits below are `until`'s (90 s at most): a test's ceiling is above them, so a state reached late on a busy
// machine is still seen, and one never reached fails on its own assertion (issue 46).
describe('live updates from Xero, and the fallback when they stop', { timeout: 120_000 }, () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let tenantId: string;
  let builderTenant: string;
  let invoices: Invoice[];

  /** Posts a signed delivery straight to the receiver, as Xero would, with the sequence numbers given. */
  async function deliver(first: number, last: number, tenant = tenantId) {
    const events = Array.from({ length: last - first + 1 }, () => ({
      resourceUrl: 'https://api.xero.com/api.xro/2.0/Contacts/x',
      resourceId: crypto.randomUUID(),
      eventDateUtc: new Date().toISOString(),
      eventType: 'UPDATE',
      eventCategory: 'CONTACT',
      tenantId: tenant,
      tenantType: 'ORGANISATION',
    }));
    const body = JSON.stringify({ events, firstEventSequence: first, lastEventSequence: last, entropy: 'e' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/xero/webhooks',
      headers: { 'content-type': 'application/json', 'x-xero-signature': sign(body) },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    // Applied (one read of the named contacts, or none for an organisation nobody connected) before going on.
    const ids = events.map((e) => e.resourceId);
    await until(
      () =>
        t.database.db
          .select()
          .from(xeroWebhookEvents)
          .where(and(inArray(xeroWebhookEvents.resourceId, ids), isNotNull(xeroWebhookEvents.processedAt))),
      (rows) => rows.length === ids.length,
    );
  }

  const card = async () => {
    const orgs = (await owner.call('GET', '/api/user-organizations')).json() as UserOrganization[];
    return orgs.find((o) => o.tenantId === tenantId)!.liveUpdates;
  };
  /** Xero calls a standard refresh of Pay Invoices costs. */
  const refreshCalls = async () => {
    const before = callsFor(t, tenantId);
    const res = await owner.call('GET', '/api/xero/invoices?refresh=true');
    expect(res.statusCode).toBe(200);
    invoices = res.json();
    return callsFor(t, tenantId) - before;
  };
  /** Makes time pass for the receiver: what it saw happened `ms` earlier. */
  const ago = (ms: number) => sql`now() - ${`${ms} milliseconds`}::interval`;

  beforeAll(async () => {
    t = await createXeroTestApp({
      env: { XERO_WEBHOOK_KEY: KEY, METRICS_ENABLED: 'true', METRICS_TOKEN: METRICS_TOKEN },
    });
    owner = await createConnectedUser(t, 'fallback.owner', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')!;
    tenantId = shop.tenantId;
    builderTenant = t.sandbox.info().orgs.find((o) => o.name === 'Demo Builders Ltd')!.tenantId;
    await enableFeatures(t, shop.organizationId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shop.organizationId });
  }, 120_000);
  afterAll(() => t.close());

  it('says live updates have not started, and refreshes ask Xero, until Xero has checked the webhook', async () => {
    expect(await card()).toEqual({ state: 'fallback', reason: 'not-started', since: null });
    invoices = (await owner.call('GET', '/api/xero/invoices')).json();
    expect(await refreshCalls()).toBe(1);
  });

  it('with webhooks healthy, a standard refresh with nothing changed costs no Xero call, and a change made in Xero still shows', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.sandbox.setWebhooks({ url: `${base}/api/xero/webhooks`, key: KEY, batchMs: 50 });
    await until(
      async () => t.sandbox.getWebhooks().state,
      (state) => state === 'active',
    );
    expect(await card()).toEqual({ state: 'live' });
    // The view was read before webhooks began: one refresh catches up, then the cache is trusted.
    expect(await refreshCalls()).toBe(1);
    expect(await refreshCalls()).toBe(0);
    expect(await refreshCalls()).toBe(0);

    const target = invoices.find((i) => i.amountDue > 5)!;
    t.sandbox.payInvoice(target.invoiceId, { amount: 2 });
    await until(
      () =>
        t.database.db
          .select()
          .from(xeroInvoices)
          .where(eq(xeroInvoices.invoiceId, target.invoiceId))
          .then((rows) => rows[0]!.amountDuePence),
      (pence) => pence === Math.round((target.amountDue - 2) * 100),
    );
    expect(await refreshCalls()).toBe(0);
    expect(invoices.find((i) => i.invoiceId === target.invoiceId)!.amountDue).toBeCloseTo(
      target.amountDue - 2,
      2,
    );
  });

  it('a payment Ledgerlink sends keeps its own check against Xero, and its webhook keeps the organisation live', async () => {
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      creditCardAccounts: Array<{ accountId: string }>;
    };
    const target = invoices.find((i) => i.amountDue > 5 && i.status !== 'PARTIAL')!;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/xero/payments',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': crypto.randomUUID() },
      payload: {
        invoiceId: target.invoiceId,
        invoiceNumber: target.invoiceNumber,
        accountId: accounts.creditCardAccounts[0]!.accountId,
        amount: 1,
        reference: `Card payment for ${target.invoiceNumber}`,
        isCard: true,
        date: '2026-01-01',
      },
    });
    expect(res.statusCode).toBe(200);
    // The delivery announcing the payment arrives and nothing is awaited any more.
    const [health] = await until(
      () => t.database.db.select().from(xeroWebhookHealth).where(eq(xeroWebhookHealth.tenantId, tenantId)),
      (rows) => rows[0]?.awaitingSince === null && rows[0]?.lastDeliveryAt !== null,
    );
    expect(health!.awaitingSince).toBeNull();
    expect(await card()).toEqual({ state: 'live' });
    // The delivery is recorded when it arrives and applied just after: the paid invoice is re-read from Xero
    // then, and until then it is marked stale (a refresh would rightly ask Xero). Wait for that, as the
    // tests below count the calls of later refreshes.
    const organizationId = owner.orgs.find((o) => o.tenantId === tenantId)!.organizationId;
    const [pending, stale] = await until(
      () =>
        Promise.all([
          t.database.db.select().from(xeroWebhookEvents).where(isNull(xeroWebhookEvents.processedAt)),
          t.database.db
            .select()
            .from(xeroInvoices)
            .where(
              and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.syncedAt, new Date(0))),
            ),
        ]),
      ([events, rows]) => events.length === 0 && rows.length === 0,
    );
    expect(pending).toHaveLength(0);
    expect(stale).toHaveLength(0);
    // Once the payment's delivery is applied, a standard refresh is free again (at most one catch-up read
    // first, should anything about the payment have made the cache doubt itself).
    expect(await until(refreshCalls, (calls) => calls === 0)).toBe(0);
  });

  it('falls back when a delivery Ledgerlink waits for does not come, says so, and catches up once deliveries resume', async () => {
    t.sandbox.setWebhooks(null);
    const next = t.sandbox.getWebhooks().lastSequence + 1;
    // Ledgerlink wrote to Xero for the shop a while ago (as the payment above did); nothing came since.
    await t.database.db
      .update(xeroWebhookHealth)
      .set({ awaitingSince: ago(119_000) })
      .where(eq(xeroWebhookHealth.tenantId, tenantId));
    expect(await card()).toEqual({ state: 'live' });
    expect(await refreshCalls()).toBe(0);
    await t.database.db
      .update(xeroWebhookHealth)
      .set({ awaitingSince: ago(125_000) })
      .where(eq(xeroWebhookHealth.tenantId, tenantId));
    expect(await card()).toMatchObject({ state: 'fallback', reason: 'silent' });
    const orgs = (await owner.call('GET', '/api/user-organizations')).json() as UserOrganization[];
    expect(orgs.find((o) => o.tenantId === tenantId)!.liveUpdates?.state).toBe('fallback');
    // Today's refreshes again: one If-Modified-Since call each.
    expect(await refreshCalls()).toBe(1);
    expect(await refreshCalls()).toBe(1);

    // Deliveries resume: live again, and the first refresh reads Xero once for what may have been lost.
    await deliver(next, next);
    expect(await card()).toEqual({ state: 'live' });
    expect(await refreshCalls()).toBe(1);
    expect(await refreshCalls()).toBe(0);
  });

  it('falls back on a sequence gap that does not fill within a short while, and is live again once it fills', async () => {
    const done = t.sandbox.getWebhooks().lastSequence + 1; // the delivery of the test above
    // Deliveries done+3 and done+4 arrive; done+1 and done+2 do not (yet).
    await deliver(done + 3, done + 4, builderTenant);
    expect(await card()).toEqual({ state: 'live' });
    expect(await refreshCalls()).toBe(0);
    await t.database.db.update(xeroWebhookRanges).set({ receivedAt: ago(61_000) });
    const gap = await card();
    expect(gap).toMatchObject({ state: 'fallback', reason: 'gap' });
    expect(await refreshCalls()).toBe(1);

    // Xero's retry brings the missing deliveries: the stream is whole and the cache trusted again.
    await deliver(done + 1, done + 2, builderTenant);
    expect(await t.database.db.select().from(xeroWebhookRanges)).toHaveLength(0);
    expect(await card()).toEqual({ state: 'live' });
    expect(await refreshCalls()).toBe(0);
  });

  it('reads Xero on refresh while a payment on one of the invoices is on its way (a row marked stale)', async () => {
    const [row] = await t.database.db
      .update(xeroInvoices)
      .set({ syncedAt: new Date(0) })
      .where(and(eq(xeroInvoices.invoiceId, invoices[0]!.invoiceId)))
      .returning();
    expect(row).toBeDefined();
    expect(await refreshCalls()).toBe(1);
  });

  it('counts the fallbacks by reason and times the webhook lag, for GET /metrics', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const counted = (reason: string) => {
      const line = res.body
        .split('\n')
        .find((l) => l.startsWith(`ledgerlink_webhook_fallbacks_total{reason="${reason}"} `));
      return Number(line?.split(' ')[1] ?? 0);
    };
    expect(counted('not-started')).toBe(1);
    expect(counted('silent')).toBe(2);
    expect(counted('gap')).toBe(1);
    expect(counted('catch-up')).toBeGreaterThanOrEqual(3);
    const applied = Number(/^ledgerlink_webhook_lag_seconds_count (\d+)/m.exec(res.body)?.[1] ?? 0);
    expect(applied).toBeGreaterThanOrEqual(3);
    expect(res.body).toMatch(/^ledgerlink_webhook_lag_seconds_bucket\{le="1"\} \d+/m);
  });
});

describe('live updates without a webhook key', () => {
  let t: XeroTestApp;
  afterAll(() => t.close());

  it('says live updates are off on the card, and every standard refresh asks Xero as before', async () => {
    t = await createXeroTestApp();
    const owner = await createConnectedUser(t, 'nokey.owner', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const shop = owner.orgs[0]!;
    await enableFeatures(t, shop.organizationId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shop.organizationId });
    const orgs = (await owner.call('GET', '/api/user-organizations')).json() as UserOrganization[];
    expect(orgs[0]!.liveUpdates).toEqual({ state: 'fallback', reason: 'no-key', since: null });
    await owner.call('GET', '/api/xero/invoices');
    const before = callsFor(t, shop.tenantId);
    await owner.call('GET', '/api/xero/invoices?refresh=true');
    await owner.call('GET', '/api/xero/invoices?refresh=true');
    expect(callsFor(t, shop.tenantId) - before).toBe(2);
  });
});
