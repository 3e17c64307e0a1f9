import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftInvoice } from '../../../shared/add-invoices';
import {
  liveEvents,
  organizations,
  xeroInvoices,
  xeroWebhookEvents,
  xeroWebhookFeed,
  xeroWebhookHealth,
} from '../../db/schema/index';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { until } from '../../test/until';

// Issue 32, the bytes of "Approve 50 drafts with cash": while Xero's webhooks keep the cache current, the
// screen's refresh after the submit (docs/product/features.md §4, `?refresh=true`) reads nothing from Xero, and
// the deliveries announcing the app's own approvals and payments are applied from the cache: Xero's answers to
// the two writes are all the action downloads (the floor). A person's change in Xero still reaches the list.

const KEY = 'add-live-webhook-key-0123456789abcdef';

describe('approving drafts with cash while Xero’s webhooks are live', { timeout: 120_000 }, () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let tenantId: string;
  let organizationId: number;

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

  /** Sends Xero's queued deliveries now and waits until every one is applied and nothing is awaited or stale. */
  async function delivered() {
    await t.sandbox.flushWebhooks();
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
        t.sandbox.getWebhooks().queued === 0 &&
        events.length === 0 &&
        stale.length === 0 &&
        (health[0]?.awaitingSince ?? null) === null,
    );
  }

  /** What the open screens were last told of each invoice (live events, newest last). */
  async function toldLast(invoiceIds: string[]) {
    const rows = await t.database.db
      .select()
      .from(liveEvents)
      .where(and(eq(liveEvents.organizationId, organizationId), eq(liveEvents.kind, 'invoices')))
      .orderBy(liveEvents.id);
    const last = new Map<string, { status: string; amountPaidPence: number }>();
    for (const row of rows) {
      const payload = row.payload as {
        invoices: Array<{ invoiceId: string; after: { status: string; amountPaidPence: number } }>;
      };
      for (const inv of payload.invoices) last.set(inv.invoiceId.toLowerCase(), inv.after);
    }
    return invoiceIds.map((id) => {
      const after = last.get(id.toLowerCase());
      return { invoiceId: id, status: after?.status, amountPaidPence: after?.amountPaidPence };
    });
  }

  const listDrafts = async (refresh = false): Promise<DraftInvoice[]> => {
    const res = await owner.call('GET', `/api/xero/draft-invoices${refresh ? '?refresh=true' : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await createXeroTestApp({ env: { XERO_WEBHOOK_KEY: KEY } });
    owner = await createConnectedUser(t, 'live.approver', { tenants: ['Demo Shop Ltd'] });
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')!;
    tenantId = shop.tenantId;
    organizationId = shop.organizationId;
    await enableFeatures(t, organizationId);
    const cash = t.sandbox.state.orgs
      .find((o) => o.Name === 'Demo Shop Ltd')
      ?.accounts.find((a) => a.Name === 'Cash')?.AccountID;
    await t.database.db
      .update(organizations)
      .set({ defaultCashAccountId: cash ?? null })
      .where(eq(organizations.id, organizationId));
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.sandbox.setWebhooks({ url: `${base}/api/xero/webhooks`, key: KEY, batchMs: 50 });
    await until(
      async () => t.sandbox.getWebhooks().state,
      (state) => state === 'active',
    );
    // Webhooks began a while ago; the drafts are read after that.
    await t.database.db.update(xeroWebhookFeed).set({ firstDeliveryAt: sql`now() - interval '1 hour'` });
  }, 120_000);
  afterAll(() => t?.close());

  it('the refresh after approving with cash reads nothing, and the deliveries of those writes cost no read', async () => {
    const drafts = await listDrafts();
    await delivered();
    const chosen = drafts.filter((d) => d.totalAmount > 1).slice(0, 5);
    expect(chosen).toHaveLength(5);
    let refreshed: DraftInvoice[] = [];
    const made = await callsDuring(async () => {
      const res = await owner.call('POST', '/api/xero/draft-invoices/update', {
        invoices: chosen.map((d) => ({ id: d.id, cashAmount: 1, approve: true })),
        organizationId,
      });
      expect(res.json()).toEqual({ processed: 5, failed: [] });
      refreshed = await listDrafts(true);
      await delivered();
    });
    expect(made).toEqual(['POST /api.xro/2.0/Invoices', 'PUT /api.xro/2.0/Payments']);
    const approved = chosen.map((d) => d.id);
    expect(refreshed.map((d) => d.id)).toEqual(
      drafts.map((d) => d.id).filter((id) => !approved.includes(id)),
    );
    // The open screens were still told, each invoice approved and its £1 of cash paid, as Xero answered.
    expect(await toldLast(approved)).toEqual(
      chosen.map((d) => ({ invoiceId: d.id, status: 'AUTHORISED', amountPaidPence: 100 })),
    );
  });

  it('a person paying one of them in Xero while the approval is on its way is read from Xero', async () => {
    const drafts = await listDrafts();
    await delivered();
    const [mine] = drafts.filter((d) => d.totalAmount > 5);
    if (!mine) throw new Error('no drafts left');
    const made = await callsDuring(async () => {
      const res = await owner.call('POST', '/api/xero/draft-invoices/update', {
        invoices: [{ id: mine.id, cashAmount: 1, approve: true }],
        organizationId,
      });
      expect(res.json()).toEqual({ processed: 1, failed: [] });
      // A person pays £2 of it in Xero's web app before Xero's deliveries have gone out.
      t.sandbox.payInvoice(mine.id, { amount: 2 });
      await delivered();
    });
    expect(made).toEqual([
      'GET /api.xro/2.0/Invoices',
      'POST /api.xro/2.0/Invoices',
      'PUT /api.xro/2.0/Payments',
    ]);
    expect(await toldLast([mine.id])).toEqual([
      { invoiceId: mine.id, status: 'AUTHORISED', amountPaidPence: 300 },
    ]);
  });

  it('a draft a person approves in Xero leaves the list on the next refresh, after one read of it', async () => {
    const drafts = await listDrafts();
    await delivered();
    const [byPerson] = drafts;
    if (!byPerson) throw new Error('no drafts left');
    const made = await callsDuring(async () => {
      t.sandbox.approveInvoice(byPerson.id);
      await delivered();
    });
    expect(made).toEqual(['GET /api.xro/2.0/Invoices']);
    expect((await listDrafts(true)).map((d) => d.id)).not.toContain(byPerson.id);
  });
});
