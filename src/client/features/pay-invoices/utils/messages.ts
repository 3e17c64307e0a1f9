/**
 * What the Pay Invoices screen says (docs/product/features.md §4, §8): its toasts, the success banner, the
 * Undo toasts and the status badge. The rules these texts rest on (the 0.01 tolerance, which server messages
 * mean "out of sync") stay in `@/shared/pay-invoices`, beside the server's own checks.
 */
import { formatCount } from '@/shared/counts';
import { getDaysBetween } from '@/shared/dates';
import { formatMoney, roundPoundsToPence } from '@/shared/money';
import {
  isBalanceFullyPaid,
  isOutOfSyncPaymentError,
  type Invoice,
  type UserMessage,
} from '@/shared/pay-invoices';

/**
 * Toast for a failed payment (docs/product/features.md §8): messages containing 'already fully paid',
 * 'exceeds the invoice balance' or 'validation failed' give 'Invoice Data Out of Sync' and set the
 * out-of-sync flag; anything else gives 'Payment Failed'.
 */
export function describePaymentError(
  message: string | null | undefined,
): UserMessage & { isOutOfSync: boolean } {
  if (isOutOfSyncPaymentError(message)) {
    return {
      title: 'Invoice Data Out of Sync',
      description:
        'Payment validation failed. The invoice data may have changed. Try refreshing the invoice.',
      isOutOfSync: true,
    };
  }
  return {
    title: 'Payment Failed',
    description: 'Failed to process payments. Please try again.',
    isOutOfSync: false,
  };
}

/**
 * Success toast (docs/product/features.md §4): 'Payments Processed Successfully' / the spec's
 * 'Processed {n} payment(s) for invoice {number}'
 * with the count read right for one ("Processed 1 payment …", formatCount, issue 33 item 6).
 */
export function describePaymentSuccess(count: number, invoiceNumber: string): UserMessage {
  return {
    title: 'Payments Processed Successfully',
    description: `Processed ${formatCount(count, 'payment')} for invoice ${invoiceNumber}`,
  };
}

/**
 * Success banner content (docs/product/features.md §4): 'Payment Successful!', then 'Invoice fully paid' with
 * a COMPLETED tag, or the remaining balance with a PARTIAL tag (£ for GBP, else $).
 */
export function describePaymentOutcome(
  remainingBalancePence: number,
  currency = 'GBP',
): { title: 'Payment Successful!'; detail: string; tag: 'COMPLETED' | 'PARTIAL' } {
  if (isBalanceFullyPaid(remainingBalancePence)) {
    return { title: 'Payment Successful!', detail: 'Invoice fully paid', tag: 'COMPLETED' };
  }
  return {
    title: 'Payment Successful!',
    detail: `Remaining balance: ${formatMoney(remainingBalancePence, currency)}`,
    tag: 'PARTIAL',
  };
}

/** Undo toasts (beyond the spec). */
export const UNDO_MESSAGES = {
  success: { title: 'Payment Undone', description: 'The payment was removed from Xero.' },
  failure: {
    title: 'Undo Failed',
    description: 'The payment could not be removed. Check the invoice in Xero.',
  },
} as const satisfies Record<string, UserMessage>;

/** Status badge of an invoice (docs/product/features.md §4). */
export type InvoiceStatusBadge =
  | { kind: 'paid'; label: 'Fully Paid' }
  | { kind: 'left'; label: string }
  | { kind: 'overdue'; label: string; days: number }
  | { kind: 'due-today'; label: 'Due today' }
  | { kind: 'due'; label: string; days: number };

/**
 * Status badge (docs/product/features.md §4): "Fully Paid (amount due effectively zero), 'Overdue by {n}
 * days', 'Due today', 'Due in {n} days'". Days are whole calendar days between the due date and today (UK).
 * An invoice without a due date is treated as due today.
 */
export function getInvoiceStatusBadge(
  invoice: Pick<Invoice, 'amountDue' | 'dueDate'> & Partial<Pick<Invoice, 'currency'>>,
  today: string,
): InvoiceStatusBadge {
  const duePence = roundPoundsToPence(invoice.amountDue);
  if (duePence <= 0) return { kind: 'paid', label: 'Fully Paid' };
  // A penny within the tolerance is not "Fully Paid" to the eye: say what is left (issue 17 item 15).
  if (isBalanceFullyPaid(duePence))
    return { kind: 'left', label: `${formatMoney(duePence, invoice.currency)} left to pay` };
  const days = invoice.dueDate ? getDaysBetween(today, invoice.dueDate) : 0;
  if (days < 0)
    return { kind: 'overdue', label: `Overdue by ${-days} day${days === -1 ? '' : 's'}`, days: -days };
  if (days === 0) return { kind: 'due-today', label: 'Due today' };
  return { kind: 'due', label: `Due in ${days} day${days === 1 ? '' : 's'}`, days };
}

/** The count in the header and in 'Invoices Refreshed' (docs/product/features.md §2). */
export function describeInvoiceCount(n: number): string {
  return `${formatCount(n, 'invoice')} awaiting payment`;
}

/**
 * A same-key resend (the toast's Retry, or the client's own retry of an answer lost on the way) of payments
 * that Xero recorded and that were undone since (issue 28): nothing was paid now, nothing is left to undo, and
 * the balance is the invoice's as it is now. Said plainly instead of "Payment Successful!" with an Undo.
 */
export function describeUndoneReplay(
  invoiceNumber: string,
  undone: readonly { amount: number; isCard: boolean; undoneAt: string }[],
  remainingPence: number,
  currency = 'GBP',
): UserMessage {
  const parts = undone
    .map((p) => `${p.isCard ? 'card' : 'cash'} ${formatMoney(roundPoundsToPence(p.amount), currency)}`)
    .join(' and ');
  const at = undone[0] ? formatUndoneAt(undone[0].undoneAt) : '';
  const balance = isBalanceFullyPaid(remainingPence)
    ? `${invoiceNumber} is fully paid.`
    : `${formatMoney(remainingPence, currency)} is still due on ${invoiceNumber}.`;
  return {
    title: 'Payment Was Undone',
    description: `This payment (${parts}) was recorded and then undone${at}; nothing was paid now. ${balance}`,
  };
}

function formatUndoneAt(iso: string): string {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return '';
  const time = when.toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'Europe/London',
  });
  return ` at ${time}`;
}
