/**
 * The screens and actions part 1 (bench/parts/xero-calls.ts) drives, as the client does them through the app's
 * HTTP API: opening each screen, paying by card and cash, approving drafts with cash, creating CIS bills,
 * posting stock journals, saving the settings.
 */
import { randomUUID } from 'node:crypto';
import { count as countRows, eq, isNull } from 'drizzle-orm';
import type { OrgRec } from '../../src/sandbox/state';
import { organizations, xeroWebhookEvents } from '../../src/server/db/schema/index';
import type { DraftInvoice } from '../../src/shared/add-invoices';
import { findCisSubcontractors, getDefaultBillReference, type CisContact } from '../../src/shared/cis-bills';
import { fromPence, roundPoundsToPence } from '../../src/shared/money';
import {
  findInvoicesToPay,
  INVOICES_SYNC_HEADER,
  parseInvoiceSyncHeader,
  type BankAccountsResponse,
  type Invoice,
} from '../../src/shared/pay-invoices';
import {
  getStockJournalReference,
  splitSalesPeriod,
  type SalesPeriod,
  type StockJournalEntry,
} from '../../src/shared/stock-journal';
import { RouteMissingError, sandboxOrg } from '../lib/harness';
import { add, naiveCostsOf, times, type Cost } from '../lib/naive-cost';
import { BUILDERS, SHOP, type Context } from './xero-calls-measure';

const withKey = () => ({ 'idempotency-key': randomUUID() });

// The screens, as the client opens them (docs/product/features.md §7 and docs/product/shell.md §7).
export async function openPayInvoices(ctx: Context): Promise<Invoice[]> {
  await ctx.client.call('GET', '/api/xero/connection');
  let res = await ctx.client.call('GET', '/api/xero/invoices');
  ctx.bank = await ctx.client.json<BankAccountsResponse>('GET', '/api/xero/bank-accounts');
  // A first visit answers after Xero's first page and reads the rest in the background (issue 19); the screen
  // asks again each second until the list is whole, and so does the bench, so every call of the read is counted.
  while (!parseInvoiceSyncHeader(res.headers.get(INVOICES_SYNC_HEADER)).complete) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    res = await ctx.client.call('GET', '/api/xero/invoices');
  }
  return res.json<Invoice[]>();
}

export async function openAddInvoices(ctx: Context): Promise<DraftInvoice[]> {
  const drafts = await ctx.client.json<DraftInvoice[]>('GET', '/api/xero/draft-invoices');
  await ctx.client.send('GET', '/api/xero/draft-invoices/defaults');
  return drafts;
}

export async function openStockJournal(ctx: Context, customerId: string): Promise<void> {
  await ctx.client.call('GET', '/api/xero/customers');
  await ctx.client.call(
    'GET',
    `/api/xero/sales?customerId=${customerId}&fromDate=${ctx.today.slice(0, 8)}01&toDate=${ctx.today}`,
  );
  await ctx.client.call('GET', '/api/xero/stock-journal/entries');
}

export async function openSettings(ctx: Context): Promise<void> {
  await ctx.client.call('GET', '/api/xero/connection');
  for (const list of [
    'sales-accounts',
    'vat-rates',
    'bill-accounts',
    'asset-accounts',
    'cost-accounts',
    'contact-groups',
    'contacts',
  ]) {
    await ctx.client.call('GET', `/api/xero/${list}`);
  }
}

export async function openCisBills(ctx: Context): Promise<CisContact[]> {
  await ctx.client.call('GET', '/api/xero/connection');
  await ctx.client.call('GET', '/api/xero/direct-costs-accounts');
  const contacts = await ctx.client.json<CisContact[]>('GET', '/api/xero/cis-contacts');
  await ctx.client.call('GET', '/api/xero/draft-bills');
  // As the picker does (issue 19): the first screenful of 20 rows is checked when the list opens; the bills
  // are then for subcontractors picked among them, already checked.
  const shown = findCisSubcontractors(contacts)
    .slice(0, 20)
    .filter((c) => c.cisChecked === false)
    .map((c) => c.id);
  if (shown.length === 0) return contacts;
  const checked = await ctx.client.json<CisContact[]>('POST', '/api/xero/cis-contacts/check', {
    contactIds: shown,
  });
  const byId = new Map(checked.map((c) => [c.id, c]));
  return contacts.map((c) => byId.get(c.id) ?? c);
}

function bankAccounts(ctx: Context): { card: string; cash: string } {
  const card = ctx.bank?.creditCardAccounts[0]?.accountId;
  const cash =
    ctx.bank?.cashAccounts.find((a) => a.name === 'Cash')?.accountId ?? ctx.bank?.cashAccounts[0]?.accountId;
  if (!card || !cash) throw new Error('no card or cash bank account to pay from');
  return { card, cash };
}

/**
 * Pays one invoice by card and cash as the Pay Invoices screen does (docs/product/features.md §4): the card
 * payment, a refresh of the invoice, the cash payment, then the list again. The list comes from the cache (no
 * Xero call, as "pay one invoice" shows) but reading 5,000 cached invoices takes seconds on PGlite, so the
 * typical day leaves it out (`relist: false`) to keep the benchmark short; its count is the same either way.
 */
export async function payCardAndCash(
  ctx: Context,
  invoice: Invoice,
  options: { relist?: boolean } = {},
): Promise<void> {
  const { card, cash } = bankAccounts(ctx);
  const due = roundPoundsToPence(invoice.amountDue);
  const cardPence = Math.floor(due / 2);
  const base = { invoiceId: invoice.invoiceId, invoiceNumber: invoice.invoiceNumber, date: ctx.today };
  await ctx.client.call(
    'POST',
    '/api/xero/payments',
    {
      ...base,
      accountId: card,
      amount: fromPence(cardPence),
      reference: `Card payment for ${invoice.invoiceNumber}`,
      isCard: true,
    },
    withKey(),
  );
  await ctx.client.call('GET', `/api/xero/invoices/${invoice.invoiceId}?refresh=true`);
  await ctx.client.call(
    'POST',
    '/api/xero/payments',
    {
      ...base,
      accountId: cash,
      amount: fromPence(due - cardPence),
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
    },
    withKey(),
  );
  if (options.relist !== false) await ctx.client.call('GET', '/api/xero/invoices');
}

export function invoicesToPay(invoices: Invoice[], count: number, today: string): Invoice[] {
  return findInvoicesToPay(invoices, { today })
    .filter((i) => roundPoundsToPence(i.amountDue) >= 2)
    .slice(0, count);
}

/**
 * Approves `count` drafts with half of each total taken in cash, then reloads the list
 * (docs/product/features.md §4 Add Invoices). At small sandbox scales fewer drafts may be left: it approves
 * what there is and says so.
 */
export async function approveDrafts(ctx: Context, drafts: DraftInvoice[], count: number): Promise<string> {
  const chosen = drafts.filter((d) => d.totalAmount > 0).slice(0, count);
  if (chosen.length === 0) return `no drafts left to approve (wanted ${count}; raise BENCH_SCALE)`;
  const invoices = chosen.map((d) => ({
    id: d.id,
    cashAmount: fromPence(Math.floor(roundPoundsToPence(d.totalAmount) / 2)),
    approve: true,
  }));
  const answer = await ctx.client.json<{ processed: number; failed?: unknown[] }>(
    'POST',
    '/api/xero/draft-invoices/update',
    { invoices, organizationId: ctx.shop.organizationId },
    withKey(),
  );
  await ctx.client.call('GET', '/api/xero/draft-invoices?refresh=true');
  return answer.processed === count
    ? ''
    : `approved ${answer.processed} of the ${count} wanted (${chosen.length} drafts were left)`;
}

export const APPROVE_COUNT = 50;

/** Naive approval of `count` drafts with cash: one approval and one payment each, then the drafts again. */
export function approveNaive(ctx: Context, count: number): Cost {
  const costs = naiveCostsOf(sandboxOrg(ctx.sandbox, SHOP));
  return add(times(count, add(costs.approve, costs.putPayment)), costs.drafts);
}

/**
 * Waits until the sandbox has delivered every webhook event it queued and the app has applied every event it
 * stored, so the Xero reads those deliveries cost are counted with the action that caused them.
 */
export async function waitForDeliveriesApplied(ctx: Context): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await ctx.sandbox.flushWebhooks();
    const [open] = await ctx.running.database.db
      .select({ n: countRows() })
      .from(xeroWebhookEvents)
      .where(isNull(xeroWebhookEvents.processedAt));
    if (ctx.sandbox.getWebhooks().queued === 0 && Number(open?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error('webhook deliveries were not applied within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Creates `count` CIS bills in one submit (the batch endpoint when there is one), then reloads the drafts. */
export async function createBills(ctx: Context, contacts: CisContact[], count: number): Promise<string> {
  const usable = contacts.filter((c) => c.hasValidUTR);
  if (usable.length === 0) throw new Error('no CIS subcontractor with a verified rate');
  const bills = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    contactId: usable[i % usable.length]?.id ?? '',
    date: ctx.today,
    reference: getDefaultBillReference(ctx.today),
    lineItems: [
      { description: `Labour - bench week ${i + 1}`, quantity: 1, unitAmount: 480 + i, accountCode: '321' },
    ],
    status: 'DRAFT' as const,
  }));
  let note = 'one POST /api/xero/create-bills';
  try {
    await ctx.client.call('POST', '/api/xero/create-bills', { bills }, withKey());
  } catch (error) {
    if (!(error instanceof RouteMissingError)) throw error;
    note = `${count} × POST /api/xero/create-bill`;
    for (const { id: _id, ...bill } of bills)
      await ctx.client.call('POST', '/api/xero/create-bill', bill, withKey());
  }
  await ctx.client.call('GET', '/api/xero/draft-bills');
  return note;
}

/** Journal periods with sales and no journal yet, oldest first. */
function journalCandidates(periods: SalesPeriod[], entries: StockJournalEntry[]) {
  const taken = new Set(entries.map((e) => `${e.periodStart}_${e.periodEnd}`));
  return periods
    .flatMap((p) => splitSalesPeriod(p))
    .filter((p) => p.netTotal > 0 && !taken.has(`${p.periodStart}_${p.periodEnd}`))
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart));
}

export async function postJournals(ctx: Context, periods: SalesPeriod[], count: number): Promise<string> {
  const shop = sandboxOrg(ctx.sandbox, SHOP);
  const contact = shop.contacts.find((c) => c.Name === 'Daily Sales');
  const stock = shop.accounts.find((a) => a.Code === '630');
  const cost = shop.accounts.find((a) => a.Code === '310');
  if (!contact || !stock || !cost) throw new Error('seed lacks Daily Sales or the stock/cost accounts');
  let entries = await ctx.client.json<StockJournalEntry[]>('GET', '/api/xero/stock-journal/entries');
  const chosen = journalCandidates(periods, entries).slice(0, count);
  if (chosen.length < count) throw new Error(`only ${chosen.length} periods without a journal`);
  for (const period of chosen) {
    await ctx.client.call(
      'POST',
      '/api/xero/stock-journal',
      {
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        netAmount: period.netTotal,
        contactId: contact.ContactID,
        stockAccountId: stock.AccountID,
        costAccountId: cost.AccountID,
        marginRate: 1.35,
        reference: getStockJournalReference(period.periodStart, period.periodEnd),
      },
      withKey(),
    );
    entries = await ctx.client.json<StockJournalEntry[]>('GET', '/api/xero/stock-journal/entries');
  }
  return '';
}

/** The defaults the features need (Settings screen), through PATCH /api/xero/settings, or straight into the database while that is missing. */
export async function saveSettings(ctx: Context): Promise<string> {
  const shop = sandboxOrg(ctx.sandbox, SHOP);
  const builders = sandboxOrg(ctx.sandbox, BUILDERS);
  const account = (org: OrgRec, test: (a: OrgRec['accounts'][number]) => boolean) =>
    org.accounts.find(test)?.AccountID ?? null;
  const daily = shop.contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? null;
  const shopDefaults = {
    defaultCreditCardAccountId: account(shop, (a) => a.Name === 'Business Credit Card'),
    defaultCashAccountId: account(shop, (a) => a.Name === 'Cash'),
    defaultSalesAccountId: account(shop, (a) => a.Code === '200'),
    defaultVatRateId: 'OUTPUT2',
    defaultContactId: daily,
    defaultTaxStatus: 'Tax inclusive' as const,
    defaultStockJournalContactId: daily,
    defaultStockJournalMarginRate: 1.35,
    defaultStockJournalStockAccountId: account(shop, (a) => a.Code === '630'),
    defaultStockJournalCostAccountId: account(shop, (a) => a.Code === '310'),
    defaultStockJournalPostingStatus: 'draft' as const,
  };
  const buildersDefaults = {
    defaultBillAccountId: account(builders, (a) => a.Code === '321'),
    defaultBillVatRateId: 'INPUT2',
    defaultCisSubcontractorsGroupId:
      builders.contactGroups.find((g) => g.Name === 'CIS Subcontractors')?.ContactGroupID ?? null,
  };
  try {
    await ctx.client.call('PATCH', '/api/xero/settings', {
      organizationId: ctx.shop.organizationId,
      ...shopDefaults,
    });
    await ctx.client.call('PATCH', '/api/xero/settings', {
      organizationId: ctx.builders.organizationId,
      ...buildersDefaults,
    });
    return '';
  } catch (error) {
    if (!(error instanceof RouteMissingError)) throw error;
    const db = ctx.running.database.db;
    await db
      .update(organizations)
      .set({
        ...shopDefaults,
        defaultStockJournalMarginRate: String(shopDefaults.defaultStockJournalMarginRate),
      })
      .where(eq(organizations.id, ctx.shop.organizationId));
    await db
      .update(organizations)
      .set(buildersDefaults)
      .where(eq(organizations.id, ctx.builders.organizationId));
    return 'PATCH /api/xero/settings not built yet: defaults written to the database';
  }
}
