import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, getUkToday } from '../../shared/dates';
import { invoiceListResponseSchema, type Invoice } from '../../shared/pay-invoices';
import { salesResponseSchema } from '../../shared/stock-journal';
import { organizations, userOrganizations, xeroInvoices } from '../db/schema/index';
import { TEST_ORIGIN } from '../test/app';
import { as } from '../test/session';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';

/**
 * Cached reads (issue 12): the invoice list and a customer's weekly sales are served from a body serialised
 * once per organisation and cache version, and each request's session, membership and flags are read in one
 * query when it arrives. These prove that nothing is served that the database no longer says: a change
 * written by any instance or module, a switched-off feature, a removed membership and a signed-out session
 * all take effect at the very next request, on every instance.
 */
describe('cached reads', () => {
  let t: XeroTestApp;
  let other: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let builder: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let buildersId: number;
  let onOther: ReturnType<typeof as>;

  const list = async (call: ReturnType<typeof as>, url = '/api/xero/invoices') => {
    const res = await call('GET', url);
    expect(res.statusCode).toBe(200);
    return res.json() as Invoice[];
  };

  beforeAll(async () => {
    t = await createXeroTestApp();
    // A second instance on the same database and sandbox, as behind a load balancer.
    other = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    owner = await createConnectedUser(t, 'cached.owner', { tenants: ['Demo Shop Ltd'] });
    builder = await createConnectedUser(t, 'cached.builder', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    shopId = owner.orgs[0]?.organizationId ?? 0;
    buildersId = builder.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, shopId);
    await enableFeatures(t, buildersId);
    onOther = as(other.app, owner.cookie);
  }, 120_000);
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  it('serves the list as one body per cache version: same bytes and ETag on every instance, 304 when unchanged, and the body passes the route schema', async () => {
    const first = await owner.call('GET', '/api/xero/invoices');
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const parsed = invoiceListResponseSchema.safeParse(first.json());
    expect(parsed.success).toBe(true);
    expect(parsed.data?.length).toBeGreaterThan(0);
    // The cached bytes are what the schema would have produced from them.
    expect(JSON.stringify(parsed.data)).toBe(first.body);

    const again = await owner.call('GET', '/api/xero/invoices');
    expect(again.body).toBe(first.body);
    expect((await onOther('GET', '/api/xero/invoices')).headers.etag).toBe(etag);

    const unchanged = await t.app.inject({
      method: 'GET',
      url: '/api/xero/invoices',
      headers: { cookie: owner.cookie, 'if-none-match': etag },
    });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    const stale = await t.app.inject({
      method: 'GET',
      url: '/api/xero/invoices',
      headers: { cookie: owner.cookie, 'if-none-match': '"old"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('answers at once what another instance or module wrote to the invoice cache', async () => {
    const before = await list(owner.call);
    await list(onOther);
    const [target, gone] = before;
    if (!target || !gone) throw new Error('need two invoices');
    // What a payment recorded by another instance does to the cache, and an invoice paid in full.
    await t.database.db
      .update(xeroInvoices)
      .set({ amountDuePence: 123, amountPaidPence: 1 })
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, target.invoiceId)));
    await t.database.db
      .update(xeroInvoices)
      .set({ status: 'PAID', amountDuePence: 0 })
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, gone.invoiceId)));
    for (const call of [owner.call, onOther]) {
      const after = await list(call);
      expect(after.find((i) => i.invoiceId === target.invoiceId)).toMatchObject({
        amountDue: 1.23,
        status: 'PARTIAL',
      });
      expect(after.some((i) => i.invoiceId === gone.invoiceId)).toBe(false);
      expect(after).toHaveLength(before.length - 1);
    }
  });

  it("serves one customer's weekly sales from a cached body that follows the invoice cache", async () => {
    const daily = t.sandbox.state.orgs
      .find((o) => o.Name === 'Demo Shop Ltd')
      ?.contacts.find((c) => c.Name === 'Daily Sales');
    if (!daily) throw new Error('no Daily Sales');
    const today = getUkToday();
    const url = `/api/xero/sales?customerId=${daily.ContactID}&fromDate=${addDays(today, -364)}&toDate=${today}`;
    const first = await owner.call('GET', url);
    expect(first.statusCode).toBe(200);
    const periods = salesResponseSchema.parse(first.json());
    expect(JSON.stringify(periods)).toBe(first.body);
    const numbersOf = (list: typeof periods) =>
      list.flatMap((p) => p.days.flatMap((d) => d.invoices.map((i) => i.invoiceNumber)));
    const invoiceNumber = numbersOf(periods)[0];
    if (!invoiceNumber) throw new Error('no sales in the year');
    expect((await onOther('GET', url)).headers.etag).toBe(first.headers.etag);

    await t.database.db
      .update(xeroInvoices)
      .set({ status: 'VOIDED' })
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceNumber, invoiceNumber)));
    for (const call of [owner.call, onOther]) {
      const after = salesResponseSchema.parse((await call('GET', url)).json());
      expect(numbersOf(after)).not.toContain(invoiceNumber);
      expect(numbersOf(after)).toHaveLength(numbersOf(periods).length - 1);
    }
  });

  it('refuses at the next request, on every instance, a switched-off feature, a removed membership and a signed-out session', async () => {
    const user = await createConnectedUser(t, 'cached.leaver', { tenants: ['Demo Shop Ltd'] });
    const onSecond = as(other.app, user.cookie);
    await list(user.call);
    await list(onSecond);

    await t.database.db
      .update(organizations)
      .set({ featurePayInvoices: false })
      .where(eq(organizations.id, shopId));
    for (const call of [user.call, onSecond]) {
      const res = await call('GET', '/api/xero/invoices');
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FEATURE_DISABLED');
    }
    await t.database.db
      .update(organizations)
      .set({ featurePayInvoices: true })
      .where(eq(organizations.id, shopId));
    await list(onSecond);

    await t.database.db
      .delete(userOrganizations)
      .where(and(eq(userOrganizations.userId, user.user.id), eq(userOrganizations.organizationId, shopId)));
    for (const call of [user.call, onSecond]) {
      expect((await call('GET', '/api/xero/invoices')).statusCode).toBe(403);
      expect((await call('GET', `/api/xero/invoices?org=${shopId}`)).statusCode).toBe(403);
      expect((await call('GET', '/api/xero/connection')).json()).toMatchObject({ connected: false });
    }

    await list(owner.call);
    const out = await other.app.inject({
      method: 'POST',
      url: '/api/logout',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN },
    });
    expect(out.statusCode).toBe(200);
    for (const call of [owner.call, onOther]) {
      const res = await call('GET', '/api/xero/invoices');
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('Not authenticated');
    }
  });

  it('gives each of many requests arriving together its own user and organisation', async () => {
    const shop = await createConnectedUser(t, 'cached.burst', { tenants: ['Demo Shop Ltd'] });
    const shopList = (await shop.call('GET', '/api/xero/invoices')).body;
    const buildersList = (await builder.call('GET', '/api/xero/invoices')).body;
    expect(shopList).not.toBe(buildersList);
    const requests = Array.from({ length: 60 }, (_, i) => {
      const who = i % 3 === 0 ? shop : builder;
      const app = i % 2 === 0 ? t.app : other.app;
      const url =
        i % 5 === 0
          ? '/api/xero/connection'
          : i % 7 === 0
            ? `/api/xero/invoices?org=${shopId}`
            : '/api/xero/invoices';
      return { who, url, promise: as(app, who.cookie)('GET', url) };
    });
    const answers = await Promise.all(requests.map((r) => r.promise));
    answers.forEach((res, i) => {
      const { who, url } = requests[i] ?? { who: shop, url: '' };
      const mine = who === shop;
      if (url === '/api/xero/connection') {
        expect(res.json().tenantName).toBe(mine ? 'Demo Shop Ltd' : 'Demo Builders Ltd');
      } else if (url.includes('?org=')) {
        // Naming someone else's organisation is refused, even in the same batch as its owner.
        expect(res.statusCode).toBe(mine ? 200 : 403);
        if (mine) expect(res.body).toBe(shopList);
      } else {
        expect(res.body).toBe(mine ? shopList : buildersList);
      }
    });
  });
});
