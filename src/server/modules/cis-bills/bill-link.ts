import { hasWriteMark, writeMarkOf } from '../../ledger/index';

/**
 * Where a CIS bill written by Ledgerlink leaves its write's mark in Xero (decision 028): in Xero's
 * Invoice.Url, shown on the bill as "Go to Ledgerlink", a link back to CIS Bills that carries the mark; never
 * in the supplier's invoice number, which stays exactly as typed. Bills written before carry the mark in their
 * number (`0726 [LL-…]`), and are still recognised.
 */

/** The CIS Bills screen (the client's `paths.cisInvoices`). */
const CIS_BILLS_PATH = '/cis-invoices';
/** The query parameter of the link that carries the mark. */
const WRITE_PARAM = 'write';
const MARK_RE = /^LL-[0-9a-f]{10}$/;
const MARK_IN_TEXT_RE = /\[LL-[0-9a-f]{10}\]/;

/** What a finder reads of a bill Xero holds. */
export interface MarkedBillFacts {
  url?: string | null;
  invoiceNumber?: string | null;
}

/**
 * The Url of a bill written under `idempotencyKey`: `<APP_URL>/cis-invoices?write=LL-…`. `appUrl` is the
 * address people reach Ledgerlink on (APP_URL, without a trailing slash; a path in it is kept).
 */
export function billLinkOf(appUrl: string, idempotencyKey: string): string {
  return `${appUrl}${CIS_BILLS_PATH}?${WRITE_PARAM}=${writeMarkOf(idempotencyKey)}`;
}

/** The mark a bill's Url carries, or null. Only the parameter counts, so a move of APP_URL loses nothing. */
function markInLink(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const mark = new URL(url).searchParams.get(WRITE_PARAM);
    return mark && MARK_RE.test(mark) ? mark : null;
  } catch {
    return null;
  }
}

/** Whether the bill was made by the write under `idempotencyKey`: its Url carries the mark, or (older bills) its number. */
export function isBillOfWrite(bill: MarkedBillFacts, idempotencyKey: string): boolean {
  return (
    markInLink(bill.url) === writeMarkOf(idempotencyKey) || hasWriteMark(bill.invoiceNumber, idempotencyKey)
  );
}

/** Whether the bill carries any write's mark: it was made by a write of Ledgerlink's that its mark names. */
export function hasAnyBillMark(bill: MarkedBillFacts): boolean {
  return markInLink(bill.url) !== null || MARK_IN_TEXT_RE.test(bill.invoiceNumber ?? '');
}
