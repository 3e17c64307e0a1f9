/**
 * Pay Invoices contracts and rules (docs/product/features.md §2–§9 Pay Invoices; docs/architecture.md §4 Pay
 * Invoices).
 *
 * Money arrives as pounds (JSON numbers with 2 decimals) and every rule below converts to integer pence
 * before comparing or adding, so the 0.01 tolerance of docs/product/features.md §9 is an exact 1-penny
 * comparison.
 */
import { z } from 'zod';
import { addDays, compareIsoDates, documentDateSchema, isoDateSchema } from './dates';
import { XERO_ID_TOO_LONG_MESSAGE } from './input';
import {
  AMOUNT_TOLERANCE_PENCE,
  formatMoney,
  formatPenceAsDecimal,
  fromPence,
  moneyAmountSchema,
  parseAmountInput,
  positiveMoneySchema,
  roundPoundsToPence,
} from './money';
import type { UserMessage } from './user-message';

/** An attachment id equal to this means the attachments must be fetched (docs/product/features.md §3). */
export const PLACEHOLDER_ATTACHMENT_ID = 'placeholder';
/** Due-soon window, days (docs/product/features.md §9). */
export const DUE_SOON_DAYS = 7;

/** An invoice attachment (docs/product/features.md §3): attachmentId, name, mimeType, url. */
export const attachmentSchema = z.object({
  attachmentId: z.string().min(1),
  name: z.string(),
  mimeType: z.string(),
  url: z.string(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

/**
 * The answer of `GET /api/xero/invoices/{invoiceId}/attachments` (docs/product/features.md §7): an array of
 * attachments.
 */
export const attachmentListResponseSchema = z.array(attachmentSchema);
export type AttachmentListResponse = z.infer<typeof attachmentListResponseSchema>;

/**
 * An outstanding sales invoice (docs/product/features.md §3 "Invoice (Pay Invoices)"). Dates are
 * `YYYY-MM-DD`; money is pounds with 2 decimals. `status` is Xero's text: AUTHORISED, SENT or PARTIAL
 * (docs/architecture.md §4).
 */
export const invoiceSchema = z.object({
  invoiceId: z.string().min(1),
  invoiceNumber: z.string(),
  contactName: z.string(),
  date: isoDateSchema,
  dueDate: isoDateSchema.nullable(),
  status: z.string(),
  totalAmount: moneyAmountSchema,
  amountDue: moneyAmountSchema,
  currency: z.string().min(1).default('GBP'),
  attachments: z.array(attachmentSchema).default([]),
});
export type Invoice = z.infer<typeof invoiceSchema>;

/** The answer of `GET /api/xero/invoices` (docs/product/features.md §7): the invoice list. */
export const invoiceListResponseSchema = z.array(invoiceSchema);

/**
 * How complete the list is (issue 19). A first visit is answered once Xero's first page is in; the rest is read
 * on the server in the background, and every answer says how far it has got. It travels in the
 * `X-Invoices-Sync` header as JSON, because the body stays the spec's invoice list (docs/product/features.md
 * §7): `{complete, fetched, total}`, total being Xero's count when it gave one.
 */
export const INVOICES_SYNC_HEADER = 'x-invoices-sync';
export const invoiceSyncStatusSchema = z.object({
  complete: z.boolean(),
  fetched: z.number().int().min(0),
  total: z.number().int().min(0).nullable(),
});
export type InvoiceSyncStatus = z.infer<typeof invoiceSyncStatusSchema>;

/** Reads the header's value; an absent or unreadable one means a complete list (a server without issue 19). */
export function parseInvoiceSyncHeader(value: string | null | undefined): InvoiceSyncStatus {
  const complete: InvoiceSyncStatus = { complete: true, fetched: 0, total: null };
  if (!value) return complete;
  try {
    const parsed = invoiceSyncStatusSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : complete;
  } catch {
    return complete;
  }
}

/**
 * Body of `POST /api/xero/invoices/refresh` (docs/product/features.md §7): none for a force refresh,
 * `{invoiceId}` for one invoice.
 */
export const invoiceRefreshRequestSchema = z
  .object({ invoiceId: z.string().min(1).max(100, XERO_ID_TOO_LONG_MESSAGE).optional() })
  .strict();

/** Answer of a force refresh (docs/product/features.md §7 "force refresh returns count"). */
export const forceRefreshResponseSchema = z.object({
  count: z.number().int().min(0),
  message: z.string().optional(),
});
export type ForceRefreshResponse = z.infer<typeof forceRefreshResponseSchema>;

/** A payment already made on an invoice, as listed in an invoice refresh result. */
export const invoicePaymentSchema = z.object({
  paymentId: z.string().min(1),
  date: isoDateSchema,
  amount: moneyAmountSchema,
  reference: z.string().nullish(),
  accountId: z.string().nullish(),
});

/**
 * Invoice refresh result (docs/product/features.md §3): message, invoice, payments. The invoice is null when
 * it is gone.
 */
export const invoiceRefreshResultSchema = z.object({
  message: z.string(),
  invoice: invoiceSchema.nullable(),
  payments: z.array(invoicePaymentSchema),
});
export type InvoiceRefreshResult = z.infer<typeof invoiceRefreshResultSchema>;

/**
 * A bank account usable for payments (docs/product/features.md §3): accountId, name, bankAccountNumber (""
 * when Xero has none).
 */
export const bankAccountSchema = z.object({
  accountId: z.string().min(1),
  name: z.string(),
  bankAccountNumber: z.string().default(''),
});
export type BankAccount = z.infer<typeof bankAccountSchema>;

/**
 * Bank accounts (docs/product/features.md §3; docs/product/shell.md §7 `GET /api/xero/bank-accounts`):
 * creditCardAccounts and cashAccounts.
 */
export const bankAccountsResponseSchema = z.object({
  creditCardAccounts: z.array(bankAccountSchema),
  cashAccounts: z.array(bankAccountSchema),
});
export type BankAccountsResponse = z.infer<typeof bankAccountsResponseSchema>;

/**
 * Duplicate bank account clean-up result (docs/product/features.md §3; docs/product/shell.md §7):
 * deletedCount.
 */
export const bankAccountsCleanupResponseSchema = z.object({ deletedCount: z.number().int().min(0) });
export type BankAccountsCleanupResponse = z.infer<typeof bankAccountsCleanupResponseSchema>;

/**
 * Old data clean-up result (docs/product/features.md §3; docs/product/shell.md §7): deletedInvoices and
 * deletedPayments.
 */
export const dataCleanupResponseSchema = z.object({
  deletedInvoices: z.number().int().min(0),
  deletedPayments: z.number().int().min(0),
});
export type DataCleanupResponse = z.infer<typeof dataCleanupResponseSchema>;

/**
 * One payment (docs/product/features.md §3 "Payment request item"; body of `POST /api/xero/payments`,
 * docs/product/features.md §7): invoiceId, invoiceNumber, accountId, amount, reference, isCard, date (date
 * part only).
 */
export const paymentRequestSchema = z
  .object({
    // Xero's limits (its OpenAPI file: InvoiceNumber at most 255 characters; ids are GUIDs): a longer text is
    // refused here rather than recorded in the ledger and sent (issue 28).
    invoiceId: z.string().min(1).max(100, XERO_ID_TOO_LONG_MESSAGE),
    invoiceNumber: z.string().max(255, 'Invoice number must be 255 characters or fewer'),
    accountId: z.string().min(1).max(100, XERO_ID_TOO_LONG_MESSAGE),
    amount: positiveMoneySchema,
    reference: z.string().max(255, 'Reference must be 255 characters or fewer'),
    isCard: z.boolean(),
    date: documentDateSchema(),
  })
  .strict();
export type PaymentRequest = z.infer<typeof paymentRequestSchema>;

/** Answer of `POST /api/xero/payments` (docs/product/features.md §3, §7): isInvoiceFullyPaid. */
export const paymentResponseSchema = z.object({ isInvoiceFullyPaid: z.boolean() });

// The one message shape of every feature's rules (user-message.ts), re-exported for this area's callers.
export type { UserMessage } from './user-message';

/**
 * Receivable invoices awaiting payment (docs/product/features.md §4): "amountDue > 0, and status
 * (upper-cased) contains AUTHORISED, SENT or PARTIAL and does not contain BILL".
 */
export function isInvoiceAwaitingPayment(invoice: Pick<Invoice, 'amountDue' | 'status'>): boolean {
  const status = invoice.status.toUpperCase();
  return (
    roundPoundsToPence(invoice.amountDue) > 0 &&
    ['AUTHORISED', 'SENT', 'PARTIAL'].some((s) => status.includes(s)) &&
    !status.includes('BILL')
  );
}

/** "A balance of 0.01 or less is fully paid" (docs/product/features.md §4, §9), in pence. */
export function isBalanceFullyPaid(balancePence: number): boolean {
  return balancePence <= AMOUNT_TOLERANCE_PENCE;
}

/**
 * Whether an amount counts as a payment: only amounts above 0.01 produce a payment item
 * (docs/product/features.md §5).
 */
export function isPayableAmount(amountPence: number): boolean {
  return amountPence > AMOUNT_TOLERANCE_PENCE;
}

/**
 * Auto-fill (docs/product/features.md §4): "Card amount typing auto-fills cash with the remainder of the
 * amount due (0.00 if it exceeds the amount due), and vice versa." Given the amount due and the text just
 * typed in one box, returns the text for the other box, with 2 decimals. Empty or unparsable typing counts as
 * 0.
 */
export function getAutoFillAmount(amountDue: number, typedAmount: string): string {
  const remainder = roundPoundsToPence(amountDue) - parseAmountInput(typedAmount);
  return formatPenceAsDecimal(remainder > 0 ? remainder : 0);
}

/**
 * Totals of the payment allocation (docs/product/features.md §2 "Remaining Balance and Total Allocated"), in
 * pence.
 */
export interface Allocation {
  cardPence: number;
  cashPence: number;
  totalAllocatedPence: number;
  remainingBalancePence: number;
}

/**
 * Total allocated = card + cash; "Remaining balance = amountDue minus total allocated"
 * (docs/product/features.md §4).
 */
export function getAllocation(amountDue: number, cardAmount: string, cashAmount: string): Allocation {
  const cardPence = parseAmountInput(cardAmount);
  const cashPence = parseAmountInput(cashAmount);
  const totalAllocatedPence = cardPence + cashPence;
  return {
    cardPence,
    cashPence,
    totalAllocatedPence,
    remainingBalancePence: roundPoundsToPence(amountDue) - totalAllocatedPence,
  };
}

/**
 * "The Process Payments button is disabled while total allocated is 0 or less" (docs/product/features.md §5).
 */
export function canProcessPayments(allocation: Pick<Allocation, 'totalAllocatedPence'>): boolean {
  return allocation.totalAllocatedPence > 0;
}

/** What the user entered on the Pay Invoices screen, as checked before processing. */
interface PaymentForm {
  invoice: Pick<Invoice, 'amountDue' | 'currency'> | null | undefined;
  cardAmount: string;
  cashAmount: string;
  cardAccountId: string | null | undefined;
  cashAccountId: string | null | undefined;
}

/**
 * The checks run on Process Payments, in the order of docs/product/features.md §5, with its exact texts.
 * Returns the first failing message, or null when the payments may be sent.
 */
export function validatePaymentForm(form: PaymentForm): UserMessage | null {
  if (!form.invoice) {
    return { title: 'No Invoice', description: 'Cannot process payments: no invoice is selected' };
  }
  const { cardPence, cashPence, totalAllocatedPence } = getAllocation(
    form.invoice.amountDue,
    form.cardAmount,
    form.cashAmount,
  );
  const duePence = roundPoundsToPence(form.invoice.amountDue);
  const currency = form.invoice.currency;
  const limit = duePence + AMOUNT_TOLERANCE_PENCE;
  if (isPayableAmount(cardPence) && !form.cardAccountId) {
    return {
      title: 'Missing Credit Card Account',
      description: 'Please select a credit card account before processing payment',
    };
  }
  if (isPayableAmount(cashPence) && !form.cashAccountId) {
    return {
      title: 'Missing Cash Account',
      description: 'Please select a cash account before processing payment',
    };
  }
  if (totalAllocatedPence > limit) {
    return {
      title: 'Payment Amount Exceeds Balance',
      description: `Total payment amount (${formatMoney(totalAllocatedPence, currency)}) exceeds the amount due (${formatMoney(duePence, currency)})`,
    };
  }
  if (cardPence > limit) {
    return {
      title: 'Card Payment Exceeds Balance',
      description: `Card payment amount (${formatMoney(cardPence, currency)}) exceeds the amount due (${formatMoney(duePence, currency)})`,
    };
  }
  if (cashPence > limit) {
    return {
      title: 'Cash Payment Exceeds Balance',
      description: `Cash payment amount (${formatMoney(cashPence, currency)}) exceeds the amount due (${formatMoney(duePence, currency)})`,
    };
  }
  if (!isPayableAmount(cardPence) && !isPayableAmount(cashPence)) {
    return {
      title: 'No Payment Amount',
      description: 'Please enter at least one payment amount greater than £0',
    };
  }
  return null;
}

/**
 * Payment reference (docs/product/features.md §3): 'Card payment for {invoiceNumber}' or 'Cash payment for
 * {invoiceNumber}'.
 */
export function getPaymentReference(invoiceNumber: string, isCard: boolean): string {
  return isCard ? `Card payment for ${invoiceNumber}` : `Cash payment for ${invoiceNumber}`;
}

/**
 * The payment items to send, card first then cash (docs/product/features.md §5 "Only amounts above 0.01
 * produce a payment item (one card, one cash)"). Call after {@link validatePaymentForm} passed; `date` is
 * today's UK date.
 */
export function buildPaymentRequests(
  invoice: Pick<Invoice, 'invoiceId' | 'invoiceNumber'>,
  form: Pick<PaymentForm, 'cardAmount' | 'cashAmount' | 'cardAccountId' | 'cashAccountId'>,
  date: string,
): PaymentRequest[] {
  const items: PaymentRequest[] = [];
  const entries = [
    { isCard: true, pence: parseAmountInput(form.cardAmount), accountId: form.cardAccountId },
    { isCard: false, pence: parseAmountInput(form.cashAmount), accountId: form.cashAccountId },
  ];
  for (const entry of entries) {
    if (!isPayableAmount(entry.pence) || !entry.accountId) continue;
    items.push({
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: entry.accountId,
      amount: fromPence(entry.pence),
      reference: getPaymentReference(invoice.invoiceNumber, entry.isCard),
      isCard: entry.isCard,
      date,
    });
  }
  return items;
}

/**
 * Default accounts (docs/product/features.md §4): "the saved credit card default if present in the lists,
 * else the first credit card account, else the first cash account; the cash default likewise, starting with
 * cash accounts".
 */
export function chooseDefaultAccounts(
  accounts: BankAccountsResponse,
  defaults: { defaultCreditCardAccountId?: string | null; defaultCashAccountId?: string | null },
): { cardAccountId: string | null; cashAccountId: string | null } {
  const all = [...accounts.creditCardAccounts, ...accounts.cashAccounts];
  const isKnown = (id: string | null | undefined): id is string =>
    !!id && all.some((a) => a.accountId === id);
  const firstCard = accounts.creditCardAccounts[0]?.accountId ?? null;
  // Beyond the spec's "first cash account": one named like cash (e.g. "Cash", "Petty Cash", "Cash in Till")
  // comes before a current account listed first (issue 17 item 18).
  const firstCash =
    (accounts.cashAccounts.find((a) => /\bcash\b/i.test(a.name)) ?? accounts.cashAccounts[0])?.accountId ??
    null;
  return {
    cardAccountId: isKnown(defaults.defaultCreditCardAccountId)
      ? defaults.defaultCreditCardAccountId
      : (firstCard ?? firstCash),
    cashAccountId: isKnown(defaults.defaultCashAccountId)
      ? defaults.defaultCashAccountId
      : (firstCash ?? firstCard),
  };
}

/** Sort options of docs/product/features.md §9; the first is the default ("date oldest first (default)"). */
export const INVOICE_SORT_OPTIONS = [
  'date-asc',
  'date-desc',
  'number-asc',
  'number-desc',
  'amount-asc',
  'amount-desc',
] as const;
export const invoiceSortSchema = z.enum(INVOICE_SORT_OPTIONS);
export type InvoiceSort = z.infer<typeof invoiceSortSchema>;
export const DEFAULT_INVOICE_SORT: InvoiceSort = 'date-asc';

/**
 * Invoice number for sorting: "digits only compared, 0 if none" (docs/product/features.md §9). "INV-0012" →
 * 12.
 */
export function getInvoiceNumberValue(invoiceNumber: string): number {
  const digits = invoiceNumber.replace(/\D/g, '');
  return digits === '' ? 0 : Number(digits);
}

/**
 * Sort invoices by one of the options of docs/product/features.md §9 (a new array). Amount sorts compare the
 * amount due (what the screen pays and what the amount filter compares). Ties keep their order.
 */
export function sortInvoices<T extends Pick<Invoice, 'date' | 'invoiceNumber' | 'amountDue'>>(
  invoices: readonly T[],
  sort: InvoiceSort = DEFAULT_INVOICE_SORT,
): T[] {
  const compare = (a: T, b: T): number => {
    switch (sort) {
      case 'date-asc':
        return compareIsoDates(a.date, b.date);
      case 'date-desc':
        return compareIsoDates(b.date, a.date);
      case 'number-asc':
        return getInvoiceNumberValue(a.invoiceNumber) - getInvoiceNumberValue(b.invoiceNumber);
      case 'number-desc':
        return getInvoiceNumberValue(b.invoiceNumber) - getInvoiceNumberValue(a.invoiceNumber);
      case 'amount-asc':
        return roundPoundsToPence(a.amountDue) - roundPoundsToPence(b.amountDue);
      case 'amount-desc':
        return roundPoundsToPence(b.amountDue) - roundPoundsToPence(a.amountDue);
    }
  };
  return [...invoices].sort(compare);
}

/**
 * Status filter values (docs/product/features.md §2): All Outstanding, Overdue, Due Soon (7 days); default
 * all (docs/product/features.md §9).
 */
export const invoiceStatusFilterSchema = z.enum(['all', 'overdue', 'due-soon']);
export type InvoiceStatusFilter = z.infer<typeof invoiceStatusFilterSchema>;

/**
 * The filter panel of docs/product/features.md §2: date range, amount range (pounds text) and status. Empty
 * means no bound.
 */
export interface InvoiceFilters {
  startDate?: string | null;
  endDate?: string | null;
  minAmount?: string | null;
  maxAmount?: string | null;
  status?: InvoiceStatusFilter;
}

/**
 * Search (docs/product/features.md §2): "matching invoice number or contact name, case-insensitive".
 */
export function matchesInvoiceSearch(
  invoice: Pick<Invoice, 'invoiceNumber' | 'contactName'>,
  search: string,
): boolean {
  const needle = search.trim().toLowerCase();
  if (needle === '') return true;
  return (
    invoice.invoiceNumber.toLowerCase().includes(needle) || invoice.contactName.toLowerCase().includes(needle)
  );
}

/**
 * Filters (docs/product/features.md §5): "date range compares invoice date; amount range compares amountDue;
 * overdue means dueDate before now; due-soon means dueDate between now and 7 days ahead". Dates are UK
 * calendar days, bounds inclusive; `today` is the UK date.
 */
export function matchesInvoiceFilters(
  invoice: Pick<Invoice, 'date' | 'dueDate' | 'amountDue'>,
  filters: InvoiceFilters,
  today: string,
): boolean {
  if (filters.startDate && invoice.date < filters.startDate) return false;
  if (filters.endDate && invoice.date > filters.endDate) return false;
  const due = roundPoundsToPence(invoice.amountDue);
  if (filters.minAmount && filters.minAmount.trim() !== '' && due < parseAmountInput(filters.minAmount))
    return false;
  if (filters.maxAmount && filters.maxAmount.trim() !== '' && due > parseAmountInput(filters.maxAmount))
    return false;
  const status = filters.status ?? 'all';
  if (status === 'overdue') return invoice.dueDate !== null && invoice.dueDate < today;
  if (status === 'due-soon') {
    return (
      invoice.dueDate !== null && invoice.dueDate >= today && invoice.dueDate <= addDays(today, DUE_SOON_DAYS)
    );
  }
  return true;
}

/**
 * The list the screen walks through: awaiting-payment invoices (docs/product/features.md §4) matching search
 * and filters, sorted (docs/product/features.md §9).
 */
export function findInvoicesToPay<T extends Invoice>(
  invoices: readonly T[],
  options: { search?: string; filters?: InvoiceFilters; sort?: InvoiceSort; today: string },
): T[] {
  const matching = invoices.filter(
    (invoice) =>
      isInvoiceAwaitingPayment(invoice) &&
      matchesInvoiceSearch(invoice, options.search ?? '') &&
      matchesInvoiceFilters(invoice, options.filters ?? {}, options.today),
  );
  return sortInvoices(matching, options.sort);
}

/**
 * Whether the first attachment is the placeholder, so attachments must be fetched
 * (docs/product/features.md §3, §4).
 */
export function needsAttachmentFetch(
  attachments: readonly Pick<Attachment, 'attachmentId'>[] | null | undefined,
): boolean {
  return attachments?.[0]?.attachmentId === PLACEHOLDER_ATTACHMENT_ID;
}

/**
 * Server-side check of one payment against the invoice's current amount due (docs/architecture.md §4: refuse
 * amounts above the amount due plus 0.01 with messages containing "exceeds the invoice balance" / "already
 * fully paid", which the client maps to 'Invoice Data Out of Sync', docs/product/features.md §8). Null when
 * the payment is allowed.
 */
export function checkPaymentAgainstBalance(
  amountPence: number,
  amountDuePence: number,
  currency = 'GBP',
): string | null {
  if (isBalanceFullyPaid(amountDuePence)) return 'Invoice is already fully paid';
  if (amountPence > amountDuePence + AMOUNT_TOLERANCE_PENCE) {
    return `Payment of ${formatMoney(amountPence, currency)} exceeds the invoice balance of ${formatMoney(amountDuePence, currency)}`;
  }
  return null;
}

/**
 * Whether a payment error message means the invoice data is out of sync (docs/product/features.md §8): the
 * words of {@link checkPaymentAgainstBalance} and Xero's "validation failed". The client's toast rests on it.
 */
export function isOutOfSyncPaymentError(message: string | null | undefined): boolean {
  const text = (message ?? '').toLowerCase();
  return ['already fully paid', 'exceeds the invoice balance', 'validation failed'].some((s) =>
    text.includes(s),
  );
}

/**
 * Pause between consecutive payments, ms (docs/product/features.md §4, §9 "Pause between consecutive payments
 * 0.5 s").
 */
export const PAYMENT_PAUSE_MS = 500;

/**
 * Whether to stop sending the remaining payments after a refresh (docs/product/features.md §4 "If refreshed
 * amountDue is 0.01 or less, remaining payments are skipped and the invoice is treated as fully paid").
 */
export function shouldSkipRemainingPayments(refreshedAmountDue: number): boolean {
  return isBalanceFullyPaid(roundPoundsToPence(refreshedAmountDue));
}

/**
 * How long the user who made a payment can take it back from the success banner (beyond the spec: an Undo
 * that deletes the payment in Xero). Short on purpose: it is for "wrong account / wrong amount, just now",
 * not a way to edit history; older payments are reversed in Xero itself.
 */
export const PAYMENT_UNDO_WINDOW_MS = 2 * 60_000;

/**
 * The answer of `POST /api/xero/payments`: the spec's `isInvoiceFullyPaid` (docs/product/features.md §3),
 * plus what Ledgerlink adds for the banner and the Undo: Xero's id for the payment, the invoice's amount due
 * after it, and until when the payment can be undone.
 */
export const paymentResultSchema = paymentResponseSchema.extend({
  paymentId: z.string().min(1),
  amountDue: moneyAmountSchema,
  undoableUntil: z.string(),
  /**
   * A same-key resend of a payment undone since (issue 28): the payment is gone from Xero, `amountDue` is the
   * balance now, and `undoableUntil` is when it was undone (nothing is left to undo).
   */
  undone: z.literal(true).optional(),
});
export type PaymentResult = z.infer<typeof paymentResultSchema>;

/** The answer of `POST /api/xero/payments/{paymentId}/undo`: the invoice's amount due once the payment is gone. */
export const paymentUndoResultSchema = z.object({
  message: z.string(),
  invoiceId: z.string().min(1),
  amountDue: moneyAmountSchema,
});
export type PaymentUndoResult = z.infer<typeof paymentUndoResultSchema>;
