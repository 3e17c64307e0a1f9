/**
 * A practice's clients (issue 47): N more organisations for the owner, beside the two demo ones, as a bookkeeper
 * with a book of clients has them. Each is one of three kinds of small UK business, in turn, with a realistic
 * mix of work: a shop (daily takings to a "Daily Sales" customer, weekly stock journals some of which are
 * posted), a building contractor (CIS subcontractors, draft and paid bills) and a services firm (trade
 * customers, supplier bills). Every client has `200 × scale` sales invoices awaiting payment (scale 25: 5,000),
 * some drafts, and a little paid history; sizes and states vary with the client's own random stream, so the
 * same seed gives the same clients.
 */
import {
  addInvoice,
  createSeed,
  SEED_NAMES,
  type SeedResult,
  BUILDER_ACCOUNTS,
  CIS_GROUP,
  COMMON_ACCOUNTS,
  contact,
  DAILY_SALES,
  makeAccounts,
  makeOrg,
  numberInvoices,
  SHOP_ACCOUNTS,
  type Builder,
  type InvoiceSeed,
} from './seed';
import { createRandom, type Random } from './random';
import type { ContactRec, JournalRec, OrgRec } from './state';
import { addDays, dayToMs, isoDay } from './xero-dates';

export type ClientKind = 'shop' | 'contractor' | 'services';
export const CLIENT_KINDS: readonly ClientKind[] = ['shop', 'contractor', 'services'];

/** Sales invoices awaiting payment per client at scale 1 (scale 25: 5,000, the practice benchmark's size). */
export const CLIENT_OUTSTANDING_PER_SCALE = 200;

const SURNAMES = [
  'Ashworth',
  'Bramley',
  'Carrington',
  'Dunmore',
  'Ellison',
  'Fairbairn',
  'Greenhalgh',
  'Hartley',
  'Ingram',
  'Jessop',
  'Kendrick',
  'Lockwood',
  'Marsden',
  'Norcross',
  'Oakley',
  'Pennington',
  'Quayle',
  'Radcliffe',
  'Sutcliffe',
  'Thornbury',
  'Underwood',
  'Varley',
  'Whitaker',
  'Yardley',
];
const TRADES: Record<ClientKind, readonly string[]> = {
  shop: ['Bakery', 'Deli', 'Farm Shop', 'Bookshop', 'Florist', 'Hardware', 'Wine Merchants', 'Butchers'],
  contractor: ['Builders', 'Construction', 'Roofing', 'Groundworks', 'Renovations', 'Joinery'],
  services: ['Consulting', 'Design Studio', 'IT Services', 'Architects', 'Marketing', 'Surveyors'],
};
const CUSTOMER_WORDS = [
  'Northgate',
  'Riverside',
  'Hillcrest',
  'Parkview',
  'Westfield',
  'Kingsley',
  'Elmwood',
];
const CUSTOMER_KINDS = ['Ltd', 'Hotel', 'Surgery', 'Academy', 'Properties', 'Group', 'Partners'];
const SUB_FIRST = ['A.', 'B.', 'C.', 'D.', 'J.', 'K.', 'M.', 'P.', 'R.', 'S.', 'T.'];
const SUB_TRADES = [
  'Plastering',
  'Electrical',
  'Brickwork',
  'Plumbing',
  'Tiling',
  'Scaffolding',
  'Carpentry',
];
const CIS_SETTINGS: ContactRec['cis'][] = [
  { enabled: true, rate: 20 },
  { enabled: true, rate: 20 },
  { enabled: true, rate: 0 },
  { enabled: true, rate: 30 },
  { enabled: false },
  null,
];

/**
 * The client's name: a surname and a trade of its kind, unique per index (the first 144 to 192 of each kind
 * differ by name alone; after that a number is added).
 */
export function clientName(index: number): string {
  const kind = clientKind(index);
  const trades = TRADES[kind];
  const k = Math.floor(index / CLIENT_KINDS.length);
  const surname = SURNAMES[k % SURNAMES.length] ?? 'Client';
  const trade = trades[(k + Math.floor(k / SURNAMES.length)) % trades.length] ?? 'Trading';
  const round = Math.floor(k / (SURNAMES.length * trades.length));
  return `${surname} ${trade}${round > 0 ? ` ${round + 1}` : ''} Ltd`;
}

export function clientKind(index: number): ClientKind {
  return CLIENT_KINDS[index % CLIENT_KINDS.length] ?? 'services';
}

function makeCustomers(rnd: Random, org: OrgRec, count: number): ContactRec[] {
  const customers: ContactRec[] = [];
  for (let i = 0; i < count; i++) {
    const word = CUSTOMER_WORDS[i % CUSTOMER_WORDS.length] ?? 'Customer';
    const kind = CUSTOMER_KINDS[(i + rnd.int(0, 6)) % CUSTOMER_KINDS.length] ?? 'Ltd';
    customers.push(
      contact(rnd, `${word} ${kind}${i >= CUSTOMER_WORDS.length ? ` ${i + 1}` : ''}`, org.createdMs + i, {
        ContactNumber: `C${String(i + 1).padStart(4, '0')}`,
      }),
    );
  }
  org.contacts.push(...customers);
  return customers;
}

/** Sales invoices awaiting payment (a fifth part-paid), dated over the last four months, 30-day terms. */
function addOutstanding(b: Builder, customers: ContactRec[], count: number, mode: 'Exclusive' | 'Inclusive') {
  const { org, rnd, today } = b;
  const card = org.accounts.find((a) => a.Name === 'Business Credit Card');
  const current = org.accounts.find((a) => a.Name === 'Business Current Account');
  for (let i = 0; i < count; i++) {
    const date = addDays(today, -rnd.int(0, 120));
    addInvoice(b, {
      type: 'ACCREC',
      contact: rnd.pick(customers),
      date,
      dueDate: addDays(date, 30),
      mode,
      reference: rnd.chance(0.4) ? `PO ${rnd.int(1000, 9999)}` : '',
      lines: [
        {
          description: 'Goods and services',
          quantity: rnd.int(1, 6),
          unitPence: rnd.int(20, 900) * 100,
          accountCode: '200',
          taxType: 'OUTPUT2',
        },
      ],
      plan: rnd.chance(0.2) ? 'part' : 'outstanding',
      payAccounts: [current ?? card ?? org.accounts[0]!],
    });
  }
}

/** A little history (paid, voided) and this week's drafts waiting to be approved. */
function addHistoryAndDrafts(b: Builder, customers: ContactRec[], paid: number, drafts: number) {
  const { org, rnd, today } = b;
  const current = org.accounts.find((a) => a.Name === 'Business Current Account') ?? org.accounts[0]!;
  const plans: Array<{ plan: InvoiceSeed['plan']; age: number }> = [
    ...Array.from({ length: paid }, () => ({ plan: 'paid' as const, age: rnd.int(30, 400) })),
    ...Array.from({ length: drafts }, () => ({ plan: 'draft' as const, age: rnd.int(0, 6) })),
  ];
  for (const { plan, age } of plans) {
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCREC',
      contact: rnd.pick(customers),
      date,
      dueDate: addDays(date, 30),
      mode: 'Exclusive',
      reference: '',
      lines: [
        {
          description: 'Goods and services',
          quantity: 1,
          unitPence: rnd.int(50, 2500) * 100,
          accountCode: '200',
          taxType: 'OUTPUT2',
        },
      ],
      plan,
      payAccounts: [current],
    });
  }
}

function addSupplierBills(b: Builder, suppliers: ContactRec[], count: number, accountCode: string) {
  const { org, rnd, today } = b;
  const current = org.accounts.find((a) => a.Name === 'Business Current Account') ?? org.accounts[0]!;
  for (let i = 0; i < count; i++) {
    const age = rnd.int(0, 200);
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCPAY',
      contact: rnd.pick(suppliers),
      date,
      dueDate: addDays(date, 30),
      mode: 'Exclusive',
      reference: '',
      invoiceNumber: `SUP-${rnd.int(10000, 99999)}`,
      lines: [
        {
          description: 'Supplies',
          quantity: 1,
          unitPence: rnd.int(50, 1500) * 100,
          accountCode,
          taxType: 'INPUT2',
        },
      ],
      plan: age > 45 ? 'paid' : rnd.chance(0.6) ? 'outstanding' : 'paid',
      payAccounts: [current],
    });
  }
}

/** Daily takings for the last nine weeks, and stock journals for the weeks some weeks ago (some left to post). */
function addShopWork(b: Builder) {
  const { org, rnd, today, nowMs } = b;
  const daily = contact(rnd, DAILY_SALES, org.createdMs, { IsCustomer: true, EmailAddress: undefined });
  org.contacts.push(daily);
  const card = org.accounts.find((a) => a.Name === 'Business Credit Card')!;
  const cash = org.accounts.find((a) => a.Name === 'Cash')!;
  for (let age = 62; age >= 0; age--) {
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCREC',
      contact: daily,
      date,
      dueDate: addDays(date, 7),
      mode: 'Inclusive',
      reference: `Daily takings ${date}`,
      lines: [
        {
          description: `Takings ${date}`,
          quantity: 1,
          unitPence: rnd.int(300, 2400) * 100,
          accountCode: '200',
          taxType: 'OUTPUT2',
        },
      ],
      plan: age <= 2 ? 'draft' : age <= 8 && rnd.chance(0.5) ? 'outstanding' : 'paid',
      payAccounts: [card, cash],
    });
  }
  // Journals posted for the older weeks; the last one to four weeks are left for the bookkeeper.
  const stock = org.accounts.find((a) => a.Code === '630');
  const cost = org.accounts.find((a) => a.Code === '310');
  if (!stock || !cost) return;
  const lastSunday = addDays(today, -((new Date(nowMs).getUTCDay() + 6) % 7) - 1);
  const leftToPost = rnd.int(1, 4);
  for (let weeksAgo = leftToPost; weeksAgo < 8; weeksAgo++) {
    const end = addDays(lastSunday, -7 * weeksAgo);
    const start = addDays(end, -6);
    const amount = rnd.int(100_000, 400_000);
    const journal: JournalRec = {
      ManualJournalID: rnd.uuid(),
      Narration: `Stock Transfer Journal - ${start} to ${end}`,
      Date: end,
      Status: 'POSTED',
      LineAmountTypes: 'NoTax',
      ShowOnCashBasisReports: true,
      lines: [
        {
          lineAmount: amount,
          taxAmount: 0,
          AccountID: cost.AccountID,
          AccountCode: '310',
          Description: 'Cost of stock sold',
          TaxType: 'NONE',
        },
        {
          lineAmount: -amount,
          taxAmount: 0,
          AccountID: stock.AccountID,
          AccountCode: '630',
          Description: 'Transfer from stock',
          TaxType: 'NONE',
        },
      ],
      updatedMs: Math.min(dayToMs(end) + 86_400_000, nowMs - 1000),
    };
    org.journals.push(journal);
  }
}

/** CIS subcontractors in a group, their bills (drafts, paid over the last tax months, some awaiting payment). */
function addContractorWork(b: Builder) {
  const { org, rnd, today } = b;
  const current = org.accounts.find((a) => a.Name === 'Business Current Account') ?? org.accounts[0]!;
  const subs: ContactRec[] = [];
  const count = rnd.int(4, 10);
  for (let i = 0; i < count; i++) {
    const first = SUB_FIRST[(i + rnd.int(0, 10)) % SUB_FIRST.length] ?? 'A.';
    const surname = SURNAMES[(i * 7 + rnd.int(0, 23)) % SURNAMES.length] ?? 'Smith';
    const trade = SUB_TRADES[i % SUB_TRADES.length] ?? 'Labour';
    subs.push(
      contact(
        rnd,
        `${first} ${surname} ${trade}${i >= SUB_TRADES.length ? ` ${i + 1}` : ''}`,
        org.createdMs + i,
        {
          IsSupplier: true,
          cis: CIS_SETTINGS[(i + rnd.int(0, 5)) % CIS_SETTINGS.length] ?? null,
          PurchasesDefaultAccountCode: '321',
          AccountsPayableTaxType: 'NONE',
        },
      ),
    );
  }
  org.contacts.push(...subs);
  org.contactGroups.push({
    ContactGroupID: rnd.uuid(),
    Name: CIS_GROUP,
    Status: 'ACTIVE',
    contactIds: subs.map((c) => c.ContactID),
  });
  const bills = rnd.int(20, 50);
  for (let i = 0; i < bills; i++) {
    const drafts = rnd.int(1, 6);
    const age = i < drafts ? rnd.int(0, 6) : rnd.int(7, 110);
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCPAY',
      contact: rnd.pick(subs),
      date,
      dueDate: addDays(date, 14),
      mode: 'NoTax',
      reference: '',
      invoiceNumber: `W${String(rnd.int(1, 52)).padStart(2, '0')}`,
      lines: [
        {
          description: 'Labour',
          quantity: 1,
          unitPence: rnd.int(40, 320) * 1000,
          accountCode: '321',
          taxType: 'NONE',
        },
      ],
      plan: i < drafts ? 'draft' : age > 20 || rnd.chance(0.5) ? 'paid' : 'outstanding',
      payAccounts: [current],
    });
  }
}

/** One client organisation: its kind from its index, its figures from its own random stream. */
export function seedClient(seed: number, index: number, nowMs: number, scale: number): OrgRec {
  const rnd = createRandom(seed, 1000 + index);
  const kind = clientKind(index);
  const org = makeOrg(rnd, clientName(index), nowMs, {
    cis: { contractor: kind === 'contractor', subContractor: false },
    practiceKind: kind,
  });
  org.accounts = makeAccounts(
    rnd,
    [
      ...COMMON_ACCOUNTS,
      ...(kind === 'shop' ? SHOP_ACCOUNTS : kind === 'contractor' ? BUILDER_ACCOUNTS : []),
    ],
    org.createdMs,
  );
  const b: Builder = { org, rnd, today: isoDay(nowMs), nowMs };
  const customers = makeCustomers(rnd, org, rnd.int(5, 12));
  const suppliers = ['Office Supplies Direct', 'Utility Power Co', 'Vehicle Leasing Ltd'].map((name, i) =>
    contact(rnd, name, org.createdMs + 100 + i, { PurchasesDefaultAccountCode: '429' }),
  );
  org.contacts.push(...suppliers);
  addOutstanding(b, customers, Math.round(CLIENT_OUTSTANDING_PER_SCALE * scale), 'Exclusive');
  addHistoryAndDrafts(b, customers, rnd.int(10, 40), rnd.int(0, 8));
  addSupplierBills(b, suppliers, rnd.int(5, 25), '429');
  if (kind === 'shop') addShopWork(b);
  if (kind === 'contractor') addContractorWork(b);
  numberInvoices(org);
  return org;
}

/**
 * The seed with a practice: the demo organisations and users (seed.ts), and `clients` client organisations for
 * the owner, each at `scale`.
 */
export function createPracticeSeed(seed: number, scale: number, nowMs: number, clients: number): SeedResult {
  const seeded = createSeed(seed, scale, nowMs);
  const safeScale = Number.isFinite(scale) && scale > 0 ? scale : 1;
  const extra = Array.from({ length: Math.max(0, Math.floor(clients)) }, (_, i) =>
    seedClient(seed, i, nowMs, safeScale),
  );
  const owner = seeded.users.find((u) => u.email === SEED_NAMES.users.owner);
  owner?.tenantIds.push(...extra.map((o) => o.OrganisationID));
  return { orgs: [...seeded.orgs, ...extra], users: seeded.users };
}
