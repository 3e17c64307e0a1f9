/** Internal records → Xero's JSON (field names, money as numbers, /Date()/ dates, *String helpers). */
import { amountDue } from '../invoice-math';
import { fromE4, pounds } from '../money';
import type { Runtime } from '../runtime';
import type {
  AccountRec,
  AttachmentRec,
  ContactGroupRec,
  ContactRec,
  CreditNoteRec,
  InvoiceRec,
  JournalRec,
  OrgRec,
  PaymentRec,
  TaxRateRec,
} from '../state';
import { dateString, msDate, msDateTime } from '../xero-dates';

export type Json = Record<string, unknown>;

/** Lookups built once per request so large lists stay linear. */
export interface OrgIndex {
  paymentsByInvoice: Map<string, PaymentRec[]>;
  attachmentInvoices: Set<string>;
  contacts: Map<string, ContactRec>;
  groupsByContact: Map<string, ContactGroupRec[]>;
}

export function indexOrg(org: OrgRec): OrgIndex {
  const paymentsByInvoice = new Map<string, PaymentRec[]>();
  for (const p of org.payments) {
    const list = paymentsByInvoice.get(p.InvoiceID);
    if (list) list.push(p);
    else paymentsByInvoice.set(p.InvoiceID, [p]);
  }
  const groupsByContact = new Map<string, ContactGroupRec[]>();
  for (const g of org.contactGroups) {
    if (g.Status !== 'ACTIVE') continue;
    for (const id of g.contactIds) groupsByContact.set(id, [...(groupsByContact.get(id) ?? []), g]);
  }
  return {
    paymentsByInvoice,
    attachmentInvoices: new Set(org.attachments.map((a) => a.InvoiceID)),
    contacts: new Map(org.contacts.map((c) => [c.ContactID, c])),
    groupsByContact,
  };
}

function compact(obj: Json): Json {
  for (const k of Object.keys(obj)) if (obj[k] === undefined) delete obj[k];
  return obj;
}

export function organisationJson(org: OrgRec): Json {
  return compact({
    OrganisationID: org.OrganisationID,
    APIKey: '',
    Name: org.Name,
    LegalName: org.LegalName,
    PaysTax: true,
    Version: 'UK',
    OrganisationType: 'COMPANY',
    BaseCurrency: 'GBP',
    CountryCode: 'GB',
    IsDemoCompany: false,
    OrganisationStatus: 'ACTIVE',
    RegistrationNumber: org.RegistrationNumber,
    TaxNumber: org.TaxNumber,
    FinancialYearEndDay: 31,
    FinancialYearEndMonth: 3,
    SalesTaxBasis: 'ACCRUALS',
    SalesTaxPeriod: 'QUARTERLY1',
    DefaultSalesTax: 'Tax Exclusive',
    DefaultPurchasesTax: 'Tax Exclusive',
    PeriodLockDate: org.periodLockDate ? msDate(org.periodLockDate) : undefined,
    CreatedDateUTC: msDateTime(org.createdMs),
    OrganisationEntityType: 'COMPANY',
    Timezone: 'GMTSTANDARDTIME',
    ShortCode: org.ShortCode,
    Class: 'STANDARD',
    Edition: 'BUSINESS',
    LineOfBusiness: org.Name.includes('Builders') ? 'Construction' : 'Retail',
    Addresses: [],
    Phones: [],
    ExternalLinks: [],
    PaymentTerms: {
      Bills: { Day: org.billTermsDays, Type: 'DAYSAFTERBILLDATE' },
      Sales: { Day: org.salesTermsDays, Type: 'DAYSAFTERBILLDATE' },
    },
  });
}

export function accountJson(a: AccountRec): Json {
  return compact({
    AccountID: a.AccountID,
    Code: a.Code,
    Name: a.Name,
    Status: a.Status,
    Type: a.Type,
    TaxType: a.TaxType,
    Description: a.Description,
    Class: a.Class,
    SystemAccount: a.SystemAccount,
    EnablePaymentsToAccount: a.EnablePaymentsToAccount,
    ShowInExpenseClaims: a.ShowInExpenseClaims,
    BankAccountNumber: a.BankAccountNumber,
    BankAccountType: a.Type === 'BANK' ? a.BankAccountType : '',
    CurrencyCode: a.Type === 'BANK' ? 'GBP' : undefined,
    ReportingCode: a.ReportingCode,
    HasAttachments: false,
    UpdatedDateUTC: msDateTime(a.updatedMs),
    AddToWatchlist: false,
  });
}

export function taxRateJson(t: TaxRateRec): Json {
  const rate = t.rateE4 / 10000;
  const display = (t.displayE4 ?? t.rateE4) / 10000;
  return {
    Name: t.Name,
    TaxType: t.TaxType,
    ReportTaxType: t.ReportTaxType,
    CanApplyToAssets: t.assets,
    CanApplyToEquity: t.equity,
    CanApplyToExpenses: t.expenses,
    CanApplyToLiabilities: t.liabilities,
    CanApplyToRevenue: t.revenue,
    DisplayTaxRate: display,
    EffectiveRate: rate,
    Status: t.Status,
    TaxComponents: [{ Name: 'VAT', Rate: display, IsCompound: false, IsNonRecoverable: false }],
  };
}

export function contactGroupsOf(org: OrgRec, contactId: string, idx?: OrgIndex): Json[] {
  return (
    idx
      ? (idx.groupsByContact.get(contactId) ?? [])
      : org.contactGroups.filter((g) => g.Status === 'ACTIVE' && g.contactIds.includes(contactId))
  ).map((g) => ({
    ContactGroupID: g.ContactGroupID,
    Name: g.Name,
    Status: g.Status,
    Contacts: [],
    HasValidationErrors: false,
  }));
}

export function contactJson(org: OrgRec, c: ContactRec, summary = false, idx?: OrgIndex): Json {
  const base = compact({
    ContactID: c.ContactID,
    ContactNumber: c.ContactNumber,
    ContactStatus: c.ContactStatus,
    Name: c.Name,
    FirstName: c.FirstName,
    LastName: c.LastName,
    EmailAddress: c.EmailAddress,
    TaxNumber: c.TaxNumber,
    IsSupplier: c.IsSupplier,
    IsCustomer: c.IsCustomer,
    DefaultCurrency: 'GBP',
    UpdatedDateUTC: msDateTime(c.updatedMs),
    HasAttachments: false,
    HasValidationErrors: false,
  });
  if (summary) return base;
  return compact({
    ...base,
    AccountsReceivableTaxType: c.AccountsReceivableTaxType,
    AccountsPayableTaxType: c.AccountsPayableTaxType,
    SalesDefaultAccountCode: c.SalesDefaultAccountCode,
    PurchasesDefaultAccountCode: c.PurchasesDefaultAccountCode,
    Addresses: [
      { AddressType: 'STREET', City: '', Region: '', PostalCode: '', Country: '' },
      { AddressType: 'POBOX', City: '', Region: '', PostalCode: '', Country: '' },
    ],
    Phones: [
      { PhoneType: 'DEFAULT', PhoneNumber: '', PhoneAreaCode: '', PhoneCountryCode: '' },
      { PhoneType: 'MOBILE', PhoneNumber: '', PhoneAreaCode: '', PhoneCountryCode: '' },
    ],
    ContactGroups: contactGroupsOf(org, c.ContactID, idx),
    ContactPersons: [],
  });
}

export function invoiceContactJson(org: OrgRec, contactId: string, idx?: OrgIndex): Json {
  const c = idx ? idx.contacts.get(contactId) : org.contacts.find((x) => x.ContactID === contactId);
  return compact({
    ContactID: contactId,
    ContactNumber: c?.ContactNumber,
    Name: c?.Name ?? '',
    ContactStatus: c?.ContactStatus,
    EmailAddress: c?.EmailAddress,
    Addresses: [],
    Phones: [],
    ContactGroups: contactGroupsOf(org, contactId, idx),
    ContactPersons: [],
    HasValidationErrors: false,
  });
}

export function invoicePaymentsJson(org: OrgRec, invoice: InvoiceRec, idx?: OrgIndex): Json[] {
  return (idx ? (idx.paymentsByInvoice.get(invoice.InvoiceID) ?? []) : org.payments)
    .filter((p) => p.InvoiceID === invoice.InvoiceID && p.Status === 'AUTHORISED')
    .map((p) => ({
      PaymentID: p.PaymentID,
      Date: msDate(p.Date),
      Amount: pounds(p.amount),
      Reference: p.Reference,
      CurrencyRate: 1,
      HasAccount: false,
      HasValidationErrors: false,
    }));
}

export interface InvoiceJsonOptions {
  lineItems: boolean;
  payments: boolean;
  unitdp4?: boolean;
  idx?: OrgIndex;
  /**
   * The read of one invoice (`GET /Invoices/{id}`): as Xero's does, it carries `CISDeduction: 0.00` on a bill with
   * no CIS deduction (xero-node's recorded `singleInvoice` example), where the list read carries nothing (issue 42).
   */
  single?: boolean;
}

/** The credit notes allocated to an invoice, as its `CreditNotes` lists them. */
function appliedCreditsJson(org: OrgRec, inv: InvoiceRec): Json[] {
  return (org.creditNotes ?? []).flatMap((n) =>
    n.allocations
      .filter((a) => a.InvoiceID === inv.InvoiceID)
      .map((a) =>
        compact({
          CreditNoteID: n.CreditNoteID,
          CreditNoteNumber: n.CreditNoteNumber,
          ID: n.CreditNoteID,
          AppliedAmount: pounds(a.amount),
          DateString: dateString(a.Date),
          Date: msDate(a.Date),
          Total: pounds(n.total),
          LineItems: [],
        }),
      ),
  );
}

export function invoiceJson(
  org: OrgRec,
  inv: InvoiceRec,
  opts: InvoiceJsonOptions = { lineItems: true, payments: true },
): Json {
  const idx = opts.idx;
  const hasAttachments = idx
    ? idx.attachmentInvoices.has(inv.InvoiceID)
    : org.attachments.some((a) => a.InvoiceID === inv.InvoiceID);
  const lines = opts.lineItems
    ? inv.lines.map((l) =>
        compact({
          Description: l.Description,
          UnitAmount: opts.unitdp4 ? fromE4(l.unitE4) : Math.round(l.unitE4 / 100) / 100,
          TaxType: l.TaxType,
          TaxAmount: pounds(l.taxAmount),
          LineAmount: pounds(l.lineAmount),
          AccountCode: l.AccountCode,
          AccountID: l.AccountID,
          Tracking: [],
          Quantity: fromE4(l.quantityE4),
          LineItemID: l.LineItemID,
          DiscountRate: l.discountE2 ? l.discountE2 / 100 : undefined,
          ValidationErrors: [],
        }),
      )
    : undefined;
  return compact({
    Type: inv.Type,
    InvoiceID: inv.InvoiceID,
    InvoiceNumber: inv.InvoiceNumber,
    Reference: inv.Reference,
    Url: inv.Url,
    Payments: opts.payments ? invoicePaymentsJson(org, inv, idx) : undefined,
    CreditNotes: opts.payments ? appliedCreditsJson(org, inv) : undefined,
    Prepayments: opts.payments ? [] : undefined,
    Overpayments: opts.payments ? [] : undefined,
    AmountDue: pounds(amountDue(inv)),
    AmountPaid: pounds(inv.amountPaid),
    AmountCredited: pounds(inv.amountCredited ?? 0),
    CISDeduction:
      inv.cisDeduction !== undefined
        ? pounds(inv.cisDeduction)
        : opts.single && inv.Type === 'ACCPAY'
          ? 0
          : undefined,
    CISRate: inv.cisRate,
    CurrencyRate: 1,
    IsDiscounted: inv.lines.some((l) => l.discountE2 > 0),
    HasAttachments: hasAttachments,
    HasErrors: false,
    Contact: invoiceContactJson(org, inv.ContactID, idx),
    DateString: dateString(inv.Date),
    Date: msDate(inv.Date),
    DueDateString: inv.DueDate ? dateString(inv.DueDate) : undefined,
    DueDate: inv.DueDate ? msDate(inv.DueDate) : undefined,
    Status: inv.Status,
    LineAmountTypes: inv.LineAmountTypes,
    LineItems: lines,
    SubTotal: pounds(inv.subTotal),
    TotalTax: pounds(inv.totalTax),
    Total: pounds(inv.total),
    TotalDiscount: inv.lines.some((l) => l.discountE2 > 0) ? 0 : undefined,
    UpdatedDateUTC: msDateTime(inv.updatedMs),
    CurrencyCode: 'GBP',
    FullyPaidOnDate: inv.fullyPaidOnDate ? msDate(inv.fullyPaidOnDate) : undefined,
    SentToContact: inv.Type === 'ACCREC' ? inv.sentToContact : undefined,
  });
}

export function paymentJson(org: OrgRec, p: PaymentRec, invoices?: Map<string, InvoiceRec>): Json {
  const account = org.accounts.find((a) => a.AccountID === p.AccountID);
  const inv = invoices ? invoices.get(p.InvoiceID) : org.invoices.find((i) => i.InvoiceID === p.InvoiceID);
  return compact({
    PaymentID: p.PaymentID,
    Date: msDate(p.Date),
    BankAmount: pounds(p.amount),
    Amount: pounds(p.amount),
    Reference: p.Reference,
    CurrencyRate: 1,
    PaymentType: p.PaymentType,
    Status: p.Status,
    UpdatedDateUTC: msDateTime(p.updatedMs),
    HasAccount: true,
    IsReconciled: p.IsReconciled,
    Account: account
      ? compact({ AccountID: account.AccountID, Code: account.Code, Name: account.Name })
      : undefined,
    Invoice: inv
      ? compact({
          Type: inv.Type,
          InvoiceID: inv.InvoiceID,
          InvoiceNumber: inv.InvoiceNumber,
          Reference: inv.Reference,
          Status: inv.Status,
          AmountDue: pounds(amountDue(inv)),
          AmountPaid: pounds(inv.amountPaid),
          Total: pounds(inv.total),
          CurrencyCode: 'GBP',
          Contact: {
            ContactID: inv.ContactID,
            Name: org.contacts.find((c) => c.ContactID === inv.ContactID)?.Name ?? '',
          },
          Payments: [],
          CreditNotes: [],
          Prepayments: [],
          Overpayments: [],
          HasErrors: false,
          IsDiscounted: false,
          LineItems: [],
        })
      : undefined,
    HasValidationErrors: false,
  });
}

export function journalJson(org: OrgRec, j: JournalRec): Json {
  return compact({
    Date: msDate(j.Date),
    DateString: dateString(j.Date),
    Status: j.Status,
    LineAmountTypes: j.LineAmountTypes,
    UpdatedDateUTC: msDateTime(j.updatedMs),
    ManualJournalID: j.ManualJournalID,
    Narration: j.Narration,
    Url: j.Url,
    JournalLines: j.lines.map((l) =>
      compact({
        Description: l.Description,
        TaxType: l.TaxType,
        TaxAmount: pounds(l.taxAmount),
        LineAmount: pounds(l.lineAmount),
        AccountCode: l.AccountCode ?? org.accounts.find((a) => a.AccountID === l.AccountID)?.Code,
        AccountID: l.AccountID,
        Tracking: [],
        IsBlank: false,
      }),
    ),
    ShowOnCashBasisReports: j.ShowOnCashBasisReports,
    HasAttachments: false,
  });
}

export function attachmentJson(rt: Runtime, a: AttachmentRec, contentLength: number): Json {
  return {
    AttachmentID: a.AttachmentID,
    FileName: a.FileName,
    Url: `${rt.url}/api.xro/2.0/Invoices/${a.InvoiceID}/Attachments/${encodeURIComponent(a.FileName)}`,
    MimeType: a.MimeType,
    ContentLength: contentLength,
    IncludeOnline: a.IncludeOnline,
  };
}

/** A credit note as Xero's `/CreditNotes` answers it: lines, allocations and refunds (issue 42). */
export function creditNoteJson(org: OrgRec, n: CreditNoteRec): Json {
  const allocated = n.allocations.reduce((sum, a) => sum + a.amount, 0);
  const refunded = n.refunds.filter((r) => r.Status === 'AUTHORISED').reduce((sum, r) => sum + r.amount, 0);
  return compact({
    CreditNoteID: n.CreditNoteID,
    CreditNoteNumber: n.CreditNoteNumber,
    ID: n.CreditNoteID,
    Type: n.Type,
    Contact: invoiceContactJson(org, n.ContactID),
    DateString: dateString(n.Date),
    Date: msDate(n.Date),
    Status: n.Status,
    LineAmountTypes: n.LineAmountTypes,
    LineItems: n.lines.map((l) =>
      compact({
        Description: l.Description,
        UnitAmount: Math.round(l.unitE4 / 100) / 100,
        TaxType: l.TaxType,
        TaxAmount: pounds(l.taxAmount),
        LineAmount: pounds(l.lineAmount),
        AccountCode: l.AccountCode,
        AccountID: l.AccountID,
        Quantity: fromE4(l.quantityE4),
        LineItemID: l.LineItemID,
        Tracking: [],
      }),
    ),
    SubTotal: pounds(n.subTotal),
    TotalTax: pounds(n.totalTax),
    Total: pounds(n.total),
    CISDeduction: n.cisDeduction !== undefined ? pounds(n.cisDeduction) : undefined,
    CISRate: n.cisRate,
    RemainingCredit: pounds(n.total - (n.cisDeduction ?? 0) - allocated - refunded),
    UpdatedDateUTC: msDateTime(n.updatedMs),
    CurrencyCode: 'GBP',
    Allocations: n.allocations.map((a) => ({
      AllocationID: a.AllocationID,
      Amount: pounds(a.amount),
      DateString: dateString(a.Date),
      Date: msDate(a.Date),
      Invoice: {
        InvoiceID: a.InvoiceID,
        InvoiceNumber: org.invoices.find((i) => i.InvoiceID === a.InvoiceID)?.InvoiceNumber,
      },
    })),
    Payments: n.refunds
      .filter((r) => r.Status === 'AUTHORISED')
      .map((r) => ({
        PaymentID: r.PaymentID,
        Date: msDate(r.Date),
        Amount: pounds(r.amount),
        CurrencyRate: 1,
      })),
    HasAttachments: false,
    HasErrors: false,
  });
}
