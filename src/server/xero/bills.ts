/**
 * What the CIS Bills feature needs from Xero, in our vocabulary: purchase bills (pence, ISO dates) and a
 * contact's CIS settings. The HTTP implementation is in `xero-http/cis-bills.ts`; unit tests pass a small
 * in-memory fake.
 */
import type { xeroInvoices } from '../db/schema/index.ts';
import type { XeroContext } from './xero-port';

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

/** A new purchase bill (ACCPAY). `reference` is what Xero's screens call the bill's Reference. */
export interface NewBill {
  contactId: string;
  date: string;
  dueDate: string;
  reference: string;
  lineAmountTypes: 'Inclusive' | 'NoTax';
  status: 'DRAFT' | 'AUTHORISED';
  lines: BillLineInput[];
}

/** A change to an existing bill: only the fields given are sent. */
export interface BillChange {
  status?: 'DRAFT' | 'AUTHORISED' | 'DELETED';
  dueDate?: string;
  lineAmountTypes?: 'Inclusive' | 'NoTax';
  lines?: BillLineInput[];
}

/** A bill as Xero holds it, as the invoice cache keeps it (pence, ISO dates), without the organisation. */
export type Bill = Omit<typeof xeroInvoices.$inferInsert, 'organizationId'> & {
  invoiceId: string;
  status: string;
  totalPence: number;
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
  /** A contact's bills dated on a day (not deleted or voided): how a create whose answer was lost is found. */
  listForContactOn(ctx: XeroContext, contactId: string, date: string): Promise<Bill[]>;
}

export interface ContactsPort {
  cisSettings(ctx: XeroContext, contactId: string): Promise<ContactCisSettings>;
}
