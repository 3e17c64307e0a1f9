/**
 * The people's work on one day of the soak's month (bench/soak.ts): Demo Shop's card and cash payments, drafts
 * approved with cash (two people at once), new invoices with cash and the weekly stock journal; Demo Builders'
 * CIS bills created, approved and deleted. Each request is recorded with what its person was told.
 */
import { randomUUID } from 'node:crypto';
import type { DraftInvoice } from '../src/shared/add-invoices';
import {
  DEFAULT_BILL_ACCOUNT_HEADER,
  getDefaultBillReference,
  isCisChecked,
  type CisContact,
} from '../src/shared/cis-bills';
import { addDays } from '../src/shared/dates';
import { fromPence, roundPoundsToPence } from '../src/shared/money';
import { findInvoicesToPay, type BankAccountsResponse, type Invoice } from '../src/shared/pay-invoices';
import { getStockJournalReference, splitSalesPeriod, type SalesPeriod } from '../src/shared/stock-journal';
import { figures } from './soak-figures';
import { liveInstances } from './soak-instances';
import { act, record, tab, type Person } from './soak-people';
import { BUILDERS, chance, pick, random, SHOP } from './soak-settings';
import { orgOf, type World } from './soak-world';

export async function payDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const viewer = pick([admin, staff]);
  const listed = await tab(viewer, SHOP)
    .on(pick(liveInstances(world.instances)).server?.url ?? '')
    .send('GET', '/api/xero/invoices');
  if (listed.status !== 200) return;
  const invoices = findInvoicesToPay(listed.json<Invoice[]>(), { today: world.today }).filter(
    (i) => roundPoundsToPence(i.amountDue) >= 4,
  );
  const bank = await tab(viewer, SHOP).json<BankAccountsResponse>('GET', '/api/xero/bank-accounts');
  const card = bank.creditCardAccounts.find((a) => a.name === 'Business Credit Card')?.accountId;
  const cash = bank.cashAccounts.find((a) => a.name === 'Cash')?.accountId;
  if (!card || !cash) throw new Error('no card or cash account');
  const chosen = invoices.slice(0, 3 + Math.floor(random() * 3));
  const pay = async (person: Person, invoice: Invoice, pence: number, isCard: boolean) => {
    const key = randomUUID();
    const request = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      date: world.today,
      accountId: isCard ? card : cash,
      amount: fromPence(pence),
      reference: `${isCard ? 'Card' : 'Cash'} payment for ${invoice.invoiceNumber}`,
      isCard,
    };
    const answer = await act(world.instances, person, 'POST', '/api/xero/payments', request, key);
    record(
      {
        kind: 'payment',
        org: SHOP,
        user: person.name,
        key,
        target: invoice.invoiceId,
        amountPence: pence,
        url: '/api/xero/payments',
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  for (const invoice of chosen) {
    const due = roundPoundsToPence(invoice.amountDue);
    const cardPence = Math.floor(due / 2);
    if (chance(0.15)) {
      // Two people pay the same invoice's card half at the same moment, on different instances.
      figures.races += 1;
      await Promise.all([pay(admin, invoice, cardPence, true), pay(staff, invoice, cardPence, true)]);
      continue;
    }
    const person = pick([admin, staff]);
    await pay(person, invoice, cardPence, true);
    // Some invoices keep their cash half for another day (so an old card payment resent later would fit).
    if (chance(0.6)) await pay(person, invoice, due - cardPence, false);
  }
}

export async function draftsDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const listed = await tab(admin, SHOP).send('GET', '/api/xero/draft-invoices?refresh=true');
  if (listed.status !== 200) return;
  const drafts = listed.json<DraftInvoice[]>().filter((d) => d.totalAmount > 0);
  const update = async (person: Person, draft: DraftInvoice, pence: number, approve: boolean) => {
    const key = randomUUID();
    const url = '/api/xero/draft-invoices/update';
    const request = { invoices: [{ id: draft.id, cashAmount: fromPence(pence), approve }] };
    const answer = await act(world.instances, person, 'POST', url, request, key);
    record(
      {
        kind: approve ? 'approve' : 'pending-cash',
        org: SHOP,
        user: person.name,
        key,
        target: draft.id,
        amountPence: pence,
        url,
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  const [a, b, c] = [drafts[0], drafts[1], drafts[2]];
  if (a) {
    // Both people approve one draft with cash at the same moment (issue 28, 1).
    figures.races += 1;
    await Promise.all([update(admin, a, 200, true), update(staff, a, 200, true)]);
  }
  if (b) {
    // Pending cash saved by one while the other approves (issue 28, 2).
    figures.races += 1;
    await Promise.all([update(staff, b, 500, false), update(admin, b, 200, true)]);
  }
  if (c && chance(0.5))
    await update(pick([admin, staff]), c, Math.min(300, roundPoundsToPence(c.totalAmount)), true);
  // A new invoice on the defaults, part of it taken in cash: approved (the cash paid at once) or kept as a
  // draft (the cash pending until it is approved). Kept as a draft while few are left, so there are drafts to
  // approve every day of the month (the seed's run out by mid-month), the days between the backup and the
  // restore included: an approval is among the writes resent after the restore on every seed.
  await newInvoice(world, pick([admin, staff]), drafts.length > 3 && chance(0.75));
}

/** Each new invoice's total is its own (so Xero's copy is found by it): £60.03, £60.10, £60.17, … */
let newInvoices = 0;

async function newInvoice(world: World, person: Person, approve: boolean): Promise<void> {
  newInvoices += 1;
  const totalPence = 6_000 + newInvoices * 7 - 4;
  const cashPence = 1_000 + (newInvoices % 5) * 100;
  const key = randomUUID();
  const url = '/api/xero/draft-invoices/create';
  const request = {
    date: world.today,
    totalAmount: fromPence(totalPence),
    cashAmount: fromPence(cashPence),
    approve,
  };
  const answer = await act(world.instances, person, 'POST', url, request, key);
  record(
    {
      kind: 'new-invoice',
      org: SHOP,
      user: person.name,
      key,
      target: `new:${totalPence}`,
      amountPence: cashPence,
      url,
      request,
      afterBackup: world.afterBackup,
    },
    answer,
  );
}

export async function billsDay(world: World): Promise<void> {
  const { bookkeeper, admin } = world;
  const listed = await tab(bookkeeper, BUILDERS).json<CisContact[]>('GET', '/api/xero/cis-contacts');
  // The list leaves unread CIS settings unknown (hasValidUTR null); the screen checks the ones it shows.
  const unread = listed.filter((c) => !isCisChecked(c)).map((c) => c.id);
  const checked =
    unread.length > 0
      ? await tab(bookkeeper, BUILDERS).json<CisContact[]>('POST', '/api/xero/cis-contacts/check', {
          contactIds: unread.slice(0, 50),
        })
      : [];
  const contacts = listed.map((c) => checked.find((k) => k.id === c.id) ?? c);
  const usable = contacts.filter((c) => c.hasValidUTR === true);
  if (usable.length === 0) throw new Error('no CIS subcontractor with a verified UTR: no bills today');
  const key = randomUUID();
  const tags = Array.from({ length: 2 }, (_, i) => `soak ${key.slice(0, 8)}#${i}`);
  const bills = tags.map((tag, i) => ({
    id: randomUUID(),
    contactId: pick(usable).id,
    date: world.today,
    reference: getDefaultBillReference(world.today),
    lineItems: [
      { description: `Labour - ${tag}`, quantity: 1, unitAmount: 300 + i * 17, accountCode: '321' },
    ],
    status: 'DRAFT' as const,
  }));
  const answer = await act(
    world.instances,
    bookkeeper,
    'POST',
    '/api/xero/create-bills',
    { bills },
    key,
    BUILDERS,
  );
  record(
    {
      kind: 'bills',
      org: BUILDERS,
      user: bookkeeper.name,
      key,
      target: tags.join(','),
      billTags: tags,
      url: '/api/xero/create-bills',
      request: { bills },
      afterBackup: world.afterBackup,
    },
    answer,
  );
  // Approve (sometimes two people at once) or delete one of the drafts Xero holds.
  const drafts = orgOf(world, BUILDERS).invoices.filter(
    (i) =>
      i.Type === 'ACCPAY' && i.Status === 'DRAFT' && i.lines.some((l) => l.Description.includes('soak ')),
  );
  const bill = drafts[0];
  if (!bill) return;
  const approveOne = async (person: Person) => {
    const k = randomUUID();
    const url = `/api/xero/approve-bill/${bill.InvoiceID}`;
    // CIS Bills sends the saved bill account with an approval, in a header (docs/product/features.md §7);
    // without it the server refuses "Please set a default bill account in the settings page…".
    const headers = { [DEFAULT_BILL_ACCOUNT_HEADER]: world.billAccountId };
    const a = await act(world.instances, person, 'POST', url, {}, k, BUILDERS, headers);
    record(
      {
        kind: 'bill-approve',
        org: BUILDERS,
        user: person.name,
        key: k,
        target: bill.InvoiceID,
        url,
        request: {},
        headers,
        afterBackup: world.afterBackup,
      },
      a,
    );
  };
  if (chance(0.3)) {
    const k = randomUUID();
    const url = `/api/xero/delete-bill/${bill.InvoiceID}`;
    const a = await act(world.instances, bookkeeper, 'POST', url, {}, k, BUILDERS);
    record(
      {
        kind: 'bill-delete',
        org: BUILDERS,
        user: bookkeeper.name,
        key: k,
        target: bill.InvoiceID,
        url,
        request: {},
        afterBackup: world.afterBackup,
      },
      a,
    );
  } else if (chance(0.4)) {
    figures.races += 1;
    await Promise.all([approveOne(bookkeeper), approveOne(admin)]);
  } else {
    await approveOne(bookkeeper);
  }
}

export async function journalDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const org = orgOf(world, SHOP);
  const contact = org.contacts.find((c) => c.Name === 'Daily Sales');
  const stock = org.accounts.find((a) => a.Code === '630');
  const cost = org.accounts.find((a) => a.Code === '310');
  if (!contact || !stock || !cost) return;
  const entries = await tab(admin, SHOP).send('GET', '/api/xero/stock-journal/entries');
  if (entries.status !== 200) return;
  const taken = new Set(
    entries
      .json<Array<{ periodStart: string; periodEnd: string }>>()
      .map((e) => `${e.periodStart}_${e.periodEnd}`),
  );
  // The oldest week of the last three months with sales and no journal yet, with its net sales as the screen
  // reads them (the server refuses a figure that is not Xero's).
  const today = world.today;
  const from = addDays(today, -90);
  const sales = await tab(admin, SHOP).send(
    'GET',
    `/api/xero/sales?customerId=${contact.ContactID}&fromDate=${from}&toDate=${today}`,
  );
  if (sales.status !== 200) return;
  const candidates = sales
    .json<SalesPeriod[]>()
    .flatMap((p) => splitSalesPeriod(p))
    .filter(
      (p) =>
        p.netTotal > 0 &&
        p.periodEnd < today &&
        !taken.has(`${p.periodStart}_${p.periodEnd}`) &&
        !world.periodsPosted.has(`${p.periodStart}_${p.periodEnd}`),
    )
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart));
  const chosen = candidates[0];
  if (!chosen) return;
  const period = { start: chosen.periodStart, end: chosen.periodEnd, net: chosen.netTotal };
  world.periodsPosted.add(`${period.start}_${period.end}`);
  const post = async (person: Person) => {
    const key = randomUUID();
    const url = '/api/xero/stock-journal';
    const request = {
      periodStart: period.start,
      periodEnd: period.end,
      netAmount: period.net,
      contactId: contact.ContactID,
      stockAccountId: stock.AccountID,
      costAccountId: cost.AccountID,
      marginRate: 1.35,
      reference: getStockJournalReference(period.start, period.end),
    };
    const answer = await act(world.instances, person, 'POST', url, request, key);
    record(
      {
        kind: 'journal',
        org: SHOP,
        user: person.name,
        key,
        target: `${period.start}_${period.end}`,
        url,
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  // Two people post the same week at the same moment: Xero must get one journal.
  figures.races += 1;
  await Promise.all([post(admin), post(staff)]);
}
