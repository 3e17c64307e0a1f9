/**
 * The Xero port: everything Ledgerlink's features and services need from Xero, in our vocabulary (pence, ISO
 * dates, camelCase), in this one file. Its one implementation is the HTTP adapter in `xero-http/`, built once by
 * `createXeroPort` (xero-http/adapter.ts) at the app's wiring site and pointed at Xero itself or at the built-in
 * sandbox; services receive only the parts they use, and unit tests of a service may pass a small fake of one.
 * Feature modules never import `xero-http/` (lint: eslint.config.js).
 */
import type { xeroAccounts, xeroInvoices } from '../db/schema/index';
import type { toInvoiceRow } from './sync/mappers';

// Identity: the OAuth flow (code + PKCE) and each user's token set, the part of the adapter that sign-in and
// the connection screens drive (docs/architecture.md §4 Connection and organisations).
export { OAuthError, type XeroOAuth } from './xero-http/oauth';
export { REFRESH_MARGIN_MS, RENEW_AHEAD_MS, type TokenStore } from './xero-http/token-store';

// Connections and the caller

/** One organisation (tenant) a user's grant reaches. */
export interface XeroTenantConnection {
  /** Xero's connection id, used to disconnect. */
  connectionId: string;
  tenantId: string;
  tenantName: string | null;
  tenantType: string;
}

/** Who is asking: the user whose token is used and the organisation (tenant) the call is for. */
export interface XeroContext {
  userId: number;
  tenantId: string;
}

/** The user's Xero connections (`GET/DELETE /connections`): which organisations their grant reaches. */
export interface XeroConnectionsPort {
  listConnections(userId: number): Promise<XeroTenantConnection[]>;
  deleteConnection(userId: number, connectionId: string): Promise<void>;
}

/** A payment as Ledgerlink speaks of it: pence, ids, and the invoice's balance Xero reported with it. */
export interface XeroPaymentFacts {
  paymentId: string;
  amountPence: number | null;
  accountId: string | null;
  /** The payment's date, YYYY-MM-DD. */
  date: string | null;
  /** AUTHORISED or DELETED. */
  status: string | null;
  /** The payment's Reference, with the mark of the write that made it (src/server/ledger/rules.ts, writeMarkOf). */
  reference?: string | null;
  /** Xero's UpdatedDateUTC of the payment (ISO): when the balance below was Xero's. */
  updatedUtc: string | null;
  invoice: {
    invoiceId: string | null;
    status: string | null;
    amountDuePence: number | null;
    amountPaidPence: number | null;
  } | null;
}

/** A new payment against a sales invoice, into a bank account (or one that takes payments). */
export interface NewPayment {
  invoiceId: string;
  accountId: string;
  amountPence: number;
  date: string;
  reference: string;
}

/** A payment answer as the write ledger kept it, read back in Ledgerlink's words. */
export interface StoredPaymentAnswer {
  paymentId: string;
  amountDuePence: number | null;
  amountPaidPence: number | null;
  invoiceStatus: string | null;
  updatedUtc: string | null;
  /**
   * The payment was DELETED in Xero when a look-up found it (issue 28: undone before a restore); the balance
   * above is then the invoice's without it.
   */
  deleted: boolean;
}

/** Pay Invoices' operations on Xero (docs/xero-api.md §4.2 attachments, §4.3 payments). */
export interface PayInvoicesXero {
  /**
   * A payment answer the ledger kept (`response`, `xeroId`): Pay Invoices' own shape, or Xero's raw Payment on
   * rows settled by the old Add Invoices finder; both are read.
   */
  readStoredAnswer(raw: unknown, xeroId: string | null): StoredPaymentAnswer;
  payments: {
    /** Sends one payment under the ledger's key; Xero's refusal is an AppError XERO_REJECTED with Xero's words. */
    create(ctx: XeroContext, payment: NewPayment, idempotencyKey: string): Promise<XeroPaymentFacts>;
    /** Every payment of one invoice, as Xero lists them (a lost answer is looked up here). */
    findForInvoice(ctx: XeroContext, invoiceId: string): Promise<XeroPaymentFacts[]>;
    get(ctx: XeroContext, paymentId: string): Promise<XeroPaymentFacts | null>;
    /** Reverses a payment (Xero marks it DELETED); the answer carries the invoice's balance after it. */
    delete(ctx: XeroContext, paymentId: string, idempotencyKey: string): Promise<XeroPaymentFacts | null>;
  };
  attachments: {
    list(
      ctx: XeroContext,
      invoiceId: string,
    ): Promise<
      Array<{
        attachmentId: string;
        fileName: string;
        mimeType: string | null;
        /** Xero's ContentLength (bytes); with the id, what the attachment store keys a file by. */
        contentLength?: number | null;
      }>
    >;
    get(
      ctx: XeroContext,
      invoiceId: string,
      attachmentId: string,
    ): Promise<{ body: Buffer; contentType: string | null }>;
  };
}

// Add Invoices: approvals, cash payments and new invoices, in batches (docs/xero-api.md §3, §4.1, §4.3)

/** The answer for one element of a batch: Xero's facts, or its words for why it refused the element. */
export type ElementResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** An invoice as Add Invoices needs it back from Xero, with the cache row ready to write. */
export interface InvoiceFacts {
  invoiceId: string;
  invoiceNumber: string | null;
  status: string;
  totalPence: number;
  cacheRow: ReturnType<typeof toInvoiceRow>;
}

/** What a new invoice is made of, in Ledgerlink's words (docs/architecture.md §4 Add Invoices). */
export interface NewInvoiceSpec {
  contactId: string;
  date: string;
  /** 'Tax inclusive' | 'Tax exclusive' | 'No tax' (Settings' tax status). */
  taxStatus: string;
  approve: boolean;
  description: string;
  amountPence: number;
  /** The sales account by code when it has one, else by id. */
  accountCode: string | null;
  accountId: string;
  taxType: string | null;
  /** The Reference the invoice carries: the mark of the write that creates it (withWriteMark). */
  reference?: string;
}

declare const sealed: unique symbol;
/**
 * A write's request as Xero will receive it, built by the port: the write ledger records it as sent (its
 * fingerprint is what Xero got) and the port sends it; a feature passes it along without reading it.
 */
export interface SealedXeroRequest<Kind extends string> {
  readonly [sealed]: Kind;
}
export type ApprovalRequest = SealedXeroRequest<'invoice.approve'>;
export type NewInvoiceRequest = SealedXeroRequest<'invoice.create'>;

/** Add Invoices' operations on Xero. */
export interface AddInvoicesXero {
  /** A status-only approval of a draft; a draft without a due date gets `dueDate` (Xero refuses it otherwise). */
  approvalRequest(invoiceId: string, dueDate: string | null): ApprovalRequest;
  /** Up to 50 approvals in one call; one result per request, in order. */
  approveMany(
    ctx: XeroContext & { organizationId: number },
    requests: ApprovalRequest[],
    batchKey: string,
  ): Promise<Array<ElementResult<InvoiceFacts | null>>>;
  /** Up to 50 payments in one call; one result per payment, in order. */
  createPayments(
    ctx: XeroContext,
    payments: NewPayment[],
    batchKey: string,
  ): Promise<Array<ElementResult<XeroPaymentFacts | null>>>;
  newInvoiceRequest(spec: NewInvoiceSpec): NewInvoiceRequest;
  /** One new invoice; Xero's refusal is an AppError XERO_REJECTED with its words. */
  createInvoice(
    ctx: XeroContext & { organizationId: number },
    request: NewInvoiceRequest,
    idempotencyKey: string,
  ): Promise<InvoiceFacts | null>;
  /** An approval whose answer was lost: whether the invoice is approved (VOIDED only follows AUTHORISED). */
  findApproval(ctx: XeroContext, invoiceId: string): Promise<{ invoiceId: string; status: string } | null>;
  /**
   * A new invoice whose answer was lost: one this app made for the recorded request's contact and date that
   * carries `mark` in its Reference; else, without `byMarkOnly` (an invoice sent before invoices were
   * marked), one of that total not `claimed`. Deleted and voided invoices count for a look-up by mark only
   * (a created invoice deleted since was still created).
   */
  findCreatedInvoice(
    ctx: XeroContext & { organizationId: number },
    request: unknown,
    totalPence: number,
    claimed: Set<string>,
    mark: { has: (reference: string | null | undefined) => boolean; byMarkOnly?: boolean },
  ): Promise<InvoiceFacts | null>;
  /** When Xero created the invoice (its history), for the redo warning (issue 44); null when it does not say. */
  createdAt(ctx: XeroContext, invoiceId: string): Promise<Date | null>;
}

// CIS Bills: purchase bills and contacts' CIS settings (docs/xero-api.md §4.1, §4.8)

/** A bill line as we send it. `unitPence` may carry fractions of a penny (Xero takes 4 decimals of a pound). */
export interface BillLineInput {
  /** Keeps an existing line on an update (Xero deletes lines left out). */
  lineItemId?: string | null;
  description: string;
  quantity: number;
  unitPence: number;
  accountCode?: string | null;
  taxType?: string | null;
}

/**
 * A new purchase bill (ACCPAY). `reference` is what Xero's screens call the bill's Reference (its number),
 * sent exactly as typed. `url` is Xero's Invoice.Url, shown as "Go to Ledgerlink" on the bill in Xero: the link
 * back to CIS Bills that carries the write's mark (decision 028).
 */
export interface NewBill {
  contactId: string;
  date: string;
  dueDate: string;
  reference: string;
  url?: string;
  lineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax';
  status: 'DRAFT' | 'AUTHORISED';
  lines: BillLineInput[];
}

/** A change to an existing bill: only the fields given are sent. */
export interface BillChange {
  status?: 'DRAFT' | 'AUTHORISED' | 'DELETED';
  dueDate?: string;
  lineAmountTypes?: 'Inclusive' | 'Exclusive' | 'NoTax';
  lines?: BillLineInput[];
}

/**
 * A bill as Xero holds it, as the invoice cache keeps it (pence, ISO dates), without the organisation, and
 * its Url (not cached: only the finders read it).
 */
export type Bill = Omit<typeof xeroInvoices.$inferInsert, 'organizationId'> & {
  invoiceId: string;
  status: string;
  totalPence: number;
  url?: string | null;
};

/** One bill of a write answer: Xero's bill, or the reasons Xero refused that element. */
export type BillAnswer =
  | { ok: true; bill: Bill }
  /** `unknown`: Xero's answer did not say what became of the bill (it may exist), as opposed to a refusal. */
  | { ok: false; errors: string[]; unknown?: boolean };

/** A contact's CIS settings; `rate` (whole percent) only when CIS is enabled. */
export interface ContactCisSettings {
  enabled: boolean;
  rate: number | null;
}

export interface BillsPort {
  /** Creates up to 50 bills in one call; one answer per bill, in order (a refused bill does not stop the others). */
  createMany(ctx: XeroContext, bills: NewBill[], idempotencyKey: string): Promise<BillAnswer[]>;
  /** Changes one bill (status, due date, lines). */
  update(
    ctx: XeroContext,
    invoiceId: string,
    change: BillChange,
    idempotencyKey: string,
  ): Promise<BillAnswer>;
  /** One bill; null when Xero has none with that id. */
  get(ctx: XeroContext, invoiceId: string): Promise<Bill | null>;
  /**
   * A contact's bills changed since `modifiedSince` (every one without it), deleted and voided ones included,
   * the most recently changed first, at most 100: one read, how a bill create whose answer was
   * lost, or which a restore forgot, is found (decision 028).
   */
  listChangedForContact(ctx: XeroContext, contactId: string, modifiedSince: Date | null): Promise<Bill[]>;
  /**
   * When Xero created the bill (its history), for the redo warning (issue 44); null when it does not say.
   * Optional, so a fake port without it words the warning without the age.
   */
  createdAt?(ctx: XeroContext, invoiceId: string): Promise<Date | null>;
}

export interface ContactsPort {
  cisSettings(ctx: XeroContext, contactId: string): Promise<ContactCisSettings>;
}

// Stock Journal: manual journals and the sales they transfer (docs/xero-api.md §4.7)

/** A manual journal as Xero holds it. */
export interface Journal {
  journalId: string;
  narration: string | null;
  /** ISO date (yyyy-mm-dd) the journal is dated at. */
  date: string | null;
  /** Xero's status (DRAFT, POSTED, DELETED, VOIDED, ARCHIVED: docs/xero-api.md §4.7); an unknown one passes through. */
  status: string;
  /** When Xero last changed it (If-Modified-Since high-water). */
  updatedAt: Date | null;
  /** The debit side, in pence. */
  debitPence: number;
}

/** A stock transfer journal to create: debit the cost account, credit the stock account, `amountPence` each. */
export interface StockTransferJournal {
  narration: string;
  /** ISO date the journal is dated at. */
  date: string;
  status: 'DRAFT' | 'POSTED';
  amountPence: number;
  /** Xero account id (GUID) or code. */
  costAccountId: string;
  stockAccountId: string;
  costDescription: string;
  stockDescription: string;
}

/** One approved sales invoice as the weekly grouping takes it: Xero's own figures, in pence. */
export interface SaleInvoice {
  invoiceNumber: string | null;
  contactName: string | null;
  date: string;
  totalPence: number;
  totalTaxPence: number;
  subTotalPence: number;
}

/** A journal still counts (records its transfer) unless deleted or voided in Xero. */
export function isLiveJournal(journal: Pick<Journal, 'status'>): boolean {
  return journal.status !== 'DELETED' && journal.status !== 'VOIDED';
}

export interface JournalsPort {
  /**
   * Journals Xero changed since `since` (every journal without it), oldest change first, all pages.
   * `notModified` when Xero answered that nothing changed.
   */
  list(ctx: XeroContext, options?: { since?: Date }): Promise<{ journals: Journal[]; notModified: boolean }>;
  /** Journals dated in the range (both ends included), whatever their status. */
  listDated(ctx: XeroContext, fromDate: string, toDate: string): Promise<Journal[]>;
  /** Creates the journal under the idempotency key; the journal as Xero answered it. */
  create(ctx: XeroContext, journal: StockTransferJournal, idempotencyKey: string): Promise<Journal>;
}

export interface SalesPort {
  /** Approved and paid sales invoices of every customer dated in the range (both ends included), oldest first. */
  listInRange(ctx: XeroContext, fromDate: string, toDate: string): Promise<SaleInvoice[]>;
}

// Settings: the chart of accounts' bank accounts (docs/xero-api.md §4.4)

/** An account as Xero holds it, as the accounts cache keeps it, without the organisation. */
export type XeroAccountRecord = Omit<typeof xeroAccounts.$inferInsert, 'organizationId'> & {
  accountId: string;
  status: string;
};

export interface AccountsPort {
  /** Every bank account Xero has for the organisation, whatever its status (one call, not paged). */
  listBank(ctx: XeroContext): Promise<XeroAccountRecord[]>;
}

// The whole port, built once at the wiring site (xero-http/adapter.ts createXeroPort)

export interface XeroPort {
  connections: XeroConnectionsPort;
  payInvoices: PayInvoicesXero;
  addInvoices: AddInvoicesXero;
  bills: BillsPort;
  contacts: ContactsPort;
  journals: JournalsPort;
  sales: SalesPort;
  accounts: AccountsPort;
}
