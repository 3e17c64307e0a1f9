import { z } from 'zod';

/**
 * Xero's shapes for Pay Invoices (REFERENCE §4.2 attachments, §4.3 payments). PascalCase stays in
 * xero-http; the module maps these to the shared DTOs. Unknown fields pass through: Xero adds fields.
 */

export const xeroAttachmentSchema = z.object({
  AttachmentID: z.string(),
  FileName: z.string(),
  Url: z.string().nullish(),
  MimeType: z.string().nullish(),
  ContentLength: z.number().nullish(),
});
export type XeroAttachment = z.infer<typeof xeroAttachmentSchema>;
export const xeroAttachmentsEnvelope = z.object({ Attachments: z.array(xeroAttachmentSchema) });

const validationErrors = z.array(z.object({ Message: z.string().nullish() }).passthrough()).nullish();

/** A payment as `PUT /Payments`, `GET /Payments` and `POST /Payments/{id}` answer it. */
export const xeroPaymentSchema = z.object({
  PaymentID: z.string().nullish(),
  Date: z.string().nullish(),
  Amount: z.number().nullish(),
  Reference: z.string().nullish(),
  Status: z.string().nullish(),
  PaymentType: z.string().nullish(),
  UpdatedDateUTC: z.string().nullish(),
  Account: z.object({ AccountID: z.string().nullish(), Code: z.string().nullish() }).passthrough().nullish(),
  Invoice: z
    .object({
      InvoiceID: z.string().nullish(),
      Status: z.string().nullish(),
      AmountDue: z.number().nullish(),
      AmountPaid: z.number().nullish(),
    })
    .passthrough()
    .nullish(),
  HasValidationErrors: z.boolean().nullish(),
  StatusAttributeString: z.string().nullish(),
  ValidationErrors: validationErrors,
});
export type XeroPayment = z.infer<typeof xeroPaymentSchema>;
export const xeroPaymentsEnvelope = z.object({ Payments: z.array(xeroPaymentSchema) });

/** The body of `PUT /Payments` for one payment against a sales invoice, paid into a bank account by its id. */
export function buildPaymentBody(payment: { invoiceId: string; accountId: string; amount: number; date: string; reference: string }) {
  return {
    Payments: [
      {
        Invoice: { InvoiceID: payment.invoiceId },
        Account: { AccountID: payment.accountId },
        Amount: payment.amount,
        Date: payment.date,
        Reference: payment.reference,
      },
    ],
  };
}

/** The body that reverses a payment (REFERENCE §4.3: `POST /Payments/{PaymentID}` `{"Status":"DELETED"}`). */
export const DELETE_PAYMENT_BODY = { Status: 'DELETED' } as const;

/** Xero's filter for the payments of one invoice (`Guid` comparison, REFERENCE §3 `where`). */
export function paymentsOfInvoiceWhere(invoiceId: string): string {
  return `Invoice.InvoiceID==Guid("${invoiceId.replace(/[^0-9a-fA-F-]/g, '')}")`;
}
