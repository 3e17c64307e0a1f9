import crypto from 'node:crypto';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveEvents, xeroInvoices, xeroWebhookEvents } from '../../db/schema/index';
import type { LiveEvents } from '../../lib/live-events';
import { createTestApp, type TestApp } from '../../test/app';
import type { XeroSync } from '../../xero/sync/sync.service';
import { createWebhookProcessor } from '../../xero/webhooks/processor';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { until } from '../../test/until';

const KEY = 'test-webhook-key-0123456789abcdef';
const sign = (body: string, key = KEY) => crypto.createHmac('sha256', key).update(body).digest('base64');

function delivery(events: Array<Record<string, unknown>>, sequence = 1) {
  return JSON.stringify({
    events,
    firstEventSequence: sequence,
    lastEventSequence: sequence + Math.max(0, events.length - 1),
    entropy: crypto.randomBytes(8).toString('hex'),
  });
}

function invoiceEvent(tenantId: string, invoiceId: string, at = new Date()) {
  return {
    resourceUrl: `https://api.xero.com/api.xro/2.0/Invoices/${invoiceId}`,
    resourceId: invoiceId,
    // Xero's own examples have no zone and a mixed-case type: both are accepted.
    eventDateUtc: at.toISOString().replace('Z', ''),
    eventType: 'Update',
    eventCategory: 'INVOICE',
    tenantId,
    tenantType: 'ORGANISATION',
  };
}

function post(t: TestApp, body: string, signature?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/xero/webhooks',
    headers: {
      'content-type': 'application/json',
      ...(signature === undefined ? {} : { 'x-xero-signature': signature }),
    },
    payload: body,
  });
}

// The waits below are `until`'s (90 s at most): a test's ceiling is above them (issue 46).
describe('Xero webhook receiver', { timeout: 120_000 }, () => {
  let t: XeroTestApp;
  let shopId: number;
  let tenantId: string;
  let builderTenant: string;

  beforeAll(async () => {
    t = await createXeroTestApp({ env: { XERO_WEBHOOK_KEY: KEY } });
    const owner = await createConnectedUser(t, 'hook.owner', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('no shop');
    shopId = shop.organizationId;
    tenantId = shop.tenantId;
    builderTenant = t.sandbox.info().orgs.find((o) => o.name === 'Demo Builders Ltd')!.tenantId;
    await enableFeatures(t, shopId);
    await t.parts.sync.syncInvoices(
      { organizationId: shopId, tenantId, userId: owner.user.id },
      { key: 'sales-open' },
    );
  }, 120_000);
  afterAll(() => t.close());

  const stored = () => t.database.db.select().from(xeroWebhookEvents);

  it('answers the intent-to-receive check: 200 with no body for a correctly signed payload, 401 for an incorrectly signed one', async () => {
    const body = JSON.stringify({
      events: [],
      lastEventSequence: 0,
      firstEventSequence: 0,
      entropy: 'S0m3r4Nd0mt3xt',
    });
    const good = await post(t, body, sign(body));
    expect(good.statusCode).toBe(200);
    expect(good.body).toBe('');
    expect(good.headers['set-cookie']).toBeUndefined();
    expect((await post(t, body, sign(body, 'another-key-0123456789'))).statusCode).toBe(401);
    expect((await post(t, body)).statusCode).toBe(401);
    expect((await post(t, body, 'not base64 at all!')).statusCode).toBe(401);
  });

  it('changes nothing for a badly signed delivery, even one that names a real invoice', async () => {
    const [cached] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(eq(xeroInvoices.organizationId, shopId))
      .limit(1);
    const body = delivery([invoiceEvent(tenantId, cached!.invoiceId)]);
    const callsBefore = t.sandbox.ledger().totals.all;
    const res = await post(t, body, sign(`${body} `));
    expect(res.statusCode).toBe(401);
    expect(await stored()).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.sandbox.ledger().totals.all).toBe(callsBefore);
  });

  it("refuses a signed delivery that is not Xero's shape with a 400, storing nothing", async () => {
    const body = JSON.stringify({ events: [{ resourceId: 'x' }], entropy: 1 });
    const res = await post(t, body, sign(body));
    expect(res.statusCode).toBe(400);
    expect(await stored()).toHaveLength(0);
  });

  it('stores a valid delivery before answering, then reads the changed invoice in one call and updates the cache', async () => {
    const [cached] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const org = t.sandbox.state.orgs.find((o) => o.OrganisationID === tenantId)!;
    const inXero = org.invoices.find((i) => i.InvoiceID === cached!.invoiceId)!;
    // Paid in Xero's own app: £1.00 more paid, a newer UpdatedDateUTC.
    inXero.amountPaid += 100;
    inXero.updatedMs = Math.max(Date.now(), inXero.updatedMs + 1000);
    const callsBefore = t.sandbox.ledger().totals.all;
    const body = delivery(
      [
        invoiceEvent(tenantId, cached!.invoiceId),
        invoiceEvent(tenantId, cached!.invoiceId, new Date(Date.now() - 5000)),
      ],
      10,
    );
    const res = await post(t, body, sign(body));
    expect(res.statusCode).toBe(200);
    expect((await stored()).length).toBe(2);
    const processed = await until(
      () => t.database.db.select().from(xeroWebhookEvents).where(isNotNull(xeroWebhookEvents.processedAt)),
      (rows) => rows.length === 2,
    );
    expect(processed.map((r) => r.outcome)).toEqual(['applied', 'applied']);
    const [after] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, cached!.invoiceId)));
    expect(after!.amountDuePence).toBe(cached!.amountDuePence - 100);
    // One read for the batch: two events of one invoice, one GET /Invoices?IDs=….
    expect(t.sandbox.ledger().totals.all - callsBefore).toBe(1);
    const [event] = await t.database.db
      .select()
      .from(liveEvents)
      .where(eq(liveEvents.organizationId, shopId));
    const change = (
      event!.payload as {
        invoices: Array<{
          invoiceId: string;
          before: { amountDuePence: number };
          after: { amountDuePence: number };
        }>;
      }
    ).invoices[0];
    expect(change).toMatchObject({
      invoiceId: cached!.invoiceId,
      before: { amountDuePence: cached!.amountDuePence },
      after: { amountDuePence: cached!.amountDuePence - 100 },
    });
  });

  it('makes a replayed delivery and an older event arriving late harmless', async () => {
    const [cached] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const at = new Date();
    const body = delivery([invoiceEvent(tenantId, cached!.invoiceId, at)], 20);
    expect((await post(t, body, sign(body))).statusCode).toBe(200);
    await until(
      () => t.database.db.select().from(xeroWebhookEvents).where(isNotNull(xeroWebhookEvents.processedAt)),
      (rows) => rows.length === 3,
    );
    const callsBefore = t.sandbox.ledger().totals.all;
    // Xero retries the same delivery: the events are known, nothing is read again.
    expect((await post(t, body, sign(body))).statusCode).toBe(200);
    // An event older than the one applied arrives now: Xero's current state is read, the cache does not go back.
    const late = delivery([invoiceEvent(tenantId, cached!.invoiceId, new Date(at.getTime() - 60_000))], 15);
    expect((await post(t, late, sign(late))).statusCode).toBe(200);
    const rows = await until(
      () => t.database.db.select().from(xeroWebhookEvents).where(isNotNull(xeroWebhookEvents.processedAt)),
      (r) => r.length === 4,
    );
    expect(rows).toHaveLength(4);
    expect(t.sandbox.ledger().totals.all - callsBefore).toBe(1);
    const [after] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, cached!.invoiceId)));
    expect(after!.amountDuePence).toBe(cached!.amountDuePence);
  });

  it("passes the sandbox's intent-to-receive check and applies what a person does in Xero, as the demo does", async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.sandbox.setWebhooks({ url: `${base}/api/xero/webhooks`, key: KEY, batchMs: 50 });
    await until(
      async () => t.sandbox.getWebhooks().state,
      (state) => state === 'active',
    );
    expect(t.sandbox.getWebhooks().state).toBe('active');
    const [cached] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const started = Date.now();
    t.sandbox.payInvoice(cached!.invoiceId, { amount: '2.50' });
    const [after] = await until(
      () =>
        t.database.db
          .select()
          .from(xeroInvoices)
          .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, cached!.invoiceId))),
      (rows) => rows[0]!.amountDuePence === cached!.amountDuePence - 250,
    );
    expect(after!.amountDuePence).toBe(cached!.amountDuePence - 250);
    expect(Date.now() - started).toBeLessThan(2000);
    t.sandbox.setWebhooks(null);
  });

  it('ignores events of an organisation no user has connected, without calling Xero', async () => {
    const callsBefore = t.sandbox.ledger().totals.all;
    const invoiceId = t.sandbox.state.orgs.find((o) => o.OrganisationID === builderTenant)!.invoices[0]!
      .InvoiceID;
    const body = delivery([invoiceEvent(builderTenant, invoiceId)], 30);
    expect((await post(t, body, sign(body))).statusCode).toBe(200);
    const [row] = await until(
      () =>
        t.database.db
          .select()
          .from(xeroWebhookEvents)
          .where(
            and(eq(xeroWebhookEvents.tenantId, builderTenant), isNotNull(xeroWebhookEvents.processedAt)),
          ),
      (r) => r.length === 1,
    );
    expect(row!.outcome).toBe('ignored');
    expect(t.sandbox.ledger().totals.all).toBe(callsBefore);
  });

  it('applies a delivery naming 90 invoices in reads Xero can take (its URLs stay short enough)', async () => {
    const org = t.sandbox.state.orgs.find((o) => o.OrganisationID === tenantId)!;
    const named = org.invoices
      .filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 100)
      .slice(0, 90);
    expect(named).toHaveLength(90);
    // Each paid £1 more in Xero's own app.
    for (const inv of named) {
      inv.amountPaid += 100;
      inv.updatedMs = Math.max(Date.now(), inv.updatedMs + 1000);
    }
    const ids = named.map((i) => i.InvoiceID.toLowerCase());
    const reads = () =>
      t.sandbox
        .ledger()
        .calls.filter((c) => c.tenantId === tenantId && c.method === 'GET')
        .reduce((n, c) => n + c.count, 0);
    const readsBefore = reads();
    const body = delivery(
      ids.map((id) => invoiceEvent(tenantId, id)),
      40,
    );
    expect((await post(t, body, sign(body))).statusCode).toBe(200);
    const done = await until(
      () =>
        t.database.db
          .select()
          .from(xeroWebhookEvents)
          .where(and(inArray(xeroWebhookEvents.resourceId, ids), isNotNull(xeroWebhookEvents.processedAt))),
      (r) => r.length === 90,
    );
    expect(done.map((r) => r.outcome)).toEqual(Array.from({ length: 90 }, () => 'applied'));
    // 40 ids a read (Xero answers a longer URL with 404): three reads, every invoice's balance updated.
    expect(reads() - readsBefore).toBe(3);
    const cached = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), inArray(xeroInvoices.invoiceId, ids)));
    const due = new Map(cached.map((r) => [r.invoiceId.toLowerCase(), r.amountDuePence]));
    expect(named.map((i) => due.get(i.InvoiceID.toLowerCase()))).toEqual(
      named.map((i) => i.total - i.amountPaid),
    );
  });
});

describe('processed webhook events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('are forgotten two days after processing; events not yet processed are kept however old', async () => {
    const processor = createWebhookProcessor({
      db: t.database.db,
      sync: {} as XeroSync,
      live: {} as LiveEvents,
      log: { warn: () => undefined },
    });
    const day = 24 * 60 * 60_000;
    const row = (resourceId: string, processedAgo: number | null) => ({
      tenantId: 'tenant-purge',
      category: 'INVOICE',
      eventType: 'UPDATE',
      resourceId,
      eventAt: new Date(Date.now() - 3 * day),
      receivedAt: new Date(Date.now() - 3 * day),
      processedAt: processedAgo === null ? null : new Date(Date.now() - processedAgo),
      outcome: processedAgo === null ? null : 'applied',
    });
    await t.database.db
      .insert(xeroWebhookEvents)
      .values([row('old-done', 3 * day), row('recent-done', day), row('old-waiting', null)]);
    expect(await processor.purgeProcessed()).toBe(1);
    const left = await t.database.db
      .select({ resourceId: xeroWebhookEvents.resourceId })
      .from(xeroWebhookEvents)
      .where(eq(xeroWebhookEvents.tenantId, 'tenant-purge'));
    expect(left.map((r) => r.resourceId).sort()).toEqual(['old-waiting', 'recent-done']);
  });
});

describe('Xero webhook receiver without a key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers 404 and stores nothing', async () => {
    const body = JSON.stringify({ events: [], lastEventSequence: 0, firstEventSequence: 0, entropy: 'x' });
    const res = await post(t, body, sign(body));
    expect(res.statusCode).toBe(404);
    expect(await t.database.db.select().from(xeroWebhookEvents)).toHaveLength(0);
  });
});

describe('without webhooks (no XERO_WEBHOOK_KEY)', () => {
  let t: XeroTestApp;
  afterAll(() => t.close());

  it('still learns of a change made in Xero through a standard refresh (If-Modified-Since), as before', async () => {
    t = await createXeroTestApp();
    const owner = await createConnectedUser(t, 'nohook.owner', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const shop = owner.orgs[0]!;
    await enableFeatures(t, shop.organizationId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shop.organizationId });
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Array<{
      invoiceId: string;
      amountDue: number;
    }>;
    const target = list[0]!;
    // No subscription: the sandbox's person-in-Xero payment is not pushed anywhere.
    t.sandbox.payInvoice(target.invoiceId, { amount: 1 });
    expect(t.sandbox.getWebhooks().state).toBe('off');
    const refreshed = (await owner.call('GET', '/api/xero/invoices?refresh=true')).json() as Array<{
      invoiceId: string;
      amountDue: number;
    }>;
    expect(refreshed.find((i) => i.invoiceId === target.invoiceId)!.amountDue).toBeCloseTo(
      target.amountDue - 1,
      2,
    );
    expect(await t.database.db.select().from(xeroWebhookEvents)).toHaveLength(0);
  });
});
