import { formatMoney } from './money';

/**
 * The redo warning (issue 44 item 4): for a day after a database restore, a payment, a new invoice or a CIS bill
 * made under a key Ledgerlink does not know is first compared with what Xero holds. When Xero already has one
 * like it that Ledgerlink's restored records do not (the screen lost the person's work, and they are doing it
 * again), the server answers 409 with the suspects instead of sending it; the screen shows them and the person
 * chooses to go on, sent again with the same Idempotency-Key and this header. Zod-free: the screens read it.
 */
export const REDO_CONFIRM_HEADER = 'x-confirm-redo';
/** The header's value when the person chose to go on. */
export const REDO_CONFIRMED = 'yes';

/** What Xero already has, one per suspected duplicate. */
export interface RedoSuspect {
  kind: 'payment' | 'invoice' | 'bill';
  /** Xero's id of what it already has. */
  xeroId: string;
  /** When Xero created it (ISO), or null when Xero did not say. */
  createdAt: string | null;
  /** One sentence, ready to show: "Xero already has a bill from … created 10 minutes ago". */
  message: string;
}

/** The 409's extra field. */
export interface RedoWarningAnswer {
  redo: RedoSuspect[];
}

/** How long ago, in words: "just now", "10 minutes ago", "2 hours ago", "3 days ago". */
export function describeAge(thenMs: number, nowMs: number): string {
  const minutes = Math.floor(Math.max(0, nowMs - thenMs) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  const days = Math.floor(hours / 24);
  return `${days} days ago`;
}

const created = (createdAt: string | null, nowMs: number) =>
  createdAt ? `, created ${describeAge(Date.parse(createdAt), nowMs)}` : '';

/**
 * "Xero already has a bill from R. Singh Tiling with reference 3726 for £500.00 (£350.00 after the CIS deduction),
 * created 10 minutes ago". `totalPence` is the bill as the person entered it and the CIS Bills screen totals it
 * (labour, materials and VAT, before the deduction); a bill with a deduction also says what Xero totals it, as its
 * deduction line leaves it (issue 42), so the person can find it in Xero.
 */
export function describeBillRedo(
  bill: {
    contactName: string;
    reference: string;
    totalPence: number;
    /** The CIS deduction the bill carries as a line of its own; 0 or absent for none. */
    deductionPence?: number;
    createdAt: string | null;
  },
  nowMs: number,
): string {
  const reference = bill.reference ? ` with reference ${bill.reference}` : ' with no reference';
  const deduction = bill.deductionPence ?? 0;
  const net = deduction > 0 ? ` (${formatMoney(bill.totalPence - deduction)} after the CIS deduction)` : '';
  return `Xero already has a bill from ${bill.contactName}${reference} for ${formatMoney(bill.totalPence)}${net}${created(bill.createdAt, nowMs)}`;
}

/** "Xero already has a payment of £12.34 on INV-0042, created 10 minutes ago" */
export function describePaymentRedo(
  payment: { invoiceNumber: string; amountPence: number; createdAt: string | null },
  nowMs: number,
): string {
  return `Xero already has a payment of ${formatMoney(payment.amountPence)} on ${payment.invoiceNumber}${created(payment.createdAt, nowMs)}`;
}

/** "Xero already has invoice INV-0107 to Daily Sales dated 28 Nov 2026 for £40.00 (£5.00 paid), created 3 minutes ago" */
export function describeInvoiceRedo(
  invoice: {
    invoiceNumber: string | null;
    contactName: string;
    date: string;
    totalPence: number;
    paidPence: number;
    createdAt: string | null;
  },
  nowMs: number,
): string {
  const number = invoice.invoiceNumber ? `invoice ${invoice.invoiceNumber}` : 'an invoice';
  const day = new Date(`${invoice.date}T12:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const paid = invoice.paidPence > 0 ? ` (${formatMoney(invoice.paidPence)} paid)` : '';
  return `Xero already has ${number} to ${invoice.contactName} dated ${day} for ${formatMoney(invoice.totalPence)}${paid}${created(invoice.createdAt, nowMs)}`;
}

/** The suspects of a redo warning in an error answer's body, or [] when it is not one. */
export function redoSuspectsOf(body: unknown): RedoSuspect[] {
  const redo = body && typeof body === 'object' ? (body as Partial<RedoWarningAnswer>).redo : undefined;
  if (!Array.isArray(redo)) return [];
  return redo.filter(
    (s): s is RedoSuspect =>
      Boolean(s) && typeof s === 'object' && typeof (s as RedoSuspect).message === 'string',
  );
}
