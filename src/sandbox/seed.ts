/**
 * Deterministic seed data: two UK organisations that serve Ledgerlink's four features, and the
 * sandbox users who can sign in. Same seed + same "today" → identical data (IDs included).
 * Volume scales with `scale` (1 ≈ 2,300 invoices; 10 ≈ 20,000) and stays fast to generate.
 */
import { ACCOUNT_CLASS_BY_TYPE, type AccountType } from './account-types';
import { priceLine, applyTotals } from './invoice-math';
import type { LineAmountTypes } from './money';
import { createRandom, type Random } from './random';
import type {
  AccountRec,
  AttachmentRec,
  ContactGroupRec,
  ContactRec,
  InvoiceRec,
  InvoiceStatus,
  InvoiceType,
  JournalRec,
  OrgRec,
  PaymentRec,
  TaxRateRec,
  UserRec,
} from './state';
import { addDays, dayToMs, isoDay } from './xero-dates';

export const DEMO_SHOP = 'Demo Shop Ltd';
export const DEMO_BUILDERS = 'Demo Builders Ltd';
export const DAILY_SALES = 'Daily Sales';
export const CIS_GROUP = 'CIS Subcontractors';

/** Names the rest of the app (and its tests) can rely on. */
export const SEED_NAMES = {
  shop: DEMO_SHOP,
  builders: DEMO_BUILDERS,
  dailySalesContact: DAILY_SALES,
  cisGroup: CIS_GROUP,
  currentAccount: 'Business Current Account',
  cashAccount: 'Cash',
  creditCardAccount: 'Business Credit Card',
  users: {
    owner: 'owner@demoshop.example',
    shopStaff: 'staff@demoshop.example',
    builderBookkeeper: 'bookkeeper@demobuilders.example',
  },
} as const;

const DAY = 86_400_000;

export type AccountSeed = [
  code: string | undefined,
  name: string,
  type: AccountType,
  taxType: string,
  extra?: Partial<AccountRec>,
];

export const COMMON_ACCOUNTS: AccountSeed[] = [
  [
    '090',
    'Business Current Account',
    'BANK',
    'NONE',
    { BankAccountType: 'BANK', BankAccountNumber: '20-45-77 43518862' },
  ],
  [
    undefined,
    'Business Credit Card',
    'BANK',
    'NONE',
    { BankAccountType: 'CREDITCARD', BankAccountNumber: '4929 **** **** 7781' },
  ],
  [undefined, 'Cash', 'BANK', 'NONE', { BankAccountType: 'BANK', BankAccountNumber: 'Till float' }],
  ['200', 'Sales', 'REVENUE', 'OUTPUT2'],
  ['260', 'Other Revenue', 'REVENUE', 'OUTPUT2'],
  ['270', 'Interest Income', 'REVENUE', 'NONE'],
  ['310', 'Cost of Goods Sold', 'DIRECTCOSTS', 'INPUT2'],
  ['320', 'Direct Wages', 'DIRECTCOSTS', 'NONE'],
  ['325', 'Direct Expenses', 'DIRECTCOSTS', 'INPUT2'],
  ['400', 'Advertising', 'OVERHEADS', 'INPUT2'],
  ['404', 'Bank Fees', 'OVERHEADS', 'EXEMPTINPUT'],
  ['429', 'General Expenses', 'OVERHEADS', 'INPUT2'],
  ['445', 'Light, Power, Heating', 'OVERHEADS', 'RRINPUT'],
  ['469', 'Rent', 'OVERHEADS', 'EXEMPTINPUT'],
  ['489', 'Telephone & Internet', 'OVERHEADS', 'INPUT2'],
  ['610', 'Accounts Receivable', 'CURRENT', 'NONE', { SystemAccount: 'DEBTORS' }],
  ['620', 'Prepayments', 'CURRENT', 'NONE'],
  ['630', 'Inventory', 'INVENTORY', 'NONE'],
  ['710', 'Office Equipment', 'FIXED', 'INPUT2'],
  ['800', 'Accounts Payable', 'CURRLIAB', 'NONE', { SystemAccount: 'CREDITORS' }],
  ['820', 'VAT', 'CURRLIAB', 'NONE', { SystemAccount: 'GST' }],
  ['860', 'Rounding', 'CURRLIAB', 'NONE', { SystemAccount: 'ROUNDING' }],
  ['960', 'Retained Earnings', 'EQUITY', 'NONE', { SystemAccount: 'RETAINEDEARNINGS' }],
  ['970', 'Owner A Funds Introduced', 'EQUITY', 'NONE', { EnablePaymentsToAccount: true }],
];

export const SHOP_ACCOUNTS: AccountSeed[] = [
  [undefined, 'Old Credit Card', 'BANK', 'NONE', { BankAccountType: 'CREDITCARD', Status: 'ARCHIVED' }],
  ['311', 'Cost of Sales - Food', 'DIRECTCOSTS', 'ZERORATEDINPUT'],
  ['631', 'Stock - Shop Floor', 'INVENTORY', 'NONE'],
  ['632', 'Stock - Warehouse', 'CURRENT', 'NONE'],
];

export const BUILDER_ACCOUNTS: AccountSeed[] = [
  ['321', 'Subcontractors', 'DIRECTCOSTS', 'INPUT2'],
  ['322', 'Materials', 'DIRECTCOSTS', 'INPUT2'],
  ['326', 'Plant Hire', 'DIRECTCOSTS', 'INPUT2'],
  ['327', 'CIS Labour Expense', 'DIRECTCOSTS', 'NONE', { SystemAccount: 'CISLABOUREXPENSE' }],
  ['328', 'CIS Materials', 'DIRECTCOSTS', 'INPUT2', { SystemAccount: 'CISMATERIALS' }],
  ['815', 'CIS Liability', 'CURRLIAB', 'NONE', { SystemAccount: 'CISLIABILITY' }],
  // An ordinary liability account: Ledgerlink books each bill's CIS deduction to it (Xero's API refuses its CIS
  // system accounts on line items), and the firm pays HMRC from it (issue 42).
  ['814', 'CIS Deductions Payable', 'CURRLIAB', 'NONE'],
];

/** The demo's CIS deductions account and materials account, as its CIS settings choose them (issue 42). */
export const BUILDERS_CIS_ACCOUNTS = { deductions: '814', materials: '322' } as const;

function taxRate(
  Name: string,
  TaxType: string,
  ReportTaxType: string,
  percent: number,
  applies: 'revenue' | 'expenses' | 'all',
): TaxRateRec {
  return {
    Name,
    TaxType,
    ReportTaxType,
    rateE4: percent * 10000,
    Status: 'ACTIVE',
    revenue: applies !== 'expenses',
    expenses: applies !== 'revenue',
    assets: applies !== 'revenue',
    liabilities: applies === 'all',
    equity: applies === 'all',
  };
}

export function ukTaxRates(): TaxRateRec[] {
  return [
    taxRate('20% (VAT on Income)', 'OUTPUT2', 'OUTPUT', 20, 'revenue'),
    taxRate('20% (VAT on Expenses)', 'INPUT2', 'INPUT', 20, 'expenses'),
    taxRate('5% (VAT on Income)', 'RROUTPUT', 'OUTPUT', 5, 'revenue'),
    taxRate('5% (VAT on Expenses)', 'RRINPUT', 'INPUT', 5, 'expenses'),
    taxRate('Zero Rated Income', 'ZERORATEDOUTPUT', 'ZERORATEDOUTPUT', 0, 'revenue'),
    taxRate('Zero Rated Expenses', 'ZERORATEDINPUT', 'ZERORATEDINPUT', 0, 'expenses'),
    taxRate('Exempt Income', 'EXEMPTOUTPUT', 'EXEMPTOUTPUT', 0, 'revenue'),
    taxRate('Exempt Expenses', 'EXEMPTINPUT', 'EXEMPTINPUT', 0, 'expenses'),
    taxRate('No VAT', 'NONE', 'NONE', 0, 'all'),
    {
      ...taxRate('20% (VAT on Capital Expenses)', 'CAPEXINPUT2', 'CAPEXINPUT', 20, 'expenses'),
      revenue: false,
    },
    ...domesticReverseChargeRates(),
  ];
}

/**
 * Xero UK's domestic reverse charge rates for construction services (the four Xero adds with "Add Domestic
 * Reverse Charge Tax Rates"; TaxType enum and ReportTaxType DRCHARGE / DRCHARGESUPPLY of xero_accounting.yaml).
 * DRCHARGE20 / DRCHARGE5 are the contractor's side, on bills; DRCHARGESUPPLY20 / DRCHARGESUPPLY5 the
 * subcontractor's, on sales. They show 20 % or 5 % but put no VAT on the document's total: the customer accounts
 * for the VAT on its VAT return (HMRC VAT Notice 735), so a reverse-charge bill is due at its net amount.
 * Xero's developer docs' table of default rates names the two sides the other way round; Ledgerlink picks
 * the one that applies to expenses, whatever its name (docs/xero-api.md §4.8).
 */
function domesticReverseChargeRates(): TaxRateRec[] {
  const drc = (
    Name: string,
    TaxType: string,
    ReportTaxType: string,
    percent: number,
    applies: 'revenue' | 'expenses',
  ): TaxRateRec => ({ ...taxRate(Name, TaxType, ReportTaxType, 0, applies), displayE4: percent * 10000 });
  return [
    drc('Domestic Reverse Charge @ 20% (VAT on Expenses)', 'DRCHARGE20', 'DRCHARGE', 20, 'expenses'),
    drc('Domestic Reverse Charge @ 5% (VAT on Expenses)', 'DRCHARGE5', 'DRCHARGE', 5, 'expenses'),
    drc('Domestic Reverse Charge @ 20% (VAT on Income)', 'DRCHARGESUPPLY20', 'DRCHARGESUPPLY', 20, 'revenue'),
    drc('Domestic Reverse Charge @ 5% (VAT on Income)', 'DRCHARGESUPPLY5', 'DRCHARGESUPPLY', 5, 'revenue'),
  ];
}

export function makeAccounts(rnd: Random, seeds: AccountSeed[], createdMs: number): AccountRec[] {
  return seeds.map(([code, name, type, taxType, extra]) => ({
    AccountID: rnd.uuid(),
    ...(code ? { Code: code } : {}),
    Name: name,
    Type: type,
    Status: 'ACTIVE' as const,
    Class: ACCOUNT_CLASS_BY_TYPE[type],
    ...(type === 'BANK' ? { BankAccountType: 'BANK' as const } : {}),
    TaxType: taxType,
    EnablePaymentsToAccount: false,
    ShowInExpenseClaims: type === 'OVERHEADS',
    updatedMs: createdMs,
    ...extra,
  }));
}

export function contact(
  rnd: Random,
  name: string,
  updatedMs: number,
  extra: Partial<ContactRec> = {},
): ContactRec {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');
  return {
    ContactID: rnd.uuid(),
    Name: name,
    EmailAddress: `accounts@${slug}.example`,
    ContactStatus: 'ACTIVE',
    IsSupplier: false,
    IsCustomer: false,
    cis: null,
    updatedMs,
    ...extra,
  };
}

export interface Builder {
  org: OrgRec;
  rnd: Random;
  today: string;
  nowMs: number;
}

export interface InvoiceSeed {
  type: InvoiceType;
  contact: ContactRec;
  date: string;
  dueDate: string;
  mode: LineAmountTypes;
  reference: string;
  invoiceNumber?: string;
  lines: { description: string; quantity: number; unitPence: number; accountCode: string; taxType: string }[];
  /** Final state: how much of the total is paid, as fractions per payment. */
  plan: 'draft' | 'submitted' | 'outstanding' | 'part' | 'paid' | 'voided' | 'deleted';
  payAccounts: AccountRec[];
  /**
   * Entered by a person with Xero's own CIS: Xero works the deduction out at this rate on the lines coded to CIS
   * Labour Expense, shows it on the bill and leaves the total less the deduction as due (person.ts enterBill).
   */
  xeroCisRate?: 0 | 20 | 30;
  attachment?: { kind: 'pdf' | 'png'; fileName: string; title: string };
}

function clampMs(b: Builder, ms: number): number {
  return Math.min(ms, b.nowMs - 1000);
}

export function addInvoice(b: Builder, s: InvoiceSeed): InvoiceRec {
  const { org, rnd } = b;
  const createdMs = clampMs(b, dayToMs(s.date) + rnd.int(8, 20) * 3_600_000 + rnd.int(0, 3_599_999));
  const invoice: InvoiceRec = {
    InvoiceID: rnd.uuid(),
    Type: s.type,
    InvoiceNumber: s.invoiceNumber ?? '',
    Reference: s.reference,
    ContactID: s.contact.ContactID,
    Date: s.date,
    DueDate: s.dueDate,
    LineAmountTypes: s.mode,
    Status: 'DRAFT',
    lines: s.lines.map((l) => {
      const account = org.accounts.find((a) => a.Code === l.accountCode);
      return priceLine(
        {
          LineItemID: rnd.uuid(),
          Description: l.description,
          quantityE4: l.quantity * 10000,
          unitE4: l.unitPence * 100,
          discountE2: 0,
          AccountCode: l.accountCode,
          ...(account ? { AccountID: account.AccountID } : {}),
          TaxType: l.taxType,
        },
        s.mode,
        org.taxRates,
      );
    }),
    subTotal: 0,
    totalTax: 0,
    total: 0,
    amountPaid: 0,
    fullyPaidOnDate: null,
    sentToContact: s.type === 'ACCREC' && s.plan !== 'draft' && rnd.chance(0.4),
    createdByClientId: null,
    createdMs,
    updatedMs: createdMs,
  };
  applyTotals(invoice);
  if (s.xeroCisRate !== undefined) {
    const labourAccounts = new Set(
      org.accounts.filter((a) => a.SystemAccount === 'CISLABOUREXPENSE').map((a) => a.AccountID),
    );
    const labourNet = invoice.lines
      .filter((l) => l.AccountID && labourAccounts.has(l.AccountID))
      .reduce((sum, l) => sum + (s.mode === 'Inclusive' ? l.lineAmount - l.taxAmount : l.lineAmount), 0);
    invoice.cisRate = s.xeroCisRate;
    invoice.cisDeduction = Math.round((labourNet * s.xeroCisRate) / 100);
  }
  const status: Record<InvoiceSeed['plan'], InvoiceStatus> = {
    draft: 'DRAFT',
    submitted: 'SUBMITTED',
    outstanding: 'AUTHORISED',
    part: 'AUTHORISED',
    paid: 'PAID',
    voided: 'VOIDED',
    deleted: 'DELETED',
  };
  invoice.Status = status[s.plan];
  if (s.plan === 'paid' || s.plan === 'part') {
    // What is paid is what is due: the total less any CIS deduction Xero holds back (a Ledgerlink bill's
    // deduction line is already in its total).
    const total = invoice.total - (invoice.cisDeduction ?? 0);
    const firstShare =
      s.plan === 'paid'
        ? rnd.chance(0.3)
          ? total
          : Math.round(total * (0.55 + rnd.next() * 0.35))
        : Math.round(total * (0.3 + rnd.next() * 0.5));
    const amounts = s.plan === 'paid' && firstShare < total ? [firstShare, total - firstShare] : [firstShare];
    amounts.forEach((amount, i) => {
      const account = s.payAccounts[i % s.payAccounts.length];
      if (!account || amount <= 0) return;
      const payDate = addDays(
        s.date,
        Math.min(rnd.int(0, 10), Math.max(0, (dayToMs(b.today) - dayToMs(s.date)) / DAY)),
      );
      const paidMs = clampMs(b, Math.max(createdMs + 60_000, dayToMs(payDate) + rnd.int(9, 18) * 3_600_000));
      const payment: PaymentRec = {
        PaymentID: rnd.uuid(),
        InvoiceID: invoice.InvoiceID,
        AccountID: account.AccountID,
        Date: payDate,
        amount,
        Reference: `${account.BankAccountType === 'CREDITCARD' ? 'Card' : 'Cash'} payment for ${invoice.InvoiceNumber || s.reference}`,
        Status: 'AUTHORISED',
        PaymentType: s.type === 'ACCREC' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
        IsReconciled: rnd.chance(0.7),
        updatedMs: paidMs,
      };
      org.payments.push(payment);
      invoice.amountPaid += amount;
      invoice.updatedMs = Math.max(invoice.updatedMs, paidMs);
      if (invoice.amountPaid === total) invoice.fullyPaidOnDate = payDate;
    });
  }
  if (s.attachment) {
    const att: AttachmentRec = {
      AttachmentID: rnd.uuid(),
      InvoiceID: invoice.InvoiceID,
      FileName: s.attachment.fileName,
      MimeType: s.attachment.kind === 'pdf' ? 'application/pdf' : 'image/png',
      title: s.attachment.title,
      IncludeOnline: false,
    };
    org.attachments.push(att);
  }
  if (s.type === 'ACCREC') s.contact.IsCustomer = true;
  else s.contact.IsSupplier = true;
  org.invoices.push(invoice);
  return invoice;
}

export function planFor(rnd: Random, ageDays: number, overdue: boolean): InvoiceSeed['plan'] {
  if (ageDays > 60) {
    const r = rnd.next();
    if (r < 0.9) return 'paid';
    if (r < 0.94) return 'outstanding';
    if (r < 0.97) return 'part';
    if (r < 0.99) return 'voided';
    return 'deleted';
  }
  const r = rnd.next();
  if (r < 0.35) return 'paid';
  if (r < (overdue ? 0.75 : 0.8)) return 'outstanding';
  if (r < 0.9) return 'part';
  if (r < 0.96) return 'draft';
  return 'submitted';
}

export function numberInvoices(org: OrgRec): void {
  const sales = org.invoices.filter((i) => i.Type === 'ACCREC').sort((a, b) => a.createdMs - b.createdMs);
  let n = 1;
  for (const inv of sales) {
    inv.InvoiceNumber = `INV-${String(n).padStart(4, '0')}`;
    n++;
  }
  org.nextInvoiceNumber = n;
  const byId = new Map(org.invoices.map((i) => [i.InvoiceID, i]));
  for (const p of org.payments) {
    const inv = byId.get(p.InvoiceID);
    if (inv && inv.Type === 'ACCREC')
      p.Reference = p.Reference.replace(/for .*$/, `for ${inv.InvoiceNumber}`);
  }
}

const CUSTOMER_NAMES = [
  'Green Leaf Cafe',
  'Harbour View Hotel',
  "St Mary's Primary School",
  'Riverside Events Ltd',
  'The Corner Deli',
  'Northfield Care Home',
  'Blue Door Bakery',
  'Millbrook Golf Club',
  'Parkside Nursery',
  'The Old Bell Inn',
  'Willow Tree Florists',
  'Kingsway Dental Practice',
  'Oakridge Sports Centre',
  'Castle Street Books',
  'Meadow Farm Shop',
];
const SUPPLIER_NAMES_SHOP = [
  'Fresh Fields Wholesale',
  'Coastal Dairy Supplies',
  'Brightlight Energy',
  'Southgate Property Lettings',
  'FastNet Broadband',
];
const SUBCONTRACTORS: [name: string, cis: ContactRec['cis'], vat: boolean][] = [
  ['Hughes Groundworks Ltd', { enabled: true, rate: 20 }, true],
  ['A. Patel Plastering', { enabled: true, rate: 20 }, false],
  ['Northside Electrical Ltd', { enabled: true, rate: 0 }, true],
  ['J. Murphy Roofing', { enabled: true, rate: 20 }, false],
  ['Stone & Sons Brickwork', { enabled: true, rate: 30 }, false],
  ['K. Nowak Carpentry', { enabled: true, rate: 20 }, false],
  ['T. Evans Plumbing & Heating', null, true],
  ['Bright Spark Electrics', { enabled: true, rate: 0 }, true],
  ["M. O'Connor Scaffolding", { enabled: false }, false],
  ['R. Singh Tiling', { enabled: true, rate: 30 }, false],
  ['Coastal Drylining Ltd', { enabled: true, rate: 20 }, true],
  ['D. Walsh Joinery', null, false],
];
const BUILDER_CUSTOMERS = [
  'Mr & Mrs Green',
  'Harbour Housing Association',
  'Oakwood Developments Ltd',
  'Elm Street Surgery',
  'Mrs P. Adeyemi',
];
const BUILDER_SUPPLIERS = ['Northern Timber Merchants', 'City Builders Merchants', 'Acme Plant Hire'];
const SITES = [
  'Elm Street extension',
  'Harbour Court refurbishment',
  'Oakwood plot 14',
  'Green kitchen extension',
  'Surgery roof repair',
];

export function makeOrg(rnd: Random, name: string, nowMs: number, extra: Partial<OrgRec>): OrgRec {
  const createdMs = nowMs - 3 * 365 * DAY;
  return {
    OrganisationID: rnd.uuid(),
    Name: name,
    LegalName: name,
    ShortCode: `!${rnd.uuid().slice(0, 5)}`,
    TaxNumber: `GB${rnd.int(100000000, 999999999)}`,
    RegistrationNumber: String(rnd.int(10000000, 16999999)),
    createdMs,
    periodLockDate: null,
    salesTermsDays: 30,
    billTermsDays: 30,
    cis: { contractor: false, subContractor: false },
    accounts: [],
    taxRates: ukTaxRates(),
    contacts: [],
    contactGroups: [],
    invoices: [],
    payments: [],
    journals: [],
    attachments: [],
    nextInvoiceNumber: 1,
    ...extra,
  };
}

function seedShop(rnd: Random, nowMs: number, scale: number): OrgRec {
  const org = makeOrg(rnd, DEMO_SHOP, nowMs, {});
  org.accounts = makeAccounts(rnd, [...COMMON_ACCOUNTS, ...SHOP_ACCOUNTS], org.createdMs);
  const today = isoDay(nowMs);
  const b: Builder = { org, rnd, today, nowMs };
  const card = org.accounts.find((a) => a.Name === 'Business Credit Card');
  const cash = org.accounts.find((a) => a.Name === 'Cash');
  const current = org.accounts.find((a) => a.Name === 'Business Current Account');
  if (!card || !cash || !current) throw new Error('seed accounts missing');
  const daily = contact(rnd, DAILY_SALES, org.createdMs, {
    IsCustomer: true,
    EmailAddress: undefined,
    SalesDefaultAccountCode: '200',
    AccountsReceivableTaxType: 'OUTPUT2',
  });
  org.contacts.push(daily);
  const customerCount = Math.max(3, Math.round(15 * scale));
  const customers: ContactRec[] = [];
  for (let i = 0; i < customerCount; i++) {
    const base = CUSTOMER_NAMES[i % CUSTOMER_NAMES.length] ?? 'Customer';
    const name = i < CUSTOMER_NAMES.length ? base : `${base} (${Math.floor(i / CUSTOMER_NAMES.length) + 1})`;
    customers.push(
      contact(rnd, name, org.createdMs + i * 1000, { ContactNumber: `C${String(i + 1).padStart(4, '0')}` }),
    );
  }
  const suppliers = SUPPLIER_NAMES_SHOP.map((n, i) =>
    contact(rnd, n, org.createdMs + 50_000 + i, { PurchasesDefaultAccountCode: '310' }),
  );
  org.contacts.push(...customers, ...suppliers);
  org.contactGroups.push(
    {
      ContactGroupID: rnd.uuid(),
      Name: 'Trade Customers',
      Status: 'ACTIVE',
      contactIds: customers.slice(0, 6).map((c) => c.ContactID),
    },
    {
      ContactGroupID: rnd.uuid(),
      Name: 'Suppliers',
      Status: 'ACTIVE',
      contactIds: suppliers.map((c) => c.ContactID),
    },
  );

  // Daily takings: six months ending today, tax inclusive (shop prices include VAT).
  const days = 183;
  for (let age = days; age >= 0; age--) {
    const date = addDays(today, -age);
    const weekday = new Date(dayToMs(date)).getUTCDay();
    if (date.endsWith('-12-25')) continue;
    const base = weekday === 6 ? 1400 : weekday === 0 ? 650 : 900;
    const standard = Math.round((base + rnd.int(-250, 450)) * 100 + rnd.int(0, 99));
    const lines: InvoiceSeed['lines'] = [
      {
        description: `Takings ${date} - standard rated goods`,
        quantity: 1,
        unitPence: standard,
        accountCode: '200',
        taxType: 'OUTPUT2',
      },
    ];
    if (rnd.chance(0.8))
      lines.push({
        description: `Takings ${date} - zero rated food`,
        quantity: 1,
        unitPence: rnd.int(8000, 42000),
        accountCode: '200',
        taxType: 'ZERORATEDOUTPUT',
      });
    if (rnd.chance(0.15))
      lines.push({
        description: `Takings ${date} - reduced rate goods`,
        quantity: 1,
        unitPence: rnd.int(1500, 9000),
        accountCode: '200',
        taxType: 'RROUTPUT',
      });
    let plan: InvoiceSeed['plan'];
    if (age <= 4) plan = 'draft';
    else if (age <= 12) plan = rnd.pick(['outstanding', 'outstanding', 'part', 'draft', 'paid'] as const);
    else if (age <= 45) plan = rnd.pick(['outstanding', 'part', 'paid', 'paid', 'paid'] as const);
    else plan = rnd.chance(0.06) ? 'outstanding' : rnd.chance(0.04) ? 'part' : 'paid';
    const withAttachment = plan !== 'paid' || rnd.chance(0.1);
    addInvoice(b, {
      type: 'ACCREC',
      contact: daily,
      date,
      dueDate: addDays(date, 7),
      mode: 'Inclusive',
      reference: `Daily takings ${date}`,
      lines,
      plan,
      payAccounts: [card, cash],
      ...(withAttachment
        ? rnd.chance(0.6)
          ? {
              attachment: {
                kind: 'png' as const,
                fileName: `z-report-${date}.png`,
                title: `Z report ${date}`,
              },
            }
          : {
              attachment: {
                kind: 'pdf' as const,
                fileName: `takings-summary-${date}.pdf`,
                title: `Takings summary ${date}`,
              },
            }
        : {}),
    });
  }

  // Trade customers: invoices over two years, tax exclusive, 30-day terms.
  const otherCount = Math.round(1800 * scale);
  const products = [
    ['Catering platters', 3500, 'OUTPUT2'],
    ['Fresh bread delivery', 1850, 'ZERORATEDOUTPUT'],
    ['Coffee beans 1kg', 1499, 'OUTPUT2'],
    ['Seasonal hampers', 4500, 'OUTPUT2'],
    ['Milk crates', 1260, 'ZERORATEDOUTPUT'],
    ['Cleaning supplies', 2299, 'OUTPUT2'],
  ] as const;
  for (let i = 0; i < otherCount; i++) {
    const age = rnd.int(0, 730);
    const date = addDays(today, -age);
    const dueDate = addDays(date, 30);
    const lineCount = rnd.int(1, 3);
    const lines: InvoiceSeed['lines'] = [];
    for (let l = 0; l < lineCount; l++) {
      const [description, unitPence, taxType] = rnd.pick(products);
      lines.push({
        description,
        quantity: rnd.int(1, 12),
        unitPence,
        accountCode: rnd.chance(0.9) ? '200' : '260',
        taxType,
      });
    }
    const plan = planFor(rnd, age, dueDate < today);
    addInvoice(b, {
      type: 'ACCREC',
      contact: rnd.pick(customers),
      date,
      dueDate,
      mode: 'Exclusive',
      reference: rnd.chance(0.5) ? `PO ${rnd.int(1000, 9999)}` : '',
      lines,
      plan,
      payAccounts: rnd.chance(0.5) ? [current] : [card, cash],
      ...(rnd.chance(0.05)
        ? {
            attachment: {
              kind: 'pdf' as const,
              fileName: `purchase-order-${i + 1}.pdf`,
              title: `Purchase order ${i + 1}`,
            },
          }
        : {}),
    });
  }

  // A few supplier bills so ACCPAY exists in the shop too.
  const billCount = Math.round(120 * scale);
  for (let i = 0; i < billCount; i++) {
    const age = rnd.int(0, 365);
    const date = addDays(today, -age);
    const supplier = rnd.pick(suppliers);
    addInvoice(b, {
      type: 'ACCPAY',
      contact: supplier,
      date,
      dueDate: addDays(date, 30),
      mode: 'Exclusive',
      reference: '',
      invoiceNumber: `SUP-${rnd.int(10000, 99999)}`,
      lines: [
        {
          description: 'Stock purchase',
          quantity: 1,
          unitPence: rnd.int(5000, 90000),
          accountCode: supplier.PurchasesDefaultAccountCode ?? '310',
          taxType: 'INPUT2',
        },
      ],
      plan: planFor(rnd, age, age > 30),
      payAccounts: [current],
    });
  }
  numberInvoices(org);

  // Two earlier stock transfer journals.
  const stock = org.accounts.find((a) => a.Code === '630');
  const cost = org.accounts.find((a) => a.Code === '310');
  if (stock && cost) {
    for (const [weeksAgo, status] of [
      [3, 'POSTED'],
      [2, 'DRAFT'],
    ] as const) {
      const end = addDays(today, -((new Date(nowMs).getUTCDay() + 6) % 7) - 1 - 7 * (weeksAgo - 1));
      const start = addDays(end, -6);
      const amount = rnd.int(200000, 450000);
      const journal: JournalRec = {
        ManualJournalID: rnd.uuid(),
        Narration: `Stock Transfer Journal - ${start} to ${end}`,
        Date: end,
        Status: status,
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
        updatedMs: clampMs(b, dayToMs(end) + DAY + 3_600_000),
      };
      org.journals.push(journal);
    }
  }
  return org;
}

function seedBuilders(rnd: Random, nowMs: number, scale: number): OrgRec {
  const org = makeOrg(rnd, DEMO_BUILDERS, nowMs, { cis: { contractor: true, subContractor: false } });
  org.accounts = makeAccounts(rnd, [...COMMON_ACCOUNTS, ...BUILDER_ACCOUNTS], org.createdMs);
  const today = isoDay(nowMs);
  const b: Builder = { org, rnd, today, nowMs };
  const current = org.accounts.find((a) => a.Name === 'Business Current Account');
  if (!current) throw new Error('seed accounts missing');
  const subs: ContactRec[] = [];
  const subCount = Math.max(SUBCONTRACTORS.length, Math.round(SUBCONTRACTORS.length * scale));
  for (let i = 0; i < subCount; i++) {
    const [baseName, cis, vat] = SUBCONTRACTORS[i % SUBCONTRACTORS.length] ?? ['Subcontractor', null, false];
    const name =
      i < SUBCONTRACTORS.length ? baseName : `${baseName} (${Math.floor(i / SUBCONTRACTORS.length) + 1})`;
    const [first, ...rest] = baseName.replace(/ Ltd$/, '').split(' ');
    subs.push(
      contact(rnd, name, org.createdMs + i * 1000, {
        FirstName: first?.replace(/\.$/, ''),
        LastName: rest.join(' '),
        IsSupplier: true,
        cis,
        ...(vat ? { TaxNumber: `GB${rnd.int(100000000, 999999999)}` } : {}),
        PurchasesDefaultAccountCode: '321',
        AccountsPayableTaxType: vat ? 'INPUT2' : 'NONE',
      }),
    );
  }
  const customers = BUILDER_CUSTOMERS.map((n, i) => contact(rnd, n, org.createdMs + 90_000 + i));
  const suppliers = BUILDER_SUPPLIERS.map((n, i) =>
    contact(rnd, n, org.createdMs + 95_000 + i, { PurchasesDefaultAccountCode: '322' }),
  );
  org.contacts.push(...subs, ...customers, ...suppliers);
  const group: ContactGroupRec = {
    ContactGroupID: rnd.uuid(),
    Name: CIS_GROUP,
    Status: 'ACTIVE',
    contactIds: subs.map((c) => c.ContactID),
  };
  org.contactGroups.push(group, {
    ContactGroupID: rnd.uuid(),
    Name: 'Merchants',
    Status: 'ACTIVE',
    contactIds: suppliers.map((c) => c.ContactID),
  });

  const taxWeek = (day: string): string => {
    const ms = dayToMs(day);
    const y = new Date(ms).getUTCFullYear();
    let start = Date.UTC(y, 3, 6);
    if (ms < start) start = Date.UTC(y - 1, 3, 6);
    const week = Math.floor((ms - start) / (7 * DAY)) + 1;
    const endYear = (new Date(start).getUTCFullYear() + 1) % 100;
    return `${String(week).padStart(2, '0')}${String(endYear).padStart(2, '0')}`;
  };

  // Subcontractors' bills as a careful contractor has them (issue 42). Most were raised in Ledgerlink: labour
  // on Subcontractors, materials (when the subcontractor supplied some) on Materials, VAT as the subcontractor
  // charges it, and the CIS deduction as a line of its own on CIS Deductions Payable, so Xero's total is what
  // the subcontractor is paid and a paid bill is Paid. A few were entered in Xero by a person with Xero's own
  // CIS (the CIS Labour Expense and CIS Materials accounts). Subcontractors Xero does not mark as CIS (scaffold
  // hire, a plumber whose CIS details were never set) have ordinary bills with nothing deducted.
  const { deductions: deductionCode, materials: materialsCode } = BUILDERS_CIS_ACCOUNTS;
  const billCount = Math.round(150 * scale);
  for (let i = 0; i < billCount; i++) {
    const age = i < 6 ? rnd.int(0, 6) : i < 14 ? rnd.int(0, 25) : rnd.int(7, 540);
    const date = addDays(today, -age);
    const sub = rnd.pick(subs);
    const vat = sub.AccountsPayableTaxType === 'INPUT2';
    const taxType = vat ? 'INPUT2' : 'NONE';
    const rate = sub.cis?.enabled ? (sub.cis.rate ?? null) : null;
    const plan: InvoiceSeed['plan'] = i < 6 ? 'draft' : i < 14 ? 'outstanding' : planFor(rnd, age, age > 30);
    const site = rnd.pick(SITES);
    const labourPence = rnd.int(40, 320) * 1000;
    const materialsPence = rate !== null && rnd.chance(0.35) ? rnd.int(8, 90) * 1000 + rnd.int(0, 99) : 0;
    // Drafts and bills awaiting payment are Ledgerlink's own; older bills were sometimes keyed into Xero.
    const byXero = rate !== null && i >= 14 && rnd.chance(0.12);
    const lines: InvoiceSeed['lines'] = [
      {
        description: rate === null && rnd.chance(0.5) ? `Scaffold hire - ${site}` : `Labour - ${site}`,
        quantity: 1,
        unitPence: labourPence,
        accountCode: byXero ? '327' : '321',
        taxType,
      },
    ];
    if (materialsPence > 0)
      lines.push({
        description: `Materials - ${site}`,
        quantity: 1,
        unitPence: materialsPence,
        accountCode: byXero ? '328' : materialsCode,
        taxType,
      });
    // Ledgerlink's deduction: rate × labour (excluding VAT and materials), rounded down (src/shared/cis.ts).
    const deductionPence = rate === null || byXero ? 0 : Math.floor((labourPence * rate) / 100);
    if (deductionPence > 0)
      lines.push({
        description: `CIS deduction at ${rate}%`,
        quantity: 1,
        unitPence: -deductionPence,
        accountCode: deductionCode,
        taxType: 'NONE',
      });
    addInvoice(b, {
      type: 'ACCPAY',
      contact: sub,
      date,
      dueDate: addDays(date, 14),
      mode: vat ? 'Exclusive' : 'NoTax',
      reference: '',
      invoiceNumber: taxWeek(date),
      lines,
      plan,
      payAccounts: [current],
      ...(byXero && rate !== null ? { xeroCisRate: rate } : {}),
    });
  }
  for (let i = 0; i < Math.round(40 * scale); i++) {
    const age = rnd.int(0, 365);
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCPAY',
      contact: rnd.pick(suppliers),
      date,
      dueDate: addDays(date, 30),
      mode: 'Exclusive',
      reference: '',
      invoiceNumber: `M${rnd.int(100000, 999999)}`,
      lines: [
        {
          description: 'Building materials',
          quantity: rnd.int(1, 20),
          unitPence: rnd.int(1500, 25000),
          accountCode: '322',
          taxType: 'INPUT2',
        },
      ],
      plan: planFor(rnd, age, age > 30),
      payAccounts: [current],
    });
  }
  for (let i = 0; i < Math.round(60 * scale); i++) {
    const age = rnd.int(0, 540);
    const date = addDays(today, -age);
    addInvoice(b, {
      type: 'ACCREC',
      contact: rnd.pick(customers),
      date,
      dueDate: addDays(date, 30),
      mode: 'Exclusive',
      reference: rnd.pick(SITES),
      lines: [
        {
          description: `Stage payment - ${rnd.pick(SITES)}`,
          quantity: 1,
          unitPence: rnd.int(150, 1800) * 1000,
          accountCode: '200',
          taxType: 'OUTPUT2',
        },
      ],
      plan: planFor(rnd, age, age > 30),
      payAccounts: [current],
      ...(rnd.chance(0.2)
        ? {
            attachment: {
              kind: 'pdf' as const,
              fileName: `valuation-${i + 1}.pdf`,
              title: `Valuation ${i + 1}`,
            },
          }
        : {}),
    });
  }
  numberInvoices(org);
  return org;
}

export interface SeedResult {
  orgs: OrgRec[];
  users: UserRec[];
}

export function createSeed(seed: number, scale: number, nowMs: number): SeedResult {
  const rnd = createRandom(seed, 1);
  const safeScale = Number.isFinite(scale) && scale > 0 ? scale : 1;
  const shop = seedShop(createRandom(seed, 2), nowMs, safeScale);
  const builders = seedBuilders(createRandom(seed, 3), nowMs, safeScale);
  const user = (email: string, givenName: string, familyName: string, tenantIds: string[]): UserRec => ({
    userId: rnd.uuid(),
    email,
    givenName,
    familyName,
    tenantIds,
    createdMs: shop.createdMs,
  });
  return {
    orgs: [shop, builders],
    users: [
      user(SEED_NAMES.users.owner, 'Olivia', 'Owner', [shop.OrganisationID, builders.OrganisationID]),
      user(SEED_NAMES.users.shopStaff, 'Sam', 'Staff', [shop.OrganisationID]),
      user(SEED_NAMES.users.builderBookkeeper, 'Bella', 'Bookkeeper', [builders.OrganisationID]),
    ],
  };
}
