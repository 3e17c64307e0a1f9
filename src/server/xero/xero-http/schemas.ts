import { z } from 'zod';

/**
 * Zod schemas for the parts of Xero's answers Ledgerlink reads. PascalCase stays in the Xero layer
 * (src/server/xero: these schemas and the sync mappers that read them); the feature modules never see it.
 * Unknown fields are allowed through: Xero adds fields without notice.
 */
export const xeroConnectionSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  tenantType: z.string(),
  tenantName: z.string().nullish(),
  createdDateUtc: z.string().nullish(),
  updatedDateUtc: z.string().nullish(),
  authEventId: z.string().nullish(),
});
export const xeroConnectionsSchema = z.array(xeroConnectionSchema);
export type XeroConnection = z.infer<typeof xeroConnectionSchema>;

/** Xero sends money as JSON numbers with up to 2 (sometimes 4) decimals. */
const amount = z.number().nullish();

export const xeroLineItemSchema = z.object({
  LineItemID: z.string().nullish(),
  Description: z.string().nullish(),
  Quantity: z.number().nullish(),
  UnitAmount: z.number().nullish(),
  AccountCode: z.string().nullish(),
  AccountID: z.string().nullish(),
  TaxType: z.string().nullish(),
  TaxAmount: amount,
  LineAmount: amount,
});

export const xeroInvoicePaymentSchema = z.object({
  PaymentID: z.string(),
  Date: z.string().nullish(),
  Amount: amount,
  Reference: z.string().nullish(),
});

export const xeroInvoiceSchema = z.object({
  InvoiceID: z.string(),
  Type: z.string(),
  InvoiceNumber: z.string().nullish(),
  Reference: z.string().nullish(),
  Contact: z.object({ ContactID: z.string().nullish(), Name: z.string().nullish() }).nullish(),
  Date: z.string().nullish(),
  DueDate: z.string().nullish(),
  Status: z.string(),
  LineAmountTypes: z.string().nullish(),
  LineItems: z.array(xeroLineItemSchema).nullish(),
  SubTotal: amount,
  TotalTax: amount,
  Total: amount,
  AmountDue: amount,
  AmountPaid: amount,
  /** UK CIS (read-only): the deduction Xero computed on a bill's CIS labour lines, and its rate in percent. */
  CISDeduction: amount,
  CISRate: amount,
  CurrencyCode: z.string().nullish(),
  SentToContact: z.boolean().nullish(),
  HasAttachments: z.boolean().nullish(),
  UpdatedDateUTC: z.string().nullish(),
  Payments: z.array(xeroInvoicePaymentSchema).nullish(),
});
export type XeroInvoice = z.infer<typeof xeroInvoiceSchema>;
/**
 * Paged answers carry `pagination` (docs/xero-api.md §3): the sync stops at the last page without asking for
 * an empty one.
 */
export const xeroPaginationSchema = z
  .object({
    page: z.number().nullish(),
    pageSize: z.number().nullish(),
    pageCount: z.number().nullish(),
    itemCount: z.number().nullish(),
  })
  .nullish();
export const xeroInvoicesEnvelope = z.object({
  Invoices: z.array(xeroInvoiceSchema),
  pagination: xeroPaginationSchema,
});

/** A supplier or customer credit note (issue 42: a CIS subcontractor's credit note reduces the return). */
export const xeroCreditNoteSchema = z.object({
  CreditNoteID: z.string(),
  CreditNoteNumber: z.string().nullish(),
  Type: z.string(),
  Contact: z.object({ ContactID: z.string().nullish(), Name: z.string().nullish() }).nullish(),
  Date: z.string().nullish(),
  Status: z.string(),
  LineAmountTypes: z.string().nullish(),
  LineItems: z.array(xeroLineItemSchema).nullish(),
  SubTotal: amount,
  TotalTax: amount,
  Total: amount,
  RemainingCredit: amount,
  CISDeduction: amount,
  CISRate: amount,
  UpdatedDateUTC: z.string().nullish(),
  Allocations: z
    .array(
      z.object({
        AllocationID: z.string().nullish(),
        Amount: amount,
        Date: z.string().nullish(),
        Invoice: z.object({ InvoiceID: z.string() }).passthrough().nullish(),
      }),
    )
    .nullish(),
  Payments: z.array(xeroInvoicePaymentSchema).nullish(),
});
export type XeroCreditNote = z.infer<typeof xeroCreditNoteSchema>;
export const xeroCreditNotesEnvelope = z.object({
  CreditNotes: z.array(xeroCreditNoteSchema),
  pagination: xeroPaginationSchema,
});

export const xeroAccountSchema = z.object({
  AccountID: z.string(),
  Code: z.string().nullish(),
  Name: z.string(),
  Type: z.string(),
  Class: z.string().nullish(),
  Status: z.string(),
  BankAccountType: z.string().nullish(),
  BankAccountNumber: z.string().nullish(),
  TaxType: z.string().nullish(),
  EnablePaymentsToAccount: z.boolean().nullish(),
  SystemAccount: z.string().nullish(),
  UpdatedDateUTC: z.string().nullish(),
});
export const xeroAccountsEnvelope = z.object({ Accounts: z.array(xeroAccountSchema) });

export const xeroTaxRateSchema = z.object({
  Name: z.string(),
  TaxType: z.string(),
  Status: z.string(),
  EffectiveRate: z.union([z.number(), z.string()]).nullish(),
  DisplayTaxRate: z.union([z.number(), z.string()]).nullish(),
  CanApplyToRevenue: z.boolean().nullish(),
  CanApplyToExpenses: z.boolean().nullish(),
});
export const xeroTaxRatesEnvelope = z.object({ TaxRates: z.array(xeroTaxRateSchema) });

export const xeroContactSchema = z.object({
  ContactID: z.string(),
  Name: z.string(),
  EmailAddress: z.string().nullish(),
  ContactStatus: z.string().nullish(),
  IsSupplier: z.boolean().nullish(),
  IsCustomer: z.boolean().nullish(),
  TaxNumber: z.string().nullish(),
  AccountsPayableTaxType: z.string().nullish(),
  ContactGroups: z.array(z.object({ ContactGroupID: z.string() }).passthrough()).nullish(),
  UpdatedDateUTC: z.string().nullish(),
});
export const xeroContactsEnvelope = z.object({
  Contacts: z.array(xeroContactSchema),
  pagination: xeroPaginationSchema,
});

export const xeroContactGroupSchema = z.object({
  ContactGroupID: z.string(),
  Name: z.string(),
  Status: z.string(),
  Contacts: z.array(z.object({ ContactID: z.string() }).passthrough()).nullish(),
});
export const xeroContactGroupsEnvelope = z.object({ ContactGroups: z.array(xeroContactGroupSchema) });
