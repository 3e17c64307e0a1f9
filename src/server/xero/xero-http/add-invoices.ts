import { z } from 'zod';
import { xeroInvoiceSchema } from './schemas';

/**
 * Xero request and answer shapes for Add Invoices (REFERENCE §3, §4.1, §4.3). Batch writes are sent with
 * `summarizeErrors=false`, so every element comes back with `StatusAttributeString` (OK / WARNING / ERROR)
 * and its `ValidationErrors`; an element in error echoes what was sent and may lack every other field.
 */
const validationErrorsSchema = z.array(z.object({ Message: z.string().nullish() }).passthrough()).nullish();

/** One element of a batch answer: read its outcome first, then parse the success shape. */
export const xeroBatchElementSchema = z
  .object({
    StatusAttributeString: z.string().nullish(),
    HasErrors: z.boolean().nullish(),
    HasValidationErrors: z.boolean().nullish(),
    ValidationErrors: validationErrorsSchema,
  })
  .passthrough();
export type XeroBatchElement = z.infer<typeof xeroBatchElementSchema>;

export const xeroInvoiceBatchEnvelope = z.object({ Invoices: z.array(xeroBatchElementSchema) });

export const xeroPaymentSchema = z.object({
  PaymentID: z.string(),
  Date: z.string().nullish(),
  Amount: z.number().nullish(),
  Reference: z.string().nullish(),
  Status: z.string().nullish(),
  UpdatedDateUTC: z.string().nullish(),
  Account: z.object({ AccountID: z.string().nullish(), Code: z.string().nullish() }).passthrough().nullish(),
  Invoice: z
    .object({
      InvoiceID: z.string().nullish(),
      InvoiceNumber: z.string().nullish(),
      Status: z.string().nullish(),
      AmountDue: z.number().nullish(),
      AmountPaid: z.number().nullish(),
      Total: z.number().nullish(),
    })
    .passthrough()
    .nullish(),
});
export type XeroPayment = z.infer<typeof xeroPaymentSchema>;
export const xeroPaymentBatchEnvelope = z.object({ Payments: z.array(xeroBatchElementSchema) });
export const xeroPaymentsEnvelope = z.object({ Payments: z.array(xeroPaymentSchema) });

/** A status-only approval: no LineItems, so Xero leaves the lines alone (REFERENCE §4.1). */
export interface XeroApproveElement {
  InvoiceID: string;
  Status: 'AUTHORISED';
  /** Only for a draft without one: Xero refuses to approve an invoice that has no due date. */
  DueDate?: string;
}

/** A payment into a bank account (REFERENCE §4.3): amount in pounds with 2 decimals, date YYYY-MM-DD. */
export interface XeroPaymentElement {
  Invoice: { InvoiceID: string };
  Account: { AccountID: string };
  Amount: number;
  Date: string;
  Reference: string;
}

/** A new sales invoice with one line (DESIGN §4 Add Invoices). */
export interface XeroNewInvoiceElement {
  Type: 'ACCREC';
  Contact: { ContactID: string };
  Date: string;
  DueDate: string;
  LineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax';
  Status: 'DRAFT' | 'AUTHORISED';
  LineItems: Array<{
    Description: string;
    Quantity: number;
    UnitAmount: number;
    AccountCode?: string;
    AccountID?: string;
    TaxType?: string;
  }>;
}

/** The messages of an element in error, or null when Xero accepted it. */
export function findElementErrors(element: XeroBatchElement | undefined): string | null {
  if (!element) return 'Xero did not answer for this item';
  const messages = (element.ValidationErrors ?? []).map((e) => e.Message).filter((m): m is string => typeof m === 'string' && m.trim() !== '');
  const failed = element.StatusAttributeString === 'ERROR' || element.HasErrors === true || element.HasValidationErrors === true || messages.length > 0;
  if (!failed) return null;
  return messages.length > 0 ? [...new Set(messages)].join('; ') : 'Xero refused this item';
}

/** Parses an accepted invoice element (null when it lacks what we need, e.g. an unusual answer). */
export function parseInvoiceElement(element: XeroBatchElement) {
  const parsed = xeroInvoiceSchema.safeParse(element);
  return parsed.success ? parsed.data : null;
}

export function parsePaymentElement(element: XeroBatchElement): XeroPayment | null {
  const parsed = xeroPaymentSchema.safeParse(element);
  return parsed.success ? parsed.data : null;
}
