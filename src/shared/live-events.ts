import { z } from 'zod';

/**
 * What GET /api/events tells an open screen (docs/decisions/018-webhooks.md): an organisation's invoices or
 * contacts changed in Xero. Money is integer pence; the invoice's figures before (as Ledgerlink had them) and
 * after (as Xero has them now), and the payments Xero lists that Ledgerlink did not know.
 */
const balanceSchema = z.object({
  status: z.string(),
  amountDuePence: z.number().int(),
  amountPaidPence: z.number().int(),
});

export const liveInvoiceChangeSchema = z.object({
  invoiceId: z.string(),
  invoiceNumber: z.string().nullable(),
  type: z.string(),
  before: balanceSchema.nullable(),
  after: balanceSchema.extend({ totalPence: z.number().int() }),
  newPayments: z.array(
    z.object({ paymentId: z.string(), amountPence: z.number().int(), reference: z.string().nullish() }),
  ),
});
export type LiveInvoiceChange = z.infer<typeof liveInvoiceChangeSchema>;

export const liveInvoicesEventSchema = z.object({
  organizationId: z.number().int(),
  invoices: z.array(liveInvoiceChangeSchema),
});
export type LiveInvoicesEvent = z.infer<typeof liveInvoicesEventSchema>;

export const liveContactsEventSchema = z.object({
  organizationId: z.number().int(),
  contactIds: z.array(z.string()),
});
