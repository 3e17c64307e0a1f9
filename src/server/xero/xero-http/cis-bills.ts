import { z } from 'zod';
import { xeroInvoiceSchema } from './schemas';

/**
 * Xero shapes the CIS Bills feature reads and sends (REFERENCE §4.1 invoices, §4.8 CIS). PascalCase stays
 * here; the service maps to our DTOs.
 */

/** `GET /Contacts/{ContactID}/CISSettings` → `{"CISSettings":[{"CISEnabled":bool,"Rate":n}]}`; Rate only when enabled. */
export const xeroContactCisSettingsEnvelope = z.object({
  CISSettings: z
    .array(
      z.object({
        CISEnabled: z.boolean().nullish(),
        Rate: z.number().nullish(),
      }),
    )
    .nullish(),
});
export type XeroContactCisSettings = z.infer<typeof xeroContactCisSettingsEnvelope>;

/**
 * A bill as Xero answers a write with `summarizeErrors=false`: the invoice, plus per-element status and
 * validation errors (REFERENCE §3, §5). CISDeduction/CISRate are read-only outputs Xero adds for CIS bills.
 */
export const xeroBillSchema = xeroInvoiceSchema.extend({
  // A refused element echoes what was sent, without an id (real Xero sends an all-zero id).
  InvoiceID: z.string().nullish(),
  Type: z.string().nullish(),
  Status: z.string().nullish(),
  CISDeduction: z.number().nullish(),
  CISRate: z.number().nullish(),
  StatusAttributeString: z.string().nullish(),
  HasErrors: z.boolean().nullish(),
  ValidationErrors: z.array(z.object({ Message: z.string().nullish() })).nullish(),
});
export type XeroBill = z.infer<typeof xeroBillSchema>;

export const xeroBillsEnvelope = z.object({ Invoices: z.array(xeroBillSchema) });

/** A bill line as we send it. */
export interface XeroBillLineInput {
  LineItemID?: string;
  Description: string;
  Quantity: number;
  UnitAmount: number;
  AccountCode: string;
  TaxType?: string;
}

/** A new purchase bill (ACCPAY) as we send it in `PUT /Invoices`. */
export interface XeroBillInput {
  Type: 'ACCPAY';
  Contact: { ContactID: string };
  Date: string;
  DueDate: string;
  /** For ACCPAY this is what Xero's screens call "Reference" and it need not be unique (REFERENCE §4.1). */
  InvoiceNumber: string;
  LineAmountTypes: 'Inclusive' | 'NoTax';
  Status: 'DRAFT' | 'AUTHORISED';
  LineItems: XeroBillLineInput[];
}

/** The validation messages Xero put on one element of a write answer. */
export function findElementErrors(bill: XeroBill): string[] {
  const messages = (bill.ValidationErrors ?? []).map((e) => e.Message ?? '').filter((m) => m.trim() !== '');
  if (messages.length > 0) return messages;
  if (bill.HasErrors || bill.StatusAttributeString === 'ERROR') return ['Xero refused this bill'];
  return [];
}
