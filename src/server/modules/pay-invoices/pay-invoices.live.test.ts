import crypto from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../../shared/pay-invoices';
import { xeroInvoices, xeroWebhookEvents, xeroWebhookFeed, xeroWebhookHealth } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { until } from '../../test/until';

// Issue 32, "Trust what is live": while Xero's webhooks keep an organisation's cache current, a payment is
// checked against the cached balance without reading the invoice again; Xero still refuses an overpayment, and
// that refusal brings the cache and the screen up to date. When webhooks are not healthy, the re-read stays.

const KEY = 'pay-live-webhook-key-0123456789abcdef';
const METRICS_TOKEN = 'pay-live-metrics-token-0123456789';

describe('paying with the cache Xero keeps current', { timeout: 120_000 }, () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let tenantId: string;
  let organizationId: number;
  let card: string;
  let invoices: Invoice[];
  const used = new Set<string>();

  /** Xero calls the sandbox counted for the shop, by endpoint, while `work` runs. */
  async function callsDuring(work: () => Promise<unknown>): Promise<string[]> {
    const count = () =>
      new Map(
        t.sandbox
          .ledger()
          .calls.filter((c) => c.tenantId === tenantId)
          .map((c) => [`${c.method} ${c.endpoint}`, c.count]),
      );
    const before = count();
    await work();
    const made: string[] = [];
    for (const [endpoint, n] of count()) {
      for (let i = before.get(endpoint) ?? 0; i < n; i += 1) made.push(endpoint);
    }
    return made.sort();
  }

  /** An untouched invoice whose cached copy Xero described a while ago (longer than the freshness window). */
  async function olderInvoice(): Promise<Invoice> {
    const invoice = invoices.find(
      (i) => i.amountDue > 10 && i.status !== 'PARTIAL' && !used.has(i.invoiceId),
    );
    if (!invoice) throw new Error('ran out of invoices');
    used.add(invoice.invoiceId);
    await t.database.db
      .update(xeroInvoices)
      .set({ syncedAt: sql`now() - interval '30 seconds'` })
      .where(
        and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoice.invoiceId)),
      );
    return invoice;
  }

  const pay = (invoice: Invoice, amount: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/xero/payments',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': crypto.randomUUID() },
      payload: {
        invoiceId: invoice.invoiceId,
        invoiceNumber: invoice.invoiceNumber,
        accountId: card,
        amount,
        reference: `Card payment for ${invoice.invoiceNumber}`,
        isCard: true,
        date: '2026-01-01',
      },
    });

  /** Waits until every delivery has been applied and nothing is marked stale, so counts start clean. */
  async function settled() {
    await until(
      () =>
        Promise.all([
          t.database.db.select().from(xeroWebhookEvents).where(isNull(xeroWebhookEvents.processedAt)),
          t.database.db
            .select()
            .from(xeroInvoices)
            .where(
              and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.syncedAt, new Date(0))),
            ),
          t.database.db.select().from(xeroWebhookHealth).where(eq(xeroWebhookHealth.tenantId, tenantId)),
        ]),
      ([events, stale, health]) =>
        events.length === 0 && stale.length === 0 && (health[0]?.awaitingSince ?? null) === null,
    );
  }

  beforeAll(async () => {
    t = await createXeroTestApp({
      env: { XERO_WEBHOOK_KEY: KEY, METRICS_ENABLED: 'true', METRICS_TOKEN },
    });
    owner = await createConnectedUser(t, 'live.payer', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')!;
    tenantId = shop.tenantId;
    organizationId = shop.organizationId;
    await enableFeatures(t, organizationId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId });
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.sandbox.setWebhooks({ url: `${base}/api/xero/webhooks`, key: KEY, batchMs: 50 });
    await until(
      async () => t.sandbox.getWebhooks().state,
      (state) => state === 'active',
    );
    // Webhooks began a while ago (time passes for the receiver); the list is read after that.
    await t.database.db.update(xeroWebhookFeed).set({ firstDeliveryAt: sql`now() - interval '1 hour'` });
    invoices = (await owner.call('GET', '/api/xero/invoices')).json();
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      creditCardAccounts: Array<{ accountId: string }>;
    };
    card = accounts.creditCardAccounts[0]!.accountId;
  }, 120_000);
  afterAll(() => t.close());

  it('with webhooks live, a payment is checked against the cached balance: one Xero call, the payment', async () => {
    await settled();
    const invoice = await olderInvoice();
    const made = await callsDuring(async () => {
      const res = await pay(invoice, 5);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().amountDue).toBeCloseTo(invoice.amountDue - 5, 2);
    });
    expect(made).toEqual(['PUT /api.xro/2.0/Payments']);
  });

  /** Sends Xero's queued deliveries now and waits until they are applied. */
  async function delivered() {
    await t.sandbox.flushWebhooks();
    await settled();
    await until(
      () => t.database.db.select().from(xeroWebhookEvents).where(isNull(xeroWebhookEvents.processedAt)),
      (pending) => pending.length === 0,
    );
  }

  it("Xero's delivery about Ledgerlink's own payment is applied from the cache, without reading the invoice again", async () => {
    await delivered();
    const invoice = await olderInvoice();
    const made = await callsDuring(async () => {
      const res = await pay(invoice, 3);
      expect(res.statusCode, res.body).toBe(200);
      await delivered();
    });
    expect(made).toEqual(['PUT /api.xro/2.0/Payments']);
    const [event] = await t.database.db
      .select()
      .from(xeroWebhookEvents)
      .where(eq(xeroWebhookEvents.resourceId, invoice.invoiceId.toLowerCase()));
    expect(event?.outcome).toBe('applied');
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    expect(list.find((i) => i.invoiceId === invoice.invoiceId)?.amountDue).toBeCloseTo(
      invoice.amountDue - 3,
      2,
    );
  });

  it("a person's payment in Xero arriving beside Ledgerlink's own is read from Xero, and the list shows both", async () => {
    await delivered();
    const invoice = await olderInvoice();
    const made = await callsDuring(async () => {
      const res = await pay(invoice, 3);
      expect(res.statusCode, res.body).toBe(200);
      // A person pays part of it in Xero's web app a moment later: its event comes with ours, at another time.
      t.sandbox.payInvoice(invoice.invoiceId, { amount: 2 });
      await delivered();
    });
    expect(made).toEqual(['GET /api.xro/2.0/Invoices', 'PUT /api.xro/2.0/Payments']);
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    expect(list.find((i) => i.invoiceId === invoice.invoiceId)?.amountDue).toBeCloseTo(
      invoice.amountDue - 5,
      2,
    );
  });

  it('a delivery naming the invoice that is not applied yet sends the check to Xero', async () => {
    await settled();
    const invoice = await olderInvoice();
    await t.database.db.insert(xeroWebhookEvents).values({
      tenantId: tenantId.toLowerCase(),
      category: 'INVOICE',
      eventType: 'UPDATE',
      resourceId: invoice.invoiceId.toLowerCase(),
      eventAt: new Date(),
      // Held by an instance that is applying it right now.
      claimedUntil: new Date(Date.now() + 60_000),
    });
    const made = await callsDuring(async () => {
      const res = await pay(invoice, 5);
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(made).toEqual(['GET /api.xro/2.0/Invoices/:InvoiceID', 'PUT /api.xro/2.0/Payments']);
    await t.database.db
      .update(xeroWebhookEvents)
      .set({ processedAt: new Date(), outcome: 'applied' })
      .where(isNull(xeroWebhookEvents.processedAt));
  });

  it("Xero refusing an overpayment the cache did not know of refreshes the balance, and the screen reads Xero's", async () => {
    await settled();
    const invoice = await olderInvoice();
    // A person pays part of it in Xero and Xero's news of it has not arrived (the delivery is still to come).
    t.sandbox.setWebhooks(null);
    t.sandbox.payInvoice(invoice.invoiceId, { amount: 4 });
    const made = await callsDuring(async () => {
      const res = await pay(invoice, invoice.amountDue);
      expect(res.statusCode).toBe(422);
      // The text the screen turns into "Invoice Data Out of Sync" (docs/product/features.md §8).
      expect(res.json().message).toContain('exceeds the invoice balance');
    });
    expect(made).toEqual(['GET /api.xro/2.0/Invoices/:InvoiceID', 'PUT /api.xro/2.0/Payments']);
    // The screen reads the list back after a failed payment: it shows Xero's balance, with no Xero call.
    const listed = await callsDuring(async () => {
      const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
      expect(list.find((i) => i.invoiceId === invoice.invoiceId)?.amountDue).toBeCloseTo(
        invoice.amountDue - 4,
        2,
      );
    });
    expect(listed).toEqual([]);
  });

  it('with webhooks not healthy (a delivery Ledgerlink waits for has not come), the payment re-reads the invoice first', async () => {
    // Ledgerlink wrote to Xero for the shop over two minutes ago and no delivery has come since: fallback.
    await t.database.db
      .insert(xeroWebhookHealth)
      .values({ tenantId: tenantId.toLowerCase(), awaitingSince: sql`now() - interval '125 seconds'` })
      .onConflictDoUpdate({
        target: xeroWebhookHealth.tenantId,
        set: { awaitingSince: sql`now() - interval '125 seconds'` },
      });
    const invoice = await olderInvoice();
    const fallbacks = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const line = res.body
        .split('\n')
        .find((l) => l.startsWith('ledgerlink_webhook_fallbacks_total{reason="silent"} '));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const counted = await fallbacks();
    const made = await callsDuring(async () => {
      const res = await pay(invoice, 5);
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(made).toEqual(['GET /api.xro/2.0/Invoices/:InvoiceID', 'PUT /api.xro/2.0/Payments']);
    // The metric counts refreshes that asked Xero instead of the cache, as its name says: not payment checks.
    expect(await fallbacks()).toBe(counted);
    await owner.call('GET', '/api/xero/invoices?refresh=true');
    expect(await fallbacks()).toBe(counted + 1);
  });
});
