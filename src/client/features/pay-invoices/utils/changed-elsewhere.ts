/**
 * What the Pay Invoices screen says when the invoice on screen changed in Xero meanwhile
 * (docs/decisions/018-webhooks.md). The live event's shape stays in `@/shared/live-events`; the words are
 * the browser's.
 */
import type { LiveInvoiceChange } from '@/shared/live-events';
import { formatMoney } from '@/shared/money';

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
