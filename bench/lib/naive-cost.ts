/**
 * What a naive Xero integration spends on a screen flow, in calls and in bytes downloaded (Xero's egress), computed
 * from the sandbox's data with the sandbox's own serialisers: the bytes are those the sandbox would send for each
 * call the naive client makes (lists at Xero's default 100 a page with every field, one call per item written, no
 * cache, no If-Modified-Since, no summaryOnly).
 */
import {
  accountJson,
  contactJson,
  indexOrg,
  invoiceJson,
  journalJson,
  paymentJson,
  taxRateJson,
} from '../../src/sandbox/accounting/serialize';
import type { InvoiceRec, OrgRec } from '../../src/sandbox/state';

/** Xero's default page size, the one a naive integration lists with. */
export const NAIVE_PAGE = 100;

export interface Cost {
  calls: number;
  bytes: number;
}

export const NOTHING: Cost = { calls: 0, bytes: 0 };

export function add(...costs: Cost[]): Cost {
  return costs.reduce((a, b) => ({ calls: a.calls + b.calls, bytes: a.bytes + b.bytes }), NOTHING);
}

export function times(n: number, cost: Cost): Cost {
  return { calls: n * cost.calls, bytes: n * cost.bytes };
}

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Xero's envelope around every answer, sized as the sandbox writes it. */
function envelopeBytes(key: string, items: unknown[], extra: Record<string, unknown> = {}): number {
  return sizeOf({
    Id: '00000000-0000-0000-0000-000000000000',
    Status: 'OK',
    ProviderName: 'Ledgerlink Sandbox',
    DateTimeUTC: '/Date(1795500000000)/',
    ...extra,
    [key]: items,
  });
}

/** One call answering `items` whole. */
function one(key: string, items: unknown[]): Cost {
  return { calls: 1, bytes: envelopeBytes(key, items) };
}

/** Xero's largest page size: the fewest calls and envelopes for a list read whole (the floor's reads). */
export const LARGEST_PAGE = 1000;

/** Every page of a list at `pageSize` a page (an empty list still costs its one call). */
function paged(key: string, items: unknown[], pageSize = NAIVE_PAGE): Cost {
  if (items.length === 0) return one(key, []);
  let cost = NOTHING;
  const pageCount = Math.ceil(items.length / pageSize);
  for (let page = 1; page <= pageCount; page++) {
    const slice = items.slice((page - 1) * pageSize, page * pageSize);
    const pagination = { page, pageSize, pageCount, itemCount: items.length };
    cost = add(cost, { calls: 1, bytes: envelopeBytes(key, slice, { pagination }) });
  }
  return cost;
}

/** The naive client's unit costs for one organisation, as the sandbox holds it now. */
/** A customer's approved or paid sales invoices dated in the range: what the stock-journal weeks are summed from. */
function isSaleOf(org: OrgRec, contactName: string, from: string, to: string) {
  const contact = org.contacts.find((c) => c.Name === contactName);
  return (i: InvoiceRec) =>
    i.Type === 'ACCREC' &&
    i.ContactID === contact?.ContactID &&
    (i.Status === 'AUTHORISED' || i.Status === 'PAID') &&
    i.Date >= from &&
    i.Date <= to;
}

export function naiveCostsOf(org: OrgRec) {
  const idx = indexOrg(org);
  const whole = (inv: InvoiceRec) => invoiceJson(org, inv, { lineItems: true, payments: true, idx });
  const invoices = (keep: (i: InvoiceRec) => boolean) =>
    paged('Invoices', org.invoices.filter(keep).map(whole));
  const amountDue = (i: InvoiceRec) => i.total - i.amountPaid;
  const isOutstanding = (i: InvoiceRec) =>
    i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && amountDue(i) > 0;
  const isDraft = (i: InvoiceRec) => i.Type === 'ACCREC' && i.Status === 'DRAFT';
  const isDraftBill = (i: InvoiceRec) => i.Type === 'ACCPAY' && i.Status === 'DRAFT';
  const sample = org.invoices.find(isOutstanding) ?? org.invoices[0];
  const sampleDraft = org.invoices.find(isDraft) ?? sample;
  const sampleBill = org.invoices.find(isDraftBill) ?? sample;
  const samplePayment = org.payments.find((p) => p.Status !== 'DELETED') ?? org.payments[0];
  const sampleJournal = org.journals[0];
  const cisGroup = org.contactGroups.find((g) => g.Name === 'CIS Subcontractors');
  const cisSetting = (contactId: string) => {
    const cis = org.contacts.find((c) => c.ContactID === contactId)?.cis;
    return {
      calls: 1,
      bytes: sizeOf({ CISSettings: [{ CISEnabled: Boolean(cis?.enabled), Rate: cis?.rate }] }),
    };
  };
  return {
    connections: { calls: 1, bytes: 400 },
    outstanding: invoices(isOutstanding),
    drafts: invoices(isDraft),
    draftBills: invoices(isDraftBill),
    /** Approved and paid bills: where the CIS month-end finds the month's payments (issue 29). */
    paidBills: invoices((i) => i.Type === 'ACCPAY' && (i.Status === 'AUTHORISED' || i.Status === 'PAID')),
    salesOf(contactName: string, from: string, to: string): Cost {
      return invoices(isSaleOf(org, contactName, from, to));
    },
    accounts: one('Accounts', org.accounts.map(accountJson)),
    taxRates: one('TaxRates', org.taxRates.map(taxRateJson)),
    contactGroups: one(
      'ContactGroups',
      org.contactGroups.map((g) => ({
        ContactGroupID: g.ContactGroupID,
        Name: g.Name,
        Status: g.Status,
        Contacts: [],
      })),
    ),
    contacts: paged(
      'Contacts',
      org.contacts.map((c) => contactJson(org, c, false, idx)),
    ),
    manualJournals: paged(
      'ManualJournals',
      org.journals.map((j) => journalJson(org, j)),
    ),
    cisSettingsOfGroup: add(...(cisGroup?.contactIds ?? []).map(cisSetting)),
    /** GET one invoice (a re-read before paying). */
    readInvoice: sample ? one('Invoices', [whole(sample)]) : NOTHING,
    /** PUT one payment: Xero answers the payment with its invoice summary. */
    putPayment: samplePayment ? one('Payments', [paymentJson(org, samplePayment)]) : NOTHING,
    /** POST one draft's approval: Xero answers the invoice whole. */
    approve: sampleDraft ? one('Invoices', [whole(sampleDraft)]) : NOTHING,
    putBill: sampleBill ? one('Invoices', [whole(sampleBill)]) : NOTHING,
    putJournal: sampleJournal ? one('ManualJournals', [journalJson(org, sampleJournal)]) : NOTHING,
  };
}

export type NaiveCosts = ReturnType<typeof naiveCostsOf>;

/**
 * The least Xero can send for what a screen must read (issue 32's floor for reads), sized by the sandbox's own
 * serialisers: each invoice the screen needs once, as `summaryOnly=true` answers it (no lines, no payments: the
 * lightest answer Xero has), only the invoices it needs (by status, contact and date, as Xero's filters allow),
 * at Xero's largest page size.
 */
export function floorReadsOf(org: OrgRec) {
  const idx = indexOrg(org);
  const summaries = (keep: (i: InvoiceRec) => boolean) =>
    paged(
      'Invoices',
      org.invoices.filter(keep).map((i) => invoiceJson(org, i, { lineItems: false, payments: false, idx })),
      LARGEST_PAGE,
    );
  return {
    /** Every outstanding sales invoice once, as a summary. */
    outstanding: summaries(
      (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 0,
    ),
    /** A customer's approved sales invoices dated in the range, as summaries (what the weeks are summed from). */
    salesOf(contactName: string, from: string, to: string): Cost {
      return summaries(isSaleOf(org, contactName, from, to));
    },
    /** The organisation's accounts, once (the bank accounts to pay from are among them). */
    accounts: one('Accounts', org.accounts.map(accountJson)),
    /** Every manual journal once: what a first check before posting must know (Xero sends no journal webhooks). */
    manualJournals: paged(
      'ManualJournals',
      org.journals.map((j) => journalJson(org, j)),
      LARGEST_PAGE,
    ),
  };
}
