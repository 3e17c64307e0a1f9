/**
 * What Ledgerlink's features need from Xero, in our vocabulary. The only implementation is the HTTP
 * adapter in `xero-http/`, pointed at Xero itself or at the built-in sandbox; unit tests of a service may
 * pass a small fake of this type.
 */
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

export interface XeroPort {
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
  /** The payment's Reference, with the mark of the write that made it (write-ledger-rules.ts writeMarkOf). */
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

/** Pay Invoices' operations on Xero (docs/xero-api.md §4.2 attachments, §4.3 payments). */
export interface PayInvoicesXero {
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
