/**
 * CIS Bills contracts and rules (docs/product/features.md §2–§9 CIS Bills; docs/architecture.md §4 CIS
 * Bills). The 20 % / 80 % maths and the tax-week reference live in `cis.ts`.
 */
import { z } from 'zod';
import { splitCisTotal, getCisGrossFromNetPence, getCisNetFromGrossPence, getTaxWeekReference } from './cis';
import { documentDateSchema, isoDateSchema } from './dates';
import { refreshFlagSchema } from './input';
import {
  findPence,
  formatMoney,
  formatPenceAsDecimal,
  fromPence,
  moneyAmountSchema,
  nonNegativeMoneySchema,
  positiveMoneySchema,
} from './money';
import type { UserMessage } from './user-message';

// The one message shape of every feature's rules (user-message.ts), re-exported for this area's callers.
export type { UserMessage } from './user-message';

/**
 * Bill statuses sent on create (docs/product/features.md §4, §9): DRAFT by default, AUTHORISED when drafts
 * are switched off.
 */
export const billCreateStatusSchema = z.enum(['DRAFT', 'AUTHORISED']);
type BillCreateStatus = z.infer<typeof billCreateStatusSchema>;

/**
 * Header carrying the saved default bill account id on approve (docs/product/features.md §7 "header carrying
 * the saved bill account id").
 */
export const DEFAULT_BILL_ACCOUNT_HEADER = 'x-default-bill-account-id';

/**
 * A draft bill as the server sends it (docs/product/features.md §3 "Draft bill (server): invoiceID,
 * contactID, contact.name, date, reference, status, total, amountDue, cisDeduction,
 * lineItems[0].accountCode").
 */
export const draftBillSchema = z.object({
  invoiceID: z.string().min(1),
  contactID: z.string().min(1),
  contact: z.object({ name: z.string() }),
  /** Xero allows a draft without a date: "" then. */
  date: z.union([isoDateSchema, z.literal('')]),
  reference: z.string(),
  status: z.string(),
  total: nonNegativeMoneySchema,
  amountDue: nonNegativeMoneySchema,
  cisDeduction: nonNegativeMoneySchema,
  lineItems: z.array(z.object({ accountCode: z.string().nullish() })),
});
export type DraftBill = z.infer<typeof draftBillSchema>;

/** Answer of `GET /api/xero/draft-bills` (docs/product/features.md §7). */
export const draftBillListResponseSchema = z.array(draftBillSchema);

/**
 * A bill row as the client holds it (docs/product/features.md §3 "Client form: id, contactId, contactName,
 * date, reference, status, amount, total, cisDeduction, amountDue, accountCode, isProcessed, isLocal,
 * isEditing, originalAmount"). Money in pounds.
 */
interface BillFormRow {
  id: string;
  contactId: string;
  contactName: string;
  date: string;
  reference: string;
  status: string;
  amount: number;
  total: number;
  cisDeduction: number;
  amountDue: number;
  accountCode: string;
  isProcessed: boolean;
  isLocal: boolean;
  isEditing: boolean;
  originalAmount: number;
}

/** Client row for a server draft bill: the amount is the bill total. */
export function toBillFormRow(bill: DraftBill): BillFormRow {
  return {
    id: bill.invoiceID,
    contactId: bill.contactID,
    contactName: bill.contact.name,
    date: bill.date,
    reference: bill.reference,
    status: bill.status,
    amount: bill.total,
    total: bill.total,
    cisDeduction: bill.cisDeduction,
    amountDue: bill.amountDue,
    accountCode: bill.lineItems[0]?.accountCode ?? '',
    isProcessed: false,
    isLocal: false,
    isEditing: false,
    originalAmount: bill.total,
  };
}

/**
 * A bill added locally before it is sent (docs/product/features.md §3 "Local bill to create: id, contactId,
 * contactName, date, reference, status DRAFT, amount, total, cisDeduction, amountDue, accountCode, isLocal").
 */
export const localBillSchema = z.object({
  id: z.string().min(1),
  contactId: z.string().min(1),
  contactName: z.string(),
  date: isoDateSchema,
  reference: z.string(),
  status: z.literal('DRAFT'),
  amount: positiveMoneySchema,
  total: positiveMoneySchema,
  cisDeduction: nonNegativeMoneySchema,
  amountDue: nonNegativeMoneySchema,
  accountCode: z.string().min(1),
  isLocal: z.literal(true),
});
export type LocalBill = z.infer<typeof localBillSchema>;

/**
 * Build a local bill from the gross amount in pence (docs/product/features.md §3, §9): total = the amount,
 * deduction 20 % and amount due 80 % computed on pence.
 */
export function createLocalBill(input: {
  id: string;
  contactId: string;
  contactName: string;
  date: string;
  reference: string;
  grossPence: number;
  accountCode: string;
}): LocalBill {
  const split = splitCisTotal(input.grossPence);
  return {
    id: input.id,
    contactId: input.contactId,
    contactName: input.contactName,
    date: input.date,
    reference: input.reference,
    status: 'DRAFT',
    amount: fromPence(split.totalPence),
    total: fromPence(split.totalPence),
    cisDeduction: fromPence(split.cisDeductionPence),
    amountDue: fromPence(split.amountDuePence),
    accountCode: input.accountCode,
    isLocal: true,
  };
}

/** Default reference of a new bill: the tax-week reference of its date (docs/product/features.md §2, §9). */
export function getDefaultBillReference(date: string): string {
  return getTaxWeekReference(date);
}

/**
 * A CIS contact (docs/product/features.md §3 "CIS contact: id, name, isContractor, isSupplier, hasValidUTR").
 */
export const cisContactSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  isContractor: z.boolean(),
  isSupplier: z.boolean(),
  /**
   * True or false once the contact's CIS settings are read; null while they are not (issue 33 item 12), so
   * a client reading it as the spec defines it never marks an unread subcontractor "(No UTR)".
   */
  hasValidUTR: z.boolean().nullable(),
  /**
   * Beyond the spec: false while the contact's CIS settings have not been read from Xero (or the contact
   * changed in Xero since), when hasValidUTR is null; the screen checks the contacts it shows
   * (`POST /api/xero/cis-contacts/check`). Absent means checked.
   */
  cisChecked: z.boolean().optional(),
});
export type CisContact = z.infer<typeof cisContactSchema>;

/**
 * Whether hasValidUTR is known: the contact's CIS settings were read since it last changed in Xero. An
 * answer with hasValidUTR null (or absent) or `cisChecked: false` does not know it.
 */
export function isCisChecked(
  contact: Pick<CisContact, 'cisChecked'> & { hasValidUTR?: boolean | null },
): contact is typeof contact & { hasValidUTR: boolean } {
  return contact.cisChecked !== false && typeof contact.hasValidUTR === 'boolean';
}

/**
 * Whether a contact's cached CIS settings still hold (issue 19): they were read (`checkedAt`) while the
 * contact's UpdatedDateUTC was `checkedUpdatedUtc`, and it has not moved since. A contact Xero changed counts
 * as unchecked again.
 */
export function isCisCheckCurrent(contact: {
  cisCheckedAt: Date | string | null;
  cisCheckedUpdatedUtc: Date | string | null;
  updatedUtc: Date | string | null;
}): boolean {
  if (contact.cisCheckedAt === null) return false;
  const at = (d: Date | string | null) => (d === null ? null : new Date(d).getTime());
  return at(contact.cisCheckedUpdatedUtc) === at(contact.updatedUtc);
}

/** Most contacts one `POST /api/xero/cis-contacts/check` checks (one CIS settings call each). */
export const MAX_CIS_CHECK_IDS = 50;

const XERO_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Body of `POST /api/xero/cis-contacts/check` (beyond the spec): the contacts the screen shows or the user
 * picked, whose CIS settings are read from Xero unless already known.
 */
export const checkCisContactsRequestSchema = z
  .object({
    contactIds: z
      .array(
        z
          .string({ error: 'Each contact id must be a text' })
          .regex(XERO_ID_RE, 'Each contact id must be a Xero contact id (a GUID)'),
        { error: 'contactIds must be a list of Xero contact ids' },
      )
      .min(1, 'Give at least one contact id to check')
      .max(MAX_CIS_CHECK_IDS, `Check at most ${MAX_CIS_CHECK_IDS} contacts at a time`),
  })
  .strict();

/** Answer of the check: the CIS state of each given contact Ledgerlink knows (unknown ids are left out). */
export const checkCisContactsResponseSchema = z.array(cisContactSchema);

/** Answer of `GET /api/xero/cis-contacts` (docs/product/features.md §7). */
export const cisContactListResponseSchema = z.array(cisContactSchema);

/**
 * hasValidUTR from a contact's Xero CIS settings (docs/architecture.md §4; Xero exposes no UTR): true when
 * CIS is enabled with a verified rate, 0 % (gross) or 20 % (standard). The 30 % higher rate means HMRC could
 * not verify the subcontractor.
 */
export function deriveHasValidUtr(
  settings: { cisEnabled?: boolean | null; rate?: number | null } | null | undefined,
): boolean {
  return settings?.cisEnabled === true && (settings.rate === 0 || settings.rate === 20);
}

/**
 * Subcontractors offered in the dropdown (docs/product/features.md §2, §5): contractors or suppliers only,
 * filtered by case-insensitive name search, sorted by name.
 */
export function findCisSubcontractors<T extends CisContact>(contacts: readonly T[], search = ''): T[] {
  const needle = search.trim().toLowerCase();
  const collator = new Intl.Collator('en-GB', { sensitivity: 'base', numeric: true });
  return contacts
    .filter((c) => (c.isContractor || c.isSupplier) && c.name.toLowerCase().includes(needle))
    .sort((a, b) => collator.compare(a.name, b.name));
}

/**
 * A bill line (docs/product/features.md §3 "Bill create line item: description, quantity, unitAmount,
 * accountCode").
 */
export const billLineItemSchema = z
  .object({
    description: z.string().trim().min(1, 'Please enter a description').max(4000),
    quantity: z
      .number()
      .positive('Quantity must be greater than 0')
      .max(1_000_000)
      .refine(
        (q) => Math.abs(q * 10_000 - Math.round(q * 10_000)) < 1e-6,
        'Quantity can have at most 4 decimals',
      ),
    unitAmount: moneyAmountSchema.refine((v) => v > 0, 'Please enter a valid positive amount'),
    accountCode: z.string().trim().min(1, 'Please select an account code').max(50),
  })
  .strict();

/**
 * Body of `POST /api/xero/create-bill` (docs/product/features.md §7):
 * `{contactId, date, reference, lineItems[{description, quantity, unitAmount, accountCode}], status}`.
 */
const createBillFields = {
  contactId: z.string().trim().min(1, 'Please select a subcontractor').max(100),
  date: documentDateSchema(),
  reference: z.string().trim().max(255, 'Reference must be 255 characters or fewer'),
  lineItems: z.array(billLineItemSchema).min(1, 'Add at least one line').max(100),
  status: billCreateStatusSchema,
};
export const createBillRequestSchema = z.object(createBillFields).strict();
export type CreateBillRequest = z.infer<typeof createBillRequestSchema>;

/**
 * Most bills sent in one `POST /api/xero/create-bills` (Xero advises modest batches, docs/xero-api.md §3).
 */
export const MAX_BILLS_PER_BATCH = 50;

/**
 * Body of `POST /api/xero/create-bills` (beyond the spec: several bills in one request, which the server
 * sends to Xero as one batch). Each bill carries the local bill id it was added under: with the request's
 * Idempotency-Key it names the bill across retries, so a retried batch never creates a bill twice.
 */
export const createBillsRequestSchema = z
  .object({
    bills: z
      .array(z.object({ id: z.string().min(1).max(100), ...createBillFields }).strict())
      .min(1, 'Add at least one bill before submitting')
      .max(MAX_BILLS_PER_BATCH)
      .refine((bills) => new Set(bills.map((b) => b.id)).size === bills.length, 'Each bill needs its own id'),
  })
  .strict();

/** The outcome of one bill of a batch: created (or found already created), or refused with a message. */
export const createBillResultSchema = z.object({
  id: z.string(),
  ok: z.boolean(),
  invoiceID: z.string().optional(),
  status: z.string().optional(),
  /** HTTP status the bill would have had on its own (422 for a CIS validation problem). */
  statusCode: z.number().int().optional(),
  message: z.string().optional(),
});
export type CreateBillResult = z.infer<typeof createBillResultSchema>;

export const createBillsResponseSchema = z.object({
  results: z.array(createBillResultSchema),
  created: z.number().int(),
  failed: z.number().int(),
});
export type CreateBillsResponse = z.infer<typeof createBillsResponseSchema>;

/** `?refresh=true` (sync with Xero first) and, for draft bills, `?cisOnly=true` (only CIS subcontractors). */
export const cisBillsListQuerySchema = z.object({
  refresh: refreshFlagSchema,
  cisOnly: z.enum(['true', 'false']).optional(),
  org: z.string().max(20).optional(),
  organizationId: z.string().max(20).optional(),
});

/** The outcome of a bill write (create, update, approve, delete): the bill id and its status afterwards. */
export const billActionResponseSchema = z.object({
  invoiceID: z.string().min(1),
  status: z.string(),
  message: z.string().optional(),
});
export type BillActionResponse = z.infer<typeof billActionResponseSchema>;
export const createBillResponseSchema = billActionResponseSchema;
export const approveBillResponseSchema = billActionResponseSchema;
export type ApproveBillResponse = BillActionResponse;
export const deleteBillResponseSchema = billActionResponseSchema;
export type DeleteBillResponse = BillActionResponse;

/**
 * Body of `PATCH /api/xero/update-bill/{id}` (docs/product/features.md §7): `{amount}`, a positive amount
 * with 2 decimals.
 */
export const updateBillRequestSchema = z
  .object({ amount: moneyAmountSchema.refine((v) => v > 0, 'Please enter a positive number') })
  .strict();

/** Answer of the update: the bill as it now stands. */
export const updateBillResponseSchema = draftBillSchema;
export type UpdateBillResponse = DraftBill;

/** Path parameter `{id}` of the bill calls. */
export const billIdParamsSchema = z.object({ id: z.string().min(1).max(100) });

/**
 * Status to send (docs/product/features.md §4, §9): DRAFT when "Create as draft bills" is ticked (the
 * default), else AUTHORISED.
 */
export function getBillCreateStatus(createAsDraft: boolean): BillCreateStatus {
  return createAsDraft ? 'DRAFT' : 'AUTHORISED';
}

/** The create request for a local bill: one line of quantity 1 at the gross amount on the chosen account. */
export function buildCreateBillRequest(bill: LocalBill, createAsDraft: boolean): CreateBillRequest {
  return {
    contactId: bill.contactId,
    date: bill.date,
    reference: bill.reference,
    lineItems: [
      {
        description: `Subcontractor services - ${bill.contactName}`,
        quantity: 1,
        unitAmount: bill.total,
        accountCode: bill.accountCode,
      },
    ],
    status: getBillCreateStatus(createAsDraft),
  };
}

/**
 * Checks when adding a bill, in the order of docs/product/features.md §5: subcontractor required ('Missing
 * information' / 'Please select a subcontractor'), amount a positive number ('Invalid amount' / 'Please enter
 * a valid positive amount'), account code required ('Please select an account code'), subcontractor in the
 * loaded list ('Selected subcontractor not found'). Amounts with more than 2 decimals are not valid amounts.
 */
/** Issue 17 item 15: a positive figure with too many decimals is refused for that, not as "not positive". */
const TOO_MANY_DECIMALS = /^\d*\.\d{3,}$/;
const TWO_DECIMALS_MESSAGE = 'Amounts have at most two decimal places (pounds and pence)';

export function validateBillEntry(input: {
  contactId: string | null | undefined;
  amount: string;
  accountCode: string | null | undefined;
  contacts: readonly Pick<CisContact, 'id'>[];
}): UserMessage | null {
  if (!input.contactId) return { title: 'Missing information', description: 'Please select a subcontractor' };
  const pence = findPence(input.amount.trim());
  if (pence === null && TOO_MANY_DECIMALS.test(input.amount.trim())) {
    return { title: 'Invalid amount', description: TWO_DECIMALS_MESSAGE };
  }
  if (pence === null || pence <= 0) {
    return { title: 'Invalid amount', description: 'Please enter a valid positive amount' };
  }
  if (!input.accountCode)
    return { title: 'Missing information', description: 'Please select an account code' };
  if (!input.contacts.some((c) => c.id === input.contactId)) {
    return { title: 'Error', description: 'Selected subcontractor not found' };
  }
  return null;
}

/**
 * Editing a draft's amount (docs/product/features.md §5): 'Please enter a positive number' unless it is one
 * (2 decimals at most).
 */
export function validateBillAmountEdit(amount: string): UserMessage | null {
  const pence = findPence(amount.trim());
  if (pence !== null && pence > 0) return null;
  if (TOO_MANY_DECIMALS.test(amount.trim()))
    return { title: 'Invalid amount', description: TWO_DECIMALS_MESSAGE };
  return { title: 'Invalid amount', description: 'Please enter a positive number' };
}

/**
 * Submitting (docs/product/features.md §5): 'No bills to create' / 'Add at least one bill before submitting'
 * with no local bills.
 */
export function validateBillSubmission(bills: readonly unknown[]): UserMessage | null {
  return bills.length > 0
    ? null
    : { title: 'No bills to create', description: 'Add at least one bill before submitting' };
}

/**
 * The gross/net convert toggle (docs/product/features.md §2): acts only on a parsable number; to net gives 80
 * % ("Converted to net (80%)"), to gross gives ÷ 0.8 ("Converted to gross (100%)"), with 'Changed £x to £y'.
 * Returns the new text for the amount box and the notice, or null when the text is not an amount.
 */
export function convertCisAmount(
  amount: string,
  direction: 'to-net' | 'to-gross',
): { amount: string; title: string; description: string } | null {
  const pence = findPence(amount.trim());
  if (pence === null || pence < 0) return null;
  const converted = direction === 'to-net' ? getCisNetFromGrossPence(pence) : getCisGrossFromNetPence(pence);
  return {
    amount: formatPenceAsDecimal(converted),
    title: direction === 'to-net' ? 'Converted to net (80%)' : 'Converted to gross (100%)',
    description: `Changed ${formatMoney(pence)} to ${formatMoney(converted)}`,
  };
}

/** Which of the four CIS screen states to show (docs/product/features.md §2 CIS Bills). */
type CisPageState = 'session-expired' | 'not-connected' | 'disabled' | 'main';

/**
 * Whether a connection error means the session expired (docs/product/features.md §4 "contains 'Not
 * authenticated'").
 */
export function isSessionExpiredError(error: string | null | undefined): boolean {
  return (error ?? '').includes('Not authenticated');
}

/** "A 'token is about to expire' error is treated as still usable" (docs/product/features.md §8). */
export function isTokenAboutToExpireError(error: string | null | undefined): boolean {
  return /about to expire/i.test(error ?? '');
}

/**
 * The screen state (docs/product/features.md §2): session expired first; then not connected ("the connection
 * is not live and the error is absent or is not a 'token about to expire' message"); then feature disabled;
 * else main.
 */
export function getCisPageState(connection: {
  connected: boolean;
  error?: string | null;
  featureCisBills?: boolean | null;
}): CisPageState {
  if (isSessionExpiredError(connection.error)) return 'session-expired';
  if (!connection.connected && !isTokenAboutToExpireError(connection.error)) return 'not-connected';
  if (!connection.featureCisBills) return 'disabled';
  return 'main';
}

/**
 * Before approving (docs/product/features.md §8): without a saved default bill account, 'Missing Default
 * Account' / 'Please set a default bill account in the settings page before approving bills.' (then go to
 * /settings).
 */
export function checkCanApproveBill(defaultBillAccountId: string | null | undefined): UserMessage | null {
  if (defaultBillAccountId) return null;
  return {
    title: 'Missing Default Account',
    description: 'Please set a default bill account in the settings page before approving bills.',
  };
}
