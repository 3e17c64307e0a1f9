import { and, eq, sql } from 'drizzle-orm';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/sandbox';
import {
  INVOICES_SYNC_HEADER,
  invoiceListResponseSchema,
  invoiceSyncStatusSchema,
  type InvoiceSyncStatus,
} from '../../../shared/pay-invoices';
import { xeroSyncState } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import { FIRST_PAGE_SIZE, PAGE_SIZE } from '../../xero/sync/context';
import { TenantGate, XERO_LIMITS, type XeroGate } from '../../xero/xero-http/tenant-gate';
import {
  createConnectedUser,
  createXeroTestApp,
  enableFeatures,
  TEST_CLIENT,
  type XeroTestApp,
} from '../../test/xero';

/**
 * Issue 19, "first open without the wait": a first visit is answered once Xero's first page is stored, the other
 * pages follow on the server under the view's lease, and every answer says how far the read has got. Scale 12
 * seeds about 2,400 outstanding sales invoices in Demo Shop Ltd: a first page of 250 (issue 32: the first answer
 * waits for that page only), then pages of 1,000 from there.
 */
const SCALE = 12;
const SALES_OPEN = 'invoices:sales-open';
/** Xero's reads of a whole view of `total` invoices: the small first page, then pages of 1,000. */
const readsOf = (total: number) => 1 + Math.ceil((total - FIRST_PAGE_SIZE) / PAGE_SIZE);

/**
 * Holds an instance's Xero calls at its gate, so a test decides when the next page may go (no timing): `allow(n)`
 * lets n more calls start and holds the rest; `releaseOne()` lets the oldest held one go; `open()` lets
 * everything through.
 */
function createValve() {
  let allowance = Number.POSITIVE_INFINITY;
  const held: Array<() => void> = [];
  const valve = {
    allow(n: number) {
      allowance = n;
    },
    /** Lets the oldest held call go (the rest stay held). */
    releaseOne() {
      held.shift()?.();
    },
    open() {
      allowance = Number.POSITIVE_INFINITY;
      for (const go of held.splice(0)) go();
    },
    get waiting() {
      return held.length;
    },
    createGate(): XeroGate {
      const inner = new TenantGate(XERO_LIMITS);
      return {
        async acquire() {
          if (allowance <= 0) await new Promise<void>((resolve) => held.push(resolve));
          else allowance -= 1;
          return inner.acquire();
        },
        release: () => inner.release(),
        pause: (ms) => inner.pause(ms),
        blockDay: (ms) => inner.blockDay(ms),
        get pending() {
          return inner.pending + held.length;
        },
        get dayRemaining() {
          return inner.dayRemaining;
        },
        set dayRemaining(value) {
          inner.dayRemaining = value;
        },
        get minuteRemaining() {
          return inner.minuteRemaining;
        },
        set minuteRemaining(value) {
          inner.minuteRemaining = value;
        },
      };
    },
  };
  return valve;
}

/** Waits for a condition, without a clock in the assertion: vitest's test timeout is the only limit. */
async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

function syncOf(res: { headers: Record<string, unknown> }): InvoiceSyncStatus {
  return invoiceSyncStatusSchema.parse(JSON.parse(String(res.headers[INVOICES_SYNC_HEADER])));
}

describe('Pay Invoices: a first visit answers after the first page (issue 19)', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      dataDir: null,
      scale: SCALE,
      clients: [
        {
          ...TEST_CLIENT,
          redirectUris: [`${TEST_ORIGIN}/api/xero/callback`, `${TEST_ORIGIN}/api/auth/xero/callback`],
        },
      ],
    });
  }, 120_000);
  afterAll(() => sandbox.close());

  /** GET /Invoices calls the sandbox counted for one organisation. */
  const invoiceReads = (tenantId: string) =>
    sandbox
      .ledger()
      .calls.filter((c) => c.tenantId === tenantId && c.method === 'GET' && /\/invoices$/i.test(c.endpoint))
      .reduce((sum, c) => sum + c.count, 0);

  /** Outstanding sales invoices as Xero has them (one call, not through the app). */
  async function outstandingInXero(t: XeroTestApp, organizationId: number): Promise<number> {
    const [row] = await t.database.db
      .select({ total: xeroSyncState.itemsTotal })
      .from(xeroSyncState)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, SALES_OPEN)));
    return row?.total ?? -1;
  }

  async function openShop(t: XeroTestApp, username: string) {
    const owner = await createConnectedUser(t, username, { tenants: ['Demo Shop Ltd'] });
    // The sandbox remembers what its one Xero user consented to before (Demo Builders, in a test below): the
    // shop is chosen by name and made the active organisation.
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('no shop');
    await enableFeatures(t, shop.organizationId);
    const chosen = await owner.call('POST', '/api/xero/set-active-organization', {
      organizationId: shop.organizationId,
    });
    if (chosen.statusCode !== 200) throw new Error(`could not choose the shop: ${chosen.body}`);
    return { owner, shop };
  }

  const stateOf = async (database: TestDatabase, organizationId: number) => {
    const [row] = await database.db
      .select()
      .from(xeroSyncState)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, SALES_OPEN)));
    return row ?? null;
  };

  /**
   * `use` with an app whose Xero calls wait at a valve (and, with `second`, another instance on its database),
   * everything closed after it whatever happened.
   */
  async function withValvedApp(
    options: { clientDir?: string; maxAttempts?: number; second?: boolean },
    use: (apps: {
      valve: ReturnType<typeof createValve>;
      database: TestDatabase;
      t: XeroTestApp;
      second: XeroTestApp;
    }) => Promise<void>,
  ): Promise<void> {
    const valve = createValve();
    const database = await createTestDatabase();
    const t = await createXeroTestApp({
      database,
      sandboxInstance: sandbox,
      ...(options.clientDir ? { clientDir: options.clientDir } : {}),
      xeroHttp: {
        createGate: () => valve.createGate(),
        ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
      },
    });
    const second = options.second ? await createXeroTestApp({ database, sandboxInstance: sandbox }) : null;
    try {
      // A test that asked for no second instance does not use it.
      await use({ valve, database, t, second: second ?? t });
    } finally {
      valve.open();
      await second?.close();
      await t.close();
      await database.destroy();
    }
  }

  it('answers with page 1 and complete=false, reads the rest without another request, once, and ends complete', async () => {
    await withValvedApp({ second: true }, async ({ valve, database, t, second }) => {
      const { owner, shop } = await openShop(t, 'owner');
      const before = invoiceReads(shop.tenantId);
      valve.allow(1);

      const first = await owner.call('GET', '/api/xero/invoices');
      expect(first.statusCode, first.body).toBe(200);
      const firstSync = syncOf(first);
      expect(firstSync.complete).toBe(false);
      // The first answer waited for Xero's first 250 only: the screen shows them while the rest is read.
      expect(firstSync.fetched).toBe(FIRST_PAGE_SIZE);
      expect(firstSync.total).toBeGreaterThan(2000);
      const firstList = invoiceListResponseSchema.parse(first.json());
      expect(firstList.length).toBeGreaterThan(0);
      expect(firstList.length).toBeLessThanOrEqual(FIRST_PAGE_SIZE);
      expect(invoiceReads(shop.tenantId) - before).toBe(1);

      // Page 2 is on its way (held at the gate): the read goes on with nobody asking.
      await waitFor(() => valve.waiting === 1);
      const state = await stateOf(database, shop.organizationId);
      expect(state?.initialReadAt).not.toBeNull();
      expect(state?.pagesRead).toBe(1);

      // Meanwhile: the same instance, a standard refresh and another instance read nothing from Xero.
      const again = await owner.call('GET', '/api/xero/invoices');
      expect(syncOf(again)).toEqual(firstSync);
      expect(again.json()).toHaveLength(firstList.length);
      const refreshed = await owner.call('GET', '/api/xero/invoices?refresh=true');
      expect(refreshed.statusCode).toBe(200);
      expect(syncOf(refreshed).complete).toBe(false);
      const elsewhere = await second.app.inject({
        method: 'GET',
        url: '/api/xero/invoices',
        headers: { cookie: owner.cookie },
      });
      expect(elsewhere.statusCode).toBe(200);
      expect(syncOf(elsewhere)).toEqual(firstSync);
      expect(invoiceReads(shop.tenantId) - before).toBe(1);

      valve.open();
      await waitFor(async () => (await stateOf(database, shop.organizationId))?.initialReadAt === null);
      const total = await outstandingInXero(t, shop.organizationId);
      expect(invoiceReads(shop.tenantId) - before).toBe(readsOf(total));

      const done = await owner.call('GET', '/api/xero/invoices');
      expect(syncOf(done)).toEqual({ complete: true, fetched: total, total });
      const list = invoiceListResponseSchema.parse(done.json());
      expect(list.length).toBeGreaterThan(firstList.length);
      expect(new Set(list.map((i) => i.invoiceId)).size).toBe(list.length);
      // The same on the other instance, and still no call.
      const doneElsewhere = await second.app.inject({
        method: 'GET',
        url: '/api/xero/invoices',
        headers: { cookie: owner.cookie },
      });
      expect(syncOf(doneElsewhere).complete).toBe(true);
      expect(doneElsewhere.json()).toHaveLength(list.length);
      expect(invoiceReads(shop.tenantId) - before).toBe(readsOf(total));
    });
  }, 120_000);

  it('an invoice paid in Xero during the read does not push another out of the list', async () => {
    await withValvedApp({}, async ({ valve, database, t }) => {
      const { owner, shop } = await openShop(t, 'shifted');
      valve.allow(1);
      const first = await owner.call('GET', '/api/xero/invoices');
      expect(syncOf(first).complete).toBe(false);
      await waitFor(() => valve.waiting === 1);
      // Someone pays, in Xero, invoices the first page held: they leave the outstanding set, so with page numbers
      // the invoices after them would slide onto page 1, already read, and never be listed.
      const firstPage = invoiceListResponseSchema.parse(first.json());
      for (const paid of firstPage.slice(0, 3))
        sandbox.payInvoice(paid.invoiceId, { amount: paid.amountDue, reference: 'Paid at the counter' });
      valve.open();
      await waitFor(async () => (await stateOf(database, shop.organizationId))?.initialReadAt === null);

      const org = sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
      const outstanding = (org?.invoices ?? []).filter(
        (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 0,
      );
      const listed = new Set(
        invoiceListResponseSchema
          .parse((await owner.call('GET', '/api/xero/invoices')).json())
          .map((i) => i.invoiceId.toLowerCase()),
      );
      const missing = outstanding.filter((i) => !listed.has(i.InvoiceID.toLowerCase()));
      expect(missing.map((i) => i.InvoiceNumber)).toEqual([]);
    });
  }, 120_000);

  it('after a crash mid-way the cache is never taken as complete, and the next instance carries on from the next page', async () => {
    const stuck = createValve();
    const database = await createTestDatabase();
    const crashed = await createXeroTestApp({
      database,
      sandboxInstance: sandbox,
      xeroHttp: { createGate: () => stuck.createGate() },
    });
    const next = await createXeroTestApp({ database, sandboxInstance: sandbox });
    try {
      const { owner, shop } = await openShop(crashed, 'crash');
      const before = invoiceReads(shop.tenantId);
      stuck.allow(1);
      const first = await owner.call('GET', '/api/xero/invoices');
      expect(syncOf(first).complete).toBe(false);
      // The first instance never gets page 2: as good as dead, its lease still running.
      await waitFor(() => stuck.waiting === 1);
      const ask = () =>
        next.app.inject({ method: 'GET', url: '/api/xero/invoices', headers: { cookie: owner.cookie } });

      const whileLeased = await ask();
      expect(whileLeased.statusCode).toBe(200);
      expect(syncOf(whileLeased)).toMatchObject({ complete: false, fetched: FIRST_PAGE_SIZE });
      expect(invoiceReads(shop.tenantId) - before).toBe(1);

      // Its lease runs out, as it would two minutes after the crash.
      await database.db
        .update(xeroSyncState)
        .set({ leaseUntil: sql`now() - interval '1 second'` })
        .where(
          and(eq(xeroSyncState.organizationId, shop.organizationId), eq(xeroSyncState.resource, SALES_OPEN)),
        );
      const resumed = await ask();
      expect(resumed.statusCode).toBe(200);
      const resumedSync = syncOf(resumed);
      expect(resumedSync.fetched).toBeGreaterThan(FIRST_PAGE_SIZE);
      await waitFor(async () => (await stateOf(database, shop.organizationId))?.initialReadAt === null);
      const total = await outstandingInXero(next, shop.organizationId);
      // Page 1 by the first instance, the others once by the next: carried on, not started again.
      expect(invoiceReads(shop.tenantId) - before).toBe(readsOf(total));
      const done = await ask();
      expect(syncOf(done)).toEqual({ complete: true, fetched: total, total });
      expect(new Set(invoiceListResponseSchema.parse(done.json()).map((i) => i.invoiceId)).size).toBe(
        (done.json() as unknown[]).length,
      );
    } finally {
      stuck.open();
      await next.close();
      await crashed.close();
      await database.destroy();
    }
  }, 120_000);

  describe('the page itself starts the first visit (issue 32)', () => {
    let clientDir: string;
    beforeAll(() => {
      // A built client of one page: the app answers every page path with it (src/server/plugins/spa.ts).
      clientDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-client-'));
      fs.writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>Ledgerlink</title>');
    });
    afterAll(() => fs.rmSync(clientDir, { recursive: true, force: true }));

    it("opening /invoices reads Xero's first page before the page asks; the page's request waits for that read, and Xero is read once", async () => {
      await withValvedApp({ clientDir }, async ({ valve, database, t }) => {
        const { owner, shop } = await openShop(t, 'early');
        // Someone with the feature off in their organisation, and someone signed out.
        const other = await createConnectedUser(t, 'builder', { tenants: ['Demo Builders Ltd'] });
        const builders = other.orgs[0];
        if (!builders) throw new Error('no builders');
        const before = { shop: invoiceReads(shop.tenantId), builders: invoiceReads(builders.tenantId) };
        valve.allow(0);

        const page = (cookie?: string, url = '/invoices') =>
          t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
        expect((await page()).statusCode).toBe(200);
        expect((await page(other.cookie)).statusCode).toBe(200);
        // Another page, and this page naming an organisation the owner is not in: only their own is read.
        expect((await page(owner.cookie, '/settings')).statusCode).toBe(200);
        const opened = await page(owner.cookie, `/invoices?org=${builders.organizationId}`);
        expect(opened.statusCode).toBe(200);
        expect(opened.body).toContain('<title>Ledgerlink</title>');

        // The page is sent, and its list's first page is already asked of Xero (held at the gate here).
        await waitFor(() => valve.waiting === 1);
        const list = owner.call('GET', '/api/xero/invoices');
        valve.releaseOne();
        const first = await list;
        expect(first.statusCode, first.body).toBe(200);
        expect(syncOf(first)).toMatchObject({ complete: false, fetched: FIRST_PAGE_SIZE });
        expect(invoiceListResponseSchema.parse(first.json()).length).toBeGreaterThan(0);
        expect(invoiceReads(shop.tenantId) - before.shop).toBe(1);

        valve.open();
        await waitFor(async () => (await stateOf(database, shop.organizationId))?.initialReadAt === null);
        const total = await outstandingInXero(t, shop.organizationId);
        expect(invoiceReads(shop.tenantId) - before.shop).toBe(readsOf(total));
        // Opening the page again reads nothing: the list is whole.
        expect((await page(owner.cookie)).statusCode).toBe(200);
        const done = await owner.call('GET', '/api/xero/invoices');
        expect(syncOf(done)).toEqual({ complete: true, fetched: total, total });
        expect(invoiceReads(shop.tenantId) - before.shop).toBe(readsOf(total));
        // The feature is off for the builder, so opening the page read nothing of theirs.
        expect(invoiceReads(builders.tenantId) - before.builders).toBe(0);
      });
    }, 120_000);

    it("a list request on another instance waits for the first page the page's HTML started here, and Xero is read once", async () => {
      await withValvedApp({ clientDir, second: true }, async ({ valve, t, second }) => {
        const asked = vi.spyOn(second.parts.sync, 'ensureInvoicesInBackground');
        try {
          const { owner, shop } = await openShop(t, 'balanced');
          const before = invoiceReads(shop.tenantId);
          valve.allow(0);
          const opened = await t.app.inject({
            method: 'GET',
            url: '/invoices',
            headers: { cookie: owner.cookie },
          });
          expect(opened.statusCode).toBe(200);
          await waitFor(() => valve.waiting === 1);
          // The list request reaches the other instance while this one's first page is held at its gate.
          let answered = false;
          const elsewhere = second.app
            .inject({ method: 'GET', url: '/api/xero/invoices', headers: { cookie: owner.cookie } })
            .finally(() => {
              answered = true;
            });
          await waitFor(() => asked.mock.calls.length === 1);
          // Not a timed assertion: a pause so that an instance that did not wait would have answered by now.
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(answered).toBe(false);
          valve.releaseOne();
          const answer = await elsewhere;
          expect(answer.statusCode, answer.body).toBe(200);
          expect(syncOf(answer)).toMatchObject({ complete: false, fetched: FIRST_PAGE_SIZE });
          expect(invoiceListResponseSchema.parse(answer.json()).length).toBeGreaterThan(0);
          expect(invoiceReads(shop.tenantId) - before).toBe(1);
        } finally {
          asked.mockRestore();
        }
      });
    }, 120_000);

    it("when the page's own start fails, the list request that joined it reads Xero itself and shows the invoices", async () => {
      await withValvedApp({ clientDir, maxAttempts: 2 }, async ({ valve, t }) => {
        const ensure = vi.spyOn(t.parts.sync, 'ensureInvoicesInBackground');
        try {
          const { owner } = await openShop(t, 'unlucky');
          valve.allow(0);
          expect(
            (await t.app.inject({ method: 'GET', url: '/invoices', headers: { cookie: owner.cookie } }))
              .statusCode,
          ).toBe(200);
          await waitFor(() => valve.waiting === 1);
          const list = owner.call('GET', '/api/xero/invoices');
          // The list request has joined the page's start (the second call: the page's, then the list's).
          await waitFor(() => ensure.mock.calls.length === 2);
          // Both tries of the page's start fail; the list's own read then succeeds.
          sandbox.setFaults({ failNext: 2, errorStatus: 503, pathPrefix: '/api.xro/2.0/Invoices' });
          valve.open();
          const answer = await list;
          expect(answer.statusCode, answer.body).toBe(200);
          expect(invoiceListResponseSchema.parse(answer.json()).length).toBeGreaterThan(0);
        } finally {
          sandbox.clearFaults();
          ensure.mockRestore();
        }
      });
    }, 120_000);
  });
});
