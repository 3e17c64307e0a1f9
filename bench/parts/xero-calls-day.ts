/**
 * "A typical day" of part 1 (bench/parts/xero-calls.ts): every screen opened once, N invoices paid, M drafts
 * approved, K bills and J journals, measured per organisation beside a naive integration's day.
 */
import type { DraftInvoice } from '../../src/shared/add-invoices';
import type { CisContact } from '../../src/shared/cis-bills';
import { addDays } from '../../src/shared/dates';
import type { Invoice } from '../../src/shared/pay-invoices';
import type { SalesPeriod } from '../../src/shared/stock-journal';
import { FRESH_FROM_XERO_MS } from '../../src/server/modules/pay-invoices/pay-invoices.service';
import { RouteMissingError, sandboxOrg, setActiveOrganization } from '../lib/harness';
import { add, times } from '../lib/naive-cost';
import {
  approveDrafts,
  createBills,
  invoicesToPay,
  openAddInvoices,
  openCisBills,
  openPayInvoices,
  openSettings,
  openStockJournal,
  payCardAndCash,
  postJournals,
} from './xero-calls-actions';
import { measure, naiveScreens, SHOP, type Context, type Sample } from './xero-calls-measure';

/** Runs one step of the typical day; a step whose endpoint is missing is skipped and named, a step's remark kept. */
async function step(skipped: string[], work: () => Promise<unknown>, remarks?: string[]): Promise<void> {
  try {
    const remark = await work();
    if (remarks && typeof remark === 'string' && remark !== '') remarks.push(remark);
  } catch (error) {
    if (error instanceof RouteMissingError) skipped.push(error.route);
    else throw error;
  }
}

interface DayResult {
  shop: Sample;
  builders: Sample;
}

/** "A typical day": open every screen once, pay N invoices, approve M drafts, K bills, J journals. */
export async function runTypicalDay(ctx: Context): Promise<DayResult> {
  const { day } = ctx.options;
  const skipped: string[] = [];
  const remarks: string[] = [];
  const shopRec = sandboxOrg(ctx.sandbox, SHOP);
  const dailySales = shopRec.contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? '';
  const screens = naiveScreens(ctx);
  const naiveShop = add(
    screens.organisations,
    screens.payInvoices,
    screens.addInvoices,
    screens.stockJournal,
    screens.settings,
    times(day.payInvoices, screens.payOne),
    times(day.approveDrafts, add(screens.shop.approve, screens.shop.putPayment)),
    screens.shop.drafts,
    times(day.journals, screens.shop.putJournal),
  );
  const naiveBuilders = add(
    screens.cisBills,
    times(day.bills, screens.builders.putBill),
    screens.builders.draftBills,
  );
  const sample = await measure(
    ctx,
    [ctx.shop.tenantId],
    () => naiveShop,
    async () => {
      await setActiveOrganization(ctx.client, ctx.shop);
      await ctx.client.call('GET', '/api/user-organizations');
      await ctx.client.call('GET', '/api/xero/connection');
      let invoices: Invoice[] = [];
      await step(skipped, async () => {
        invoices = await openPayInvoices(ctx);
      });
      let drafts: DraftInvoice[] = [];
      await step(skipped, async () => {
        drafts = await openAddInvoices(ctx);
      });
      await step(skipped, () => openStockJournal(ctx, dailySales));
      await step(skipped, () => openSettings(ctx));
      // A card payment re-reads its invoice from Xero unless the cache read it in the last few seconds
      // (FRESH_FROM_XERO_MS). A bookkeeper spends longer than that on each invoice, so the day starts paying
      // once the list it opened is that old; otherwise the count would depend on how fast this machine is.
      await new Promise((resolve) => setTimeout(resolve, FRESH_FROM_XERO_MS + 1000));
      for (const invoice of invoicesToPay(invoices, day.payInvoices, ctx.today))
        await step(skipped, () => payCardAndCash(ctx, invoice, { relist: false }));
      // The screen shows the list again once the day's payments are done.
      await step(skipped, () => ctx.client.call('GET', '/api/xero/invoices'));
      if (day.approveDrafts > 0)
        await step(skipped, () => approveDrafts(ctx, drafts, day.approveDrafts), remarks);
      if (day.journals > 0) {
        await step(skipped, async () => {
          const periods = await ctx.client.json<SalesPeriod[]>(
            'GET',
            `/api/xero/sales?customerId=${dailySales}&fromDate=${addDays(ctx.today, -120)}&toDate=${ctx.today}`,
          );
          await postJournals(ctx, periods, day.journals);
        });
      }
      const notBuilt =
        skipped.length > 0 ? [`partial: not built yet: ${[...new Set(skipped)].join(', ')}`] : [];
      return [...notBuilt, ...remarks].join('; ');
    },
  );
  const builderSkipped: string[] = [];
  const builders = await measure(
    ctx,
    [ctx.builders.tenantId],
    () => naiveBuilders,
    async () => {
      await setActiveOrganization(ctx.client, ctx.builders);
      let contacts: CisContact[] = [];
      await step(builderSkipped, async () => {
        contacts = await openCisBills(ctx);
      });
      if (day.bills > 0) await step(builderSkipped, () => createBills(ctx, contacts, day.bills));
      await setActiveOrganization(ctx.client, ctx.shop);
      return builderSkipped.length > 0
        ? `partial: not built yet: ${[...new Set(builderSkipped)].join(', ')}`
        : '';
    },
  );
  return { shop: sample, builders };
}
