/**
 * One run of part 1 (bench/parts/xero-calls.ts) on a freshly seeded sandbox: the first day (with and without
 * Xero's webhooks), every action once, then the typical day again on the caches they left.
 */
import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../../src/sandbox/sandbox';
import { getPeriodOf } from '../../src/shared/cis-returns';
import type { DraftInvoice } from '../../src/shared/add-invoices';
import type { CisContact } from '../../src/shared/cis-bills';
import { addDays, getUkToday } from '../../src/shared/dates';
import type { Invoice } from '../../src/shared/pay-invoices';
import type { SalesPeriod } from '../../src/shared/stock-journal';
import { FRESH_FROM_XERO_MS } from '../../src/server/modules/pay-invoices/pay-invoices.service';
import { createTestDatabase } from '../../src/server/test/database';
import {
  ApiClient,
  connectXero,
  enableAllFeatures,
  RouteMissingError,
  sandboxOrg,
  setActiveOrganization,
  signIn,
  startBenchApp,
} from '../lib/harness';
import { add, floorReadsOf, naiveCostsOf, NOTHING, times } from '../lib/naive-cost';
import type { BenchOptions } from '../lib/options';
import {
  APPROVE_COUNT,
  approveDrafts,
  approveNaive,
  createBills,
  invoicesToPay,
  openCisBills,
  openPayInvoices,
  payCardAndCash,
  postJournals,
  saveSettings,
  waitForDeliveriesApplied,
} from './xero-calls-actions';
import { runTypicalDay } from './xero-calls-day';
import { BUILDERS, measure, naiveScreens, SHOP, type Context, type Sample } from './xero-calls-measure';

async function connectFresh(
  sandbox: Sandbox,
  options: BenchOptions,
  dataDir: string,
  setup: { webhooks?: boolean } = {},
) {
  // A migrated in-memory PGlite cloned from a template (as the server tests do): seconds faster than migrating.
  const database = await createTestDatabase();
  const key = randomBytes(32).toString('base64');
  const running = await startBenchApp({
    database,
    sandboxUrl: sandbox.url,
    dataDir,
    ...(setup.webhooks ? { env: { XERO_WEBHOOK_KEY: key } } : {}),
  });
  if (setup.webhooks) {
    // As demo mode: the sandbox sends Xero's webhooks to the app (signed, gathered for 250 ms a delivery).
    sandbox.setWebhooks({ url: `${running.url}/api/xero/webhooks`, key });
    const deadline = Date.now() + 15_000;
    while (sandbox.getWebhooks().state !== 'active') {
      if (Date.now() > deadline) throw new Error(`webhooks not active: ${sandbox.getWebhooks().lastError}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const client = new ApiClient(running.url);
  await signIn(client);
  const orgs = await connectXero(client, sandbox);
  await enableAllFeatures(client, orgs);
  const shop = orgs.find((o) => o.tenantName === SHOP);
  const builders = orgs.find((o) => o.tenantName === BUILDERS);
  if (!shop || !builders) throw new Error('the demo organisations were not connected');
  await setActiveOrganization(client, shop);
  const ctx: Context = { sandbox, client, running, shop, builders, today: getUkToday(), options };
  return ctx;
}

/**
 * One full run on a freshly seeded sandbox: first a user's first day (fresh database, settings saved, then
 * the typical day on empty caches), then every action once on another fresh database, then the typical day
 * again with the caches those actions left (the day after).
 */
export async function runOnce(
  sandbox: Sandbox,
  options: BenchOptions,
  dataDir: string,
): Promise<Map<string, Sample>> {
  const samples = new Map<string, Sample>();
  const first = await connectFresh(sandbox, options, dataDir);
  try {
    await saveSettings(first);
    const day = await runTypicalDay(first);
    samples.set('first-day-shop', day.shop);
    samples.set('first-day-builders', day.builders);
  } finally {
    await first.running.close();
  }
  // The same first day with Xero's webhooks live, as demo mode runs (issue 32: payments trust the cache).
  const live = await connectFresh(sandbox, options, dataDir, { webhooks: true });
  try {
    await saveSettings(live);
    const day = await runTypicalDay(live);
    samples.set('first-day-shop-live', day.shop);
    // Approving 50 drafts with cash while Xero's webhooks are live (issue 32): the refresh after the submit
    // reads nothing, and the deliveries announcing the app's own approvals and payments are applied from the
    // cache; whatever Xero reads they still cost is counted, once every delivery is in and applied.
    const drafts = await live.client.json<DraftInvoice[]>('GET', '/api/xero/draft-invoices');
    samples.set(
      'approve-live',
      await measure(
        live,
        [live.shop.tenantId],
        () => approveNaive(live, APPROVE_COUNT),
        async () => {
          const note = await approveDrafts(live, drafts, APPROVE_COUNT);
          await waitForDeliveriesApplied(live);
          return note;
        },
      ),
    );
  } finally {
    sandbox.setWebhooks(null);
    await live.running.close();
  }

  const ctx = await connectFresh(sandbox, options, dataDir);
  try {
    const shopRec = () => sandboxOrg(sandbox, SHOP);
    const shopCosts = () => naiveCostsOf(shopRec());
    const buildersCosts = () => naiveCostsOf(sandboxOrg(sandbox, BUILDERS));
    const shopIds = [ctx.shop.tenantId];
    let invoices: Invoice[] = [];

    samples.set(
      'open',
      await measure(
        ctx,
        shopIds,
        () => add(shopCosts().outstanding, shopCosts().accounts),
        async () => {
          invoices = await openPayInvoices(ctx);
          return `${invoices.length.toLocaleString('en-GB')} invoices listed`;
        },
        () => add(floorReadsOf(shopRec()).outstanding, floorReadsOf(shopRec()).accounts),
      ),
    );
    samples.set(
      'reopen',
      await measure(
        ctx,
        shopIds,
        () => add(shopCosts().outstanding, shopCosts().accounts),
        async () => {
          invoices = await openPayInvoices(ctx);
        },
      ),
    );
    samples.set(
      'refresh',
      await measure(
        ctx,
        shopIds,
        () => shopCosts().outstanding,
        async () => {
          invoices = await ctx.client.json<Invoice[]>('GET', '/api/xero/invoices?refresh=true');
        },
      ),
    );
    const listReadAt = Date.now();
    samples.set(
      'settings',
      await measure(
        ctx,
        [ctx.shop.tenantId, ctx.builders.tenantId],
        () => NOTHING,
        () => saveSettings(ctx),
      ),
    );
    // The card payment re-reads the invoice from Xero unless the cache read it moments ago
    // (FRESH_FROM_XERO_MS); a user takes longer than that to look at an invoice and type two amounts.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, listReadAt + FRESH_FROM_XERO_MS + 1000 - Date.now())),
    );
    samples.set(
      'pay-one',
      await measure(
        ctx,
        shopIds,
        () => naiveScreens(ctx).payOne,
        async () => {
          const [invoice] = invoicesToPay(invoices, 1, ctx.today);
          if (!invoice) throw new Error('no invoice to pay');
          if (!ctx.bank) throw new Error('bank accounts were not loaded');
          await payCardAndCash(ctx, invoice);
        },
      ),
    );
    let drafts: DraftInvoice[] = [];
    try {
      drafts = await ctx.client.json<DraftInvoice[]>('GET', '/api/xero/draft-invoices');
    } catch (error) {
      if (!(error instanceof RouteMissingError)) throw error;
    }
    samples.set(
      'approve',
      await measure(
        ctx,
        shopIds,
        () => approveNaive(ctx, APPROVE_COUNT),
        () => approveDrafts(ctx, drafts, APPROVE_COUNT),
      ),
    );

    const billCount = 20;
    let contacts: CisContact[] = [];
    await setActiveOrganization(ctx.client, ctx.builders);
    try {
      contacts = await openCisBills(ctx);
    } catch (error) {
      if (!(error instanceof RouteMissingError)) throw error;
    }
    samples.set(
      'bills',
      await measure(
        ctx,
        [ctx.builders.tenantId],
        () => add(times(billCount, buildersCosts().putBill), buildersCosts().draftBills),
        () => createBills(ctx, contacts, billCount),
      ),
    );
    // The CIS month-end (issue 29): the screen opens the last year's months and the month's return. A first
    // look warms the cache (the approved and paid bills, the paid subcontractors' CIS settings); the row is the
    // second look, as every visit after the first one is.
    const period = getPeriodOf(ctx.today);
    const openCisReturns = async () => {
      const [, ret] = await Promise.all([
        ctx.client.json<unknown>('GET', '/api/xero/cis/months'),
        ctx.client.json<{ lines: unknown[] }>('GET', `/api/xero/cis/returns?period=${period}`),
      ]);
      return `${ret.lines.length} subcontractors paid this tax month`;
    };
    try {
      await openCisReturns();
      samples.set(
        'cis-return',
        await measure(
          ctx,
          [ctx.builders.tenantId],
          () => add(buildersCosts().paidBills, buildersCosts().contacts, buildersCosts().cisSettingsOfGroup),
          openCisReturns,
        ),
      );
    } catch (error) {
      if (!(error instanceof RouteMissingError)) throw error;
    }
    await setActiveOrganization(ctx.client, ctx.shop);

    const journalCount = 4;
    const from = addDays(ctx.today, -364);
    const dailySales = shopRec().contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? '';
    samples.set(
      'journals',
      await measure(
        ctx,
        shopIds,
        () => {
          const costs = shopCosts();
          return add(
            costs.salesOf('Daily Sales', from, ctx.today),
            costs.manualJournals,
            times(journalCount, costs.putJournal),
          );
        },
        async () => {
          const periods = await ctx.client.json<SalesPeriod[]>(
            'GET',
            `/api/xero/sales?customerId=${dailySales}&fromDate=${from}&toDate=${ctx.today}`,
          );
          await postJournals(ctx, periods, journalCount);
          return `${periods.length} weeks listed`;
        },
        () => {
          const floor = floorReadsOf(shopRec());
          return add(floor.salesOf('Daily Sales', from, ctx.today), floor.manualJournals);
        },
      ),
    );

    const day = await runTypicalDay(ctx);
    samples.set('day-shop', day.shop);
    samples.set('day-builders', day.builders);
  } finally {
    await ctx.running.close();
  }
  return samples;
}
