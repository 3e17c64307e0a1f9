/**
 * Add Invoices contracts and rules (docs/product/features.md §2–§9 Add Invoices; docs/architecture.md §4 Add
 * Invoices: "cash amount" is the part of the invoice taken in cash, recorded as a payment to the default cash
 * account).
 */
import { z } from 'zod';
import { compareIsoDates, documentDateSchema, isIsoDate, isoDateSchema } from './dates';
import { XERO_ID_TOO_LONG_MESSAGE } from './input';
import {
  findPence,
  nonNegativeMoneySchema,
  parseAmountInput,
  positiveMoneySchema,
  roundPoundsToPence,
  toPence,
} from './money';
import type { UserMessage } from './user-message';

/** docs/product/features.md §5 new-invoice texts, shared by the form and the server's 400 answers. */
export const NEW_INVOICE_DATE_MESSAGE = 'Please enter a date for the invoice';
export const NEW_INVOICE_AMOUNT_MESSAGE = 'Please enter a valid amount greater than 0';

// The one message shape of every feature's rules (user-message.ts), re-exported for this area's callers.
export type { UserMessage } from './user-message';

/**
 * Organisation id (docs/product/shell.md §5, docs/product/features.md §5): "Organization IDs must be
 * non-empty strings, else 'Invalid organization ID'". The web client also passes the numeric id
 * (docs/product/shell.md §7), so a positive integer is accepted.
 */
export const organizationIdSchema = z.union(
  [
    z.string().trim().min(1, 'Invalid organization ID').max(20, 'Invalid organization ID'),
    z.number().int().positive('Invalid organization ID'),
  ],
  { error: 'Invalid organization ID' },
);

/**
 * A draft sales invoice (docs/product/features.md §3 "Draft invoice row (server): id, invoiceNumber,
 * contactName, date, totalAmount (number), currency"). `pendingCashAmount` is the cash recorded in Ledgerlink
 * for a draft that is not yet approved (docs/architecture.md §4), 0 when none.
 */
export const draftInvoiceSchema = z.object({
  id: z.string().min(1),
  invoiceNumber: z.string(),
  contactName: z.string(),
  date: isoDateSchema,
  totalAmount: nonNegativeMoneySchema,
  currency: z.string().min(1).default('GBP'),
  pendingCashAmount: nonNegativeMoneySchema.default(0),
});
export type DraftInvoice = z.infer<typeof draftInvoiceSchema>;

/** Answer of `GET /api/xero/draft-invoices` (docs/product/features.md §7): the list of draft invoices. */
export const draftInvoiceListResponseSchema = z.array(draftInvoiceSchema);

/**
 * A draft row as the client holds it (docs/product/features.md §3 "Client adds cashAmount (text), approve
 * (boolean), processing").
 */
export interface DraftInvoiceRow extends DraftInvoice {
  cashAmount: string;
  approve: boolean;
  processing: boolean;
}

/** A fresh client row for a draft invoice: no cash typed, not approved, not processing. */
export function createDraftInvoiceRow(invoice: DraftInvoice): DraftInvoiceRow {
  return { ...invoice, cashAmount: '', approve: false, processing: false };
}

/** One item of the update request (docs/product/features.md §7): `{id, cashAmount (number), approve}`. */
export const draftInvoiceUpdateItemSchema = z
  .object({
    id: z.string().min(1).max(100, XERO_ID_TOO_LONG_MESSAGE),
    cashAmount: nonNegativeMoneySchema,
    approve: z.boolean(),
    /**
     * The pending cash the screen showed for this draft when the change was made (issue 28): when it is
     * no longer the pending cash, someone else changed it meanwhile and the change is refused (409), not
     * applied over it. Optional, so older screens keep working (their change takes the pending cash as it is).
     */
    pendingCashSeen: nonNegativeMoneySchema.optional(),
  })
  .strict();
export type DraftInvoiceUpdateItem = z.infer<typeof draftInvoiceUpdateItemSchema>;

/** Most invoices one update request may carry (a bound for the server, not from the spec). */
export const MAX_UPDATE_ITEMS = 500;

/**
 * Body of `POST /api/xero/draft-invoices/update` (docs/product/features.md §7):
 * `{invoices:[{id, cashAmount, approve}], organizationId}`, organizationId sent by Process All only. Each
 * invoice id appears once.
 */
export const draftInvoiceUpdateRequestSchema = z
  .object({
    invoices: z
      .array(draftInvoiceUpdateItemSchema)
      .min(1)
      .max(MAX_UPDATE_ITEMS)
      .refine(
        (items) => new Set(items.map((i) => i.id)).size === items.length,
        'Each invoice may appear only once',
      ),
    organizationId: organizationIdSchema.optional(),
  })
  .strict();
export type DraftInvoiceUpdateRequest = z.infer<typeof draftInvoiceUpdateRequestSchema>;

/**
 * One invoice the update could not process, with the reason. `approved` says Xero approved it but its cash
 * payment of `unrecordedCashAmount` was not recorded (`cashOutcome` 'not-recorded': Xero refused it or it was
 * not sent) or not confirmed ('unconfirmed': no clear answer, Ledgerlink checks with Xero): the invoice has
 * left the drafts and its cash is paid on Pay Invoices (issue 17 item 3).
 */
export const draftInvoiceFailureSchema = z.object({
  id: z.string(),
  message: z.string(),
  approved: z.boolean().optional(),
  unrecordedCashAmount: nonNegativeMoneySchema.optional(),
  cashOutcome: z.enum(['not-recorded', 'unconfirmed']).optional(),
  /** Refused because someone else acted on the draft first (issue 28): the list is read again. */
  conflict: z.boolean().optional(),
});
export type DraftInvoiceFailure = z.infer<typeof draftInvoiceFailureSchema>;

/**
 * Answer of the update (docs/product/features.md §7 "Process All returns processed (count)"). `failed` lists
 * the invoices that were not processed, so a partial failure keeps what succeeded (issue 8).
 */
export const draftInvoiceUpdateResponseSchema = z.object({
  processed: z.number().int().min(0),
  failed: z.array(draftInvoiceFailureSchema).default([]),
});
export type DraftInvoiceUpdateResponse = z.infer<typeof draftInvoiceUpdateResponseSchema>;

/**
 * A change this user made on Add Invoices that Ledgerlink could not finish on its own (issue 28): a step of
 * it (an approval whose outcome is not known, a cash payment Xero refused after the approval) waits for an
 * administrator under Admin → Needs review. Answered by `GET /api/xero/draft-invoices/unfinished`.
 */
export const unfinishedDraftActionSchema = z.object({
  writeId: z.number().int(),
  invoiceId: z.string().nullable(),
  invoiceNumber: z.string(),
  message: z.string(),
});
export type UnfinishedDraftAction = z.infer<typeof unfinishedDraftActionSchema>;
export const unfinishedDraftActionsSchema = z.array(unfinishedDraftActionSchema);

/**
 * Body of `POST /api/xero/draft-invoices/create` (docs/product/features.md §7):
 * `{date, totalAmount, cashAmount, approve}`. Total above 0 (docs/product/features.md §5); cash 0 or more
 * and, since it is paid against this invoice, not above the total.
 */
export const draftInvoiceCreateRequestSchema = z
  .object({
    // The server answers with the docs/product/features.md §5 texts, the same the form shows.
    date: documentDateSchema(NEW_INVOICE_DATE_MESSAGE),
    totalAmount: z
      .number({ error: NEW_INVOICE_AMOUNT_MESSAGE })
      .refine((v) => v > 0, NEW_INVOICE_AMOUNT_MESSAGE)
      .pipe(positiveMoneySchema),
    cashAmount: nonNegativeMoneySchema.default(0),
    approve: z.boolean(),
  })
  .strict()
  .refine((body) => (findPence(body.cashAmount) ?? 0) <= (findPence(body.totalAmount) ?? Infinity), {
    message: 'Cash amount cannot be more than the invoice total',
    path: ['cashAmount'],
  });
export type DraftInvoiceCreateRequest = z.infer<typeof draftInvoiceCreateRequestSchema>;

/**
 * Answer of the create call (docs/product/features.md §7): `{invoiceNumber}`. `warning` is set when the
 * invoice was created but its cash payment was not (the invoice exists in Xero either way, so this is not an
 * error answer).
 */
export const draftInvoiceCreateResponseSchema = z.object({
  invoiceNumber: z.string(),
  warning: z.string().optional(),
});
export type DraftInvoiceCreateResponse = z.infer<typeof draftInvoiceCreateResponseSchema>;

/** A default the New Invoice row uses, as named in Settings; null when not set or not found in Xero. */
const namedDefaultSchema = z.object({ id: z.string(), name: z.string() }).nullable();

/**
 * Answer of `GET /api/xero/draft-invoices/defaults` (Ledgerlink's own call, not in
 * docs/product/features.md §7): the defaults the New Invoice row shows and needs (docs/product/features.md §2
 * "a default contact display"; docs/product/features.md §5 the row is disabled without a default contact or
 * sales account), with the names of what is missing so the screen can say what to set.
 */
export const newInvoiceDefaultsSchema = z.object({
  contact: namedDefaultSchema,
  salesAccount: namedDefaultSchema,
  vatRate: namedDefaultSchema,
  cashAccount: namedDefaultSchema,
  taxStatus: z.string(),
  /** Settings labels of the defaults the New Invoice row cannot work without (contact, sales account). */
  missing: z.array(z.string()),
});
export type NewInvoiceDefaults = z.infer<typeof newInvoiceDefaultsSchema>;

/**
 * The New Invoice form (docs/product/features.md §3): date (yyyy-MM-dd), totalAmount, cashAmount, approve;
 * amounts as typed.
 */
export interface NewInvoiceForm {
  date: string;
  totalAmount: string;
  cashAmount: string;
  approve: boolean;
}

/** The form after a create: date today, amounts empty, approve false (docs/product/features.md §4). */
export function createNewInvoiceForm(today: string): NewInvoiceForm {
  return { date: today, totalAmount: '', cashAmount: '', approve: false };
}

/**
 * New-invoice checks of docs/product/features.md §5 in order: "date required ('Date required' / 'Please enter
 * a date for the invoice'); total greater than 0 ('Amount required' / 'Please enter a valid amount greater
 * than 0')".
 */
export function validateNewInvoice(form: Pick<NewInvoiceForm, 'date' | 'totalAmount'>): UserMessage | null {
  if (!form.date || !isIsoDate(form.date)) {
    return { title: 'Date required', description: NEW_INVOICE_DATE_MESSAGE };
  }
  const total = findPence(form.totalAmount.trim());
  if (total === null || total <= 0) {
    return { title: 'Amount required', description: NEW_INVOICE_AMOUNT_MESSAGE };
  }
  return null;
}

/**
 * "The new-invoice Process button is disabled without a default contact, default sales account, date or
 * positive total" (docs/product/features.md §5).
 */
export function canProcessNewInvoice(input: {
  defaultContactId: string | null | undefined;
  defaultSalesAccountId: string | null | undefined;
  date: string;
  totalAmount: string;
}): boolean {
  return (
    !!input.defaultContactId &&
    !!input.defaultSalesAccountId &&
    validateNewInvoice({ date: input.date, totalAmount: input.totalAmount }) === null
  );
}

/** Turn the form into the create request; null when {@link validateNewInvoice} fails. */
export function buildCreateRequest(form: NewInvoiceForm): DraftInvoiceCreateRequest | null {
  if (validateNewInvoice(form) !== null) return null;
  return {
    date: form.date,
    totalAmount: toPence(form.totalAmount.trim()) / 100,
    cashAmount: parseAmountInput(form.cashAmount) / 100,
    approve: form.approve,
  };
}

/** Whether a row has something to save: cash above 0 or approve ticked (docs/product/features.md §5). */
export function hasDraftInvoiceChanges(row: Pick<DraftInvoiceRow, 'cashAmount' | 'approve'>): boolean {
  return row.approve || parseAmountInput(row.cashAmount) > 0;
}

/**
 * Processing one row (docs/product/features.md §5): "with cash 0 and not approved: 'No changes to save' /
 * 'Enter a cash amount or approve the invoice before saving'".
 */
export function validateDraftInvoiceRow(
  row: Pick<DraftInvoiceRow, 'cashAmount' | 'approve'>,
): UserMessage | null {
  if (hasDraftInvoiceChanges(row)) return null;
  return {
    title: 'No changes to save',
    description: 'Enter a cash amount or approve the invoice before saving',
  };
}

/**
 * Process All (docs/product/features.md §5): "with no row having cash above 0 or approve: 'No changes to
 * save' / 'Enter cash amounts or approve invoices before saving'".
 */
export function validateProcessAll(
  rows: readonly Pick<DraftInvoiceRow, 'cashAmount' | 'approve'>[],
): UserMessage | null {
  if (rows.some(hasDraftInvoiceChanges)) return null;
  return { title: 'No changes to save', description: 'Enter cash amounts or approve invoices before saving' };
}

/** The update items for rows with changes (cash as a number of pounds with 2 decimals). */
export function buildUpdateItems(
  rows: readonly Pick<DraftInvoiceRow, 'id' | 'cashAmount' | 'approve' | 'pendingCashAmount'>[],
): DraftInvoiceUpdateItem[] {
  return rows.filter(hasDraftInvoiceChanges).map((row) => ({
    id: row.id,
    cashAmount: parseAmountInput(row.cashAmount) / 100,
    approve: row.approve,
    // What this screen showed as pending: the server refuses the change if it is no longer so (issue 28).
    pendingCashSeen: row.pendingCashAmount,
  }));
}

/**
 * After a successful process (docs/product/features.md §4): "An approved invoice is removed from the list on
 * success. A non-approved invoice keeps its place with cash reset to empty." `processedIds` are the rows the
 * server processed; failed rows stay as they were.
 */
export function applyProcessedRows<
  T extends Pick<DraftInvoiceRow, 'id' | 'cashAmount' | 'approve' | 'processing'>,
>(rows: readonly T[], processedIds: ReadonlySet<string> | readonly string[]): T[] {
  const done = processedIds instanceof Set ? processedIds : new Set(processedIds as readonly string[]);
  return rows
    .filter((row) => !(done.has(row.id) && row.approve))
    .map((row) => (done.has(row.id) ? { ...row, cashAmount: '', processing: false } : row));
}

/**
 * Ticking approve with zero or empty cash opens the zero-amount confirmation (docs/product/features.md §4).
 */
export function needsZeroAmountConfirmation(cashAmount: string): boolean {
  return parseAmountInput(cashAmount) === 0;
}

/** Sortable columns (docs/product/features.md §2): invoiceNumber, contactName, date, totalAmount. */
export const DRAFT_SORT_COLUMNS = ['invoiceNumber', 'contactName', 'date', 'totalAmount'] as const;
export type DraftSortColumn = (typeof DRAFT_SORT_COLUMNS)[number];
export interface DraftSort {
  column: DraftSortColumn;
  direction: 'asc' | 'desc';
}
/** "Default sort is date descending" (docs/product/features.md §2). */
export const DEFAULT_DRAFT_SORT: DraftSort = { column: 'date', direction: 'desc' };

/**
 * Clicking a column header (docs/product/features.md §2 "clicking toggles ascending or descending"): the same
 * column flips its direction; another column starts ascending.
 */
export function toggleDraftSort(current: DraftSort, column: DraftSortColumn): DraftSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { column, direction: 'asc' };
}

/** Sort draft rows (a new array); text columns compare case-insensitively, amounts in pence. */
export function sortDraftInvoices<T extends Pick<DraftInvoice, DraftSortColumn>>(
  rows: readonly T[],
  sort: DraftSort = DEFAULT_DRAFT_SORT,
): T[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  const collator = new Intl.Collator('en-GB', { sensitivity: 'base', numeric: true });
  const compare = (a: T, b: T): number => {
    switch (sort.column) {
      case 'date':
        return compareIsoDates(a.date, b.date);
      case 'totalAmount':
        return roundPoundsToPence(a.totalAmount) - roundPoundsToPence(b.totalAmount);
      case 'invoiceNumber':
        return collator.compare(a.invoiceNumber, b.invoiceNumber);
      case 'contactName':
        return collator.compare(a.contactName, b.contactName);
    }
  };
  return [...rows].sort((a, b) => sign * compare(a, b));
}
