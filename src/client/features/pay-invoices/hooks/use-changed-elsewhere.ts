import { useCallback, useEffect, useRef, useState } from 'react';
import type { LiveInvoicesEvent } from '@/shared/live-events';
import { formatMoney, fromPence, roundPoundsToPence } from '@/shared/money';
import type { Invoice } from '@/shared/pay-invoices';
import { LIVE_INVOICES_EVENT } from '@/client/lib/live-events';
import { describeChangeElsewhere } from '../utils/changed-elsewhere';

/** How long after this browser's own payment or Undo a change of that invoice is taken as its own. */
const OWN_CHANGE_MS = 15_000;

const isOwnChange = (own: Map<string, number>, invoiceId: string) => (own.get(invoiceId) ?? 0) > Date.now();

interface Seen {
  invoiceId: string;
  invoiceNumber: string;
  amountDuePence: number;
  currency: string;
}

/**
 * Tells the user, in words, when the invoice on screen was paid or changed elsewhere (in Xero, or by another
 * Ledgerlink user), and holds back a payment against the balance the screen showed until the list has Xero's
 * new figures (issue 18). Live events say it first, with the payment's amount and method when Xero's answer
 * has them; a change of the amount due in the list says it when no event did.
 */
export function useChangedElsewhere(invoice: Invoice | null, invoices: readonly Invoice[]) {
  const [notice, setNotice] = useState<string | null>(null);
  /** A live event says the invoice on screen is now due this much; the list does not show it yet. */
  const [expected, setExpected] = useState<{ invoiceId: string; amountDuePence: number } | null>(null);
  const own = useRef(new Map<string, number>());
  const seen = useRef<Seen | null>(null);
  const current = useRef<Invoice | null>(invoice);
  useEffect(() => {
    current.current = invoice;
  }, [invoice]);

  useEffect(() => {
    const onEvent = (event: Event) => {
      const detail = (event as CustomEvent<LiveInvoicesEvent>).detail;
      const onScreen = current.current;
      if (!onScreen || !detail) return;
      const change = detail.invoices.find(
        (c) => c.invoiceId.toLowerCase() === onScreen.invoiceId.toLowerCase(),
      );
      if (!change) return;
      // This browser's own payments are in the cache before Xero's webhook arrives, so they are never "new"
      // here; a change without new payments just after our own payment or Undo is ours.
      if (change.newPayments.length === 0 && isOwnChange(own.current, onScreen.invoiceId)) return;
      const text = describeChangeElsewhere(change, new Set(), onScreen.currency);
      if (text) setNotice(`${onScreen.invoiceNumber}: ${text}`);
      if (roundPoundsToPence(onScreen.amountDue) !== change.after.amountDuePence)
        setExpected({ invoiceId: onScreen.invoiceId, amountDuePence: change.after.amountDuePence });
    };
    window.addEventListener(LIVE_INVOICES_EVENT, onEvent);
    return () => window.removeEventListener(LIVE_INVOICES_EVENT, onEvent);
  }, []);

  // The list changed under the invoice on screen: its amount due moved, or it left the list (paid in full).
  useEffect(() => {
    const before = seen.current;
    seen.current = invoice
      ? {
          invoiceId: invoice.invoiceId,
          invoiceNumber: invoice.invoiceNumber,
          amountDuePence: roundPoundsToPence(invoice.amountDue),
          currency: invoice.currency,
        }
      : null;
    if (!before || isOwnChange(own.current, before.invoiceId)) return;
    if (invoice && invoice.invoiceId === before.invoiceId) {
      const due = roundPoundsToPence(invoice.amountDue);
      if (due < before.amountDuePence) {
        setNotice(
          (shown) =>
            shown ??
            `${before.invoiceNumber}: Paid in Xero a moment ago: ${formatMoney(before.amountDuePence - due, before.currency)}; ${formatMoney(due, before.currency)} still due`,
        );
      } else if (due !== before.amountDuePence) {
        setNotice(
          (shown) =>
            shown ??
            `${before.invoiceNumber}: Changed in Xero a moment ago: ${formatMoney(due, before.currency)} now due`,
        );
      }
    } else if (!invoices.some((i) => i.invoiceId === before.invoiceId)) {
      setNotice(
        (shown) => shown ?? `${before.invoiceNumber}: Paid in Xero a moment ago: nothing left to pay`,
      );
    }
  }, [invoice, invoices]);

  const isStale =
    expected !== null &&
    invoice !== null &&
    invoice.invoiceId === expected.invoiceId &&
    roundPoundsToPence(invoice.amountDue) !== expected.amountDuePence;
  useEffect(() => {
    if (expected && !isStale) setExpected(null);
  }, [expected, isStale]);

  /** This browser is about to change the invoice (a payment, an Undo): that change is not "elsewhere". */
  const expectOwnChange = useCallback((invoiceId: string) => {
    own.current.set(invoiceId, Date.now() + OWN_CHANGE_MS);
  }, []);
  const dismiss = useCallback(() => setNotice(null), []);

  /**
   * The amount due a live event announced for the invoice on screen while the list still shows the old one: what
   * the user now types against, so the payment form clears for it once, at the event, and not again when the list
   * catches up (that would wipe an amount typed in between).
   */
  const announcedAmountDue = isStale && expected ? fromPence(expected.amountDuePence) : null;

  return { notice, isStale, announcedAmountDue, expectOwnChange, dismiss };
}
