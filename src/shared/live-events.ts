import { z } from 'zod';
import { formatMoney } from './money';

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
export type LiveContactsEvent = z.infer<typeof liveContactsEventSchema>;

/** How a payment was taken, from Ledgerlink's own references ("Card payment for …"); unknown otherwise. */
function describeMethod(reference: string | null | undefined): string {
  if (!reference) return '';
  if (/^card payment/i.test(reference)) return ' by card';
  if (/^cash payment/i.test(reference)) return ' in cash';
  return '';
}

/**
 * The words for a change made elsewhere to the invoice on screen, or null when nothing a payment depends on
 * changed (or the only new payments are this browser's own): "Paid in Xero a moment ago: £20.00 by card;
 * £15.00 still due".
 */
export function describeChangeElsewhere(
  change: LiveInvoiceChange,
  ownPaymentIds: ReadonlySet<string> = new Set(),
  currency = 'GBP',
): string | null {
  const { before, after } = change;
  const payments = change.newPayments.filter((p) => !ownPaymentIds.has(p.paymentId.toLowerCase()));
  if (after.status === 'VOIDED' || after.status === 'DELETED')
    return `${after.status === 'VOIDED' ? 'Voided' : 'Deleted'} in Xero a moment ago: nothing can be paid on it now`;
  const due =
    after.amountDuePence > 0
      ? `${formatMoney(after.amountDuePence, currency)} still due`
      : 'nothing left to pay';
  if (payments.length > 0) {
    const paid = payments
      .map((p) => `${formatMoney(p.amountPence, currency)}${describeMethod(p.reference)}`)
      .join(' and ');
    return `Paid in Xero a moment ago: ${paid}; ${due}`;
  }
  if (change.newPayments.length > 0) return null;
  if (before && (before.amountDuePence !== after.amountDuePence || before.status !== after.status)) {
    return `Changed in Xero a moment ago: ${due}`;
  }
  return null;
}
