/**
 * What Ledgerlink knows of an invoice's payments. The invoice lists are read with Xero's `summaryOnly=true`
 * (docs/xero-api.md §4.1), which leaves the payments out, so a cached invoice may carry fewer payments than Xero
 * has; its AmountPaid is always Xero's. These rules tell a complete list from an incomplete one and, when a
 * change arrives, which of the payments Xero now lists are the new ones.
 */

export interface KnownPayment {
  paymentId: string;
  amountPence: number;
  date?: string | null;
}

/** True when the payments listed add up to what Xero says was paid: the list is then the whole of it. */
export function paymentsKnown(payments: readonly KnownPayment[], amountPaidPence: number): boolean {
  return payments.reduce((sum, p) => sum + p.amountPence, 0) === amountPaidPence;
}

/**
 * The payments Xero lists now that were not on the invoice before. With a complete list before, these are the
 * ones not known. With an incomplete one (the invoice was only read in summary), they are the newest unknown
 * payments that add up exactly to what the amount paid grew by; when no such run exists, none is named (the
 * screen then says the invoice changed, with its new balance, rather than naming a wrong payment).
 */
export function findNewPayments<P extends KnownPayment>(
  before: { payments: readonly KnownPayment[]; amountPaidPence: number },
  afterPayments: readonly P[],
): P[] {
  const known = new Set(before.payments.map((p) => p.paymentId.toLowerCase()));
  const unknown = afterPayments.filter((p) => !known.has(p.paymentId.toLowerCase()));
  if (paymentsKnown(before.payments, before.amountPaidPence)) return unknown;
  const afterPaid = afterPayments.reduce((sum, p) => sum + p.amountPence, 0);
  const grew = afterPaid - before.amountPaidPence;
  if (grew <= 0) return [];
  // Newest first: Xero lists a payment's date, not when it was entered; among one day's, the later in the list.
  const newestFirst = unknown
    .map((p, index) => ({ p, index }))
    .sort((a, b) => (b.p.date ?? '').localeCompare(a.p.date ?? '') || b.index - a.index)
    .map(({ p }) => p);
  const picked: P[] = [];
  let sum = 0;
  for (const p of newestFirst) {
    if (sum + p.amountPence > grew) break;
    picked.push(p);
    sum += p.amountPence;
    if (sum === grew) return picked.reverse();
  }
  return [];
}
