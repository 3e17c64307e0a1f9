/**
 * CIS Bills contracts and rules (docs/product/features.md §2–§9 CIS Bills; docs/architecture.md §4 CIS
 * Bills; issue 42). The CIS maths (each subcontractor's rate, on labour only) and the tax-week reference live
 * in `cis.ts`.
 */
import { z } from 'zod';
import {
  createCisBillFigures,
  getCisDeductionLineDescription,
  getCisGrossFromNetPence,
  getCisNetFromGrossPence,
  getTaxWeekReference,
  type CisRate,
  type CisVatTreatment,
} from './cis';
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
/** A CIS deduction rate: 0 (gross payment status), 20 (registered), 30 (not verified). */
export const cisRateSchema = z.union([z.literal(0), z.literal(20), z.literal(30)]);

/** How a bill carries VAT (src/shared/cis.ts `CisVatTreatment`). */
export const cisVatTreatmentSchema = z.enum(['none', 'standard', 'reverse-charge']);

export const draftBillSchema = z.object({
  invoiceID: z.string().min(1),
  contactID: z.string().min(1),
  contact: z.object({ name: z.string() }),
  /** Xero allows a draft without a date: "" then. */
  date: z.union([isoDateSchema, z.literal('')]),
  reference: z.string(),
  status: z.string(),
  /** The gross bill total: labour + materials + VAT, before the deduction (issue 42). */
  total: nonNegativeMoneySchema,
  /** `total` − `cisDeduction`: what Xero shows as due once the bill is approved. */
  amountDue: nonNegativeMoneySchema,
  /** `cisRate` × (`total` − `vatAmount` − `materialsAmount`), rounded down (src/shared/cis.ts). */
  cisDeduction: nonNegativeMoneySchema,
  /** Issue 42: the subcontractor's rate (Xero's CIS settings for the contact), null when not CIS. */
  cisRate: cisRateSchema.nullable(),
  /** Issue 42: the bill's VAT (none under the reverse charge). */
  vatAmount: nonNegativeMoneySchema,
  /** Issue 42: its lines on materials accounts, excluding VAT. */
  materialsAmount: nonNegativeMoneySchema,
  /**
   * Beyond the spec: who booked the deduction. `ledgerlink`, a deduction line; `xero`, entered with Xero's own
   * CIS (counted as Xero says); `none`, none yet (approving through Ledgerlink books it).
   */
  cisSource: z.enum(['ledgerlink', 'xero', 'none']).optional(),
  /** Beyond the spec: how the bill carries VAT. */
  vatTreatment: cisVatTreatmentSchema.optional(),
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
  /** The labour typed (the "Gross Amount" of the entry row), excluding VAT. */
  amount: positiveMoneySchema,
  /** The gross bill total: labour + materials + VAT, before the deduction. */
  total: positiveMoneySchema,
  cisDeduction: nonNegativeMoneySchema,
  amountDue: nonNegativeMoneySchema,
  accountCode: z.string().min(1),
  isLocal: z.literal(true),
  /** Issue 42: materials (excluding VAT) on `materialsAccountCode`, VAT, and the subcontractor's rate. */
  materials: nonNegativeMoneySchema,
  materialsAccountCode: z.string().nullable(),
  vatAmount: nonNegativeMoneySchema,
  vatTreatment: cisVatTreatmentSchema,
  cisRate: cisRateSchema.nullable(),
  /** The person confirmed a bill without a deduction for a contact Xero does not mark as CIS. */
  withoutCisDeduction: z.boolean(),
});
export type LocalBill = z.infer<typeof localBillSchema>;

/**
 * Build a local bill (docs/product/features.md §3, §9; issue 42) from the labour and materials typed (pence,
 * excluding VAT), the subcontractor's rate and VAT: the deduction is the rate on the labour alone, the total
 * carries the VAT, the amount due is the total less the deduction.
 */
export function createLocalBill(input: {
  id: string;
  contactId: string;
  contactName: string;
  date: string;
  reference: string;
  labourPence: number;
  materialsPence?: number;
  materialsAccountCode?: string | null;
  accountCode: string;
  cisRate: CisRate | null;
  vatTreatment: CisVatTreatment;
  /** The VAT percent the bill's lines carry (0 for none and for the reverse charge). */
  vatPercent: number;
  withoutCisDeduction?: boolean;
}): LocalBill {
  const materialsPence = input.materialsPence ?? 0;
  const figures = createCisBillFigures({
    labourPence: input.labourPence,
    materialsPence,
    rate: input.cisRate,
    vatPercent: input.vatTreatment === 'standard' ? input.vatPercent : 0,
  });
  return {
    id: input.id,
    contactId: input.contactId,
    contactName: input.contactName,
    date: input.date,
    reference: input.reference,
    status: 'DRAFT',
    amount: fromPence(figures.labourPence),
    total: fromPence(figures.totalPence),
    cisDeduction: fromPence(figures.cisDeductionPence),
    amountDue: fromPence(figures.amountDuePence),
    accountCode: input.accountCode,
    isLocal: true,
    materials: fromPence(materialsPence),
    materialsAccountCode: materialsPence > 0 ? (input.materialsAccountCode ?? null) : null,
    vatAmount: fromPence(figures.vatPence),
    vatTreatment: input.vatTreatment,
    cisRate: input.cisRate,
    withoutCisDeduction: input.withoutCisDeduction === true,
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
  /**
   * Issue 42: the rate in Xero's CIS settings for the contact (0, 20 or 30); null when Xero has none (not a CIS
   * subcontractor) or while they are not read (`cisChecked` false).
   */
  cisRate: cisRateSchema.nullable().optional(),
  /**
   * Issue 43: HMRC's answer to the contact's latest verification from Ledgerlink, when there is one. Its rate is
   * then `cisRate`, the rate the deduction uses, whatever Xero's contact says (`xeroCisRate`).
   */
  verified: z
    .object({
      rate: cisRateSchema,
      matched: z.boolean(),
      verificationNumber: z.string().nullable(),
      verifiedAt: z.string(),
    })
    .nullable()
    .optional(),
  /**
   * Issue 43, with `verified`: what Xero's CIS settings for the contact say (0, 20 or 30; null when Xero marks it
   * as not CIS or they are not read), so the screen can say where Xero disagrees with HMRC.
   */
  xeroCisRate: cisRateSchema.nullable().optional(),
  /** Beyond the spec (issue 42): how the subcontractor's bills carry VAT. */
  vatTreatment: cisVatTreatmentSchema.optional(),
  /** Beyond the spec (issue 42): the VAT percent of their bills' lines (0 for none and the reverse charge). */
  vatPercent: z.number().min(0).max(100).optional(),
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
  /**
   * Issue 42: amounts exclude VAT (VAT is added as the subcontractor charges it). Lines on a materials account
   * of the CIS settings are materials, every other line is labour; Ledgerlink adds the deduction line itself.
   */
  lineItems: z.array(billLineItemSchema).min(1, 'Add at least one line').max(100),
  status: billCreateStatusSchema,
  /**
   * Issue 42: the person confirmed that a contact Xero does not mark as a CIS subcontractor is billed without a
   * deduction. Without it such a bill is refused (422), never silently deducted from or paid gross.
   */
  withoutCisDeduction: z.boolean().optional(),
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

/**
 * The create request for a local bill: the labour as one line on the chosen account and the materials as one
 * on the materials account, both excluding VAT; the server adds VAT and the deduction line (issue 42).
 */
export function buildCreateBillRequest(bill: LocalBill, createAsDraft: boolean): CreateBillRequest {
  const lineItems: CreateBillRequest['lineItems'] = [
    {
      description: `Subcontractor services - ${bill.contactName}`,
      quantity: 1,
      unitAmount: bill.amount,
      accountCode: bill.accountCode,
    },
  ];
  if (bill.materials > 0 && bill.materialsAccountCode)
    lineItems.push({
      description: `Materials - ${bill.contactName}`,
      quantity: 1,
      unitAmount: bill.materials,
      accountCode: bill.materialsAccountCode,
    });
  return {
    contactId: bill.contactId,
    date: bill.date,
    reference: bill.reference,
    lineItems,
    status: getBillCreateStatus(createAsDraft),
    ...(bill.withoutCisDeduction ? { withoutCisDeduction: true } : {}),
  };
}

/** The deduction line's wording on a bill Ledgerlink raises (src/shared/cis.ts). */
export { getCisDeductionLineDescription };

/**
 * How a row at a rate other than the spec's 20 % says so (issue 42): "30 % — not verified", "0 % — gross
 * payment status"; null at 20 %.
 */
export function describeCisRate(rate: CisRate | null | undefined): string | null {
  if (rate === 30) return '30 % — not verified';
  if (rate === 0) return '0 % — gross payment status';
  if (rate === null) return 'Not CIS — no deduction';
  return null;
}

/** Setup the CIS Bills screen reads (issue 42): where deductions and materials go, and the VAT setting. */
export const cisBillSetupSchema = z.object({
  /** The liability account deductions are booked to (Settings → CIS month-end); null until chosen. */
  deductionAccount: z.object({ code: z.string(), name: z.string() }).nullable(),
  /** Materials accounts of the CIS settings, the first the default for a bill's materials. */
  materialsAccounts: z.array(z.object({ code: z.string(), name: z.string() })),
  reverseCharge: z.boolean(),
});
export type CisBillSetup = z.infer<typeof cisBillSetupSchema>;

/**
 * `?field=` names of the CIS settings (Settings → CIS month-end), so a screen's "Choose … in Settings" link
 * leads to the one missing (issue 33's links; issue 42).
 */
export const CIS_SETTINGS_FIELDS = {
  deductionAccount: 'cisDeductionAccountCode',
  materialsAccounts: 'cisMaterialsAccountCodes',
  reverseCharge: 'cisReverseCharge',
} as const;

/** The message a bill with a deduction meets while no deductions account is chosen (issue 42). */
export const NO_DEDUCTION_ACCOUNT_MESSAGE =
  'Choose the CIS deductions account (an ordinary liability account) in Settings → CIS month-end before creating bills with a CIS deduction.';

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
  /** Issue 42: the materials amount typed ('' for none) and the materials account it would go on. */
  materials?: string;
  materialsAccountCode?: string | null;
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
  const materials = (input.materials ?? '').trim();
  if (materials !== '') {
    const materialsPence = findPence(materials);
    if (materialsPence === null && TOO_MANY_DECIMALS.test(materials))
      return { title: 'Invalid amount', description: TWO_DECIMALS_MESSAGE };
    if (materialsPence === null || materialsPence < 0)
      return { title: 'Invalid amount', description: 'Please enter a valid materials amount (0 or more)' };
    if (materialsPence > 0 && !input.materialsAccountCode)
      return { title: 'Missing information', description: NO_MATERIALS_ACCOUNT_MESSAGE };
  }
  return null;
}

/** Materials typed while the CIS settings name no materials account (issue 42). */
export const NO_MATERIALS_ACCOUNT_MESSAGE =
  'Choose a materials account in Settings → CIS month-end before adding materials to a bill.';

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
  rate: CisRate = 20,
): { amount: string; title: string; description: string } | null {
  const pence = findPence(amount.trim());
  if (pence === null || pence < 0) return null;
  const converted =
    direction === 'to-net' ? getCisNetFromGrossPence(pence, rate) : getCisGrossFromNetPence(pence, rate);
  return {
    amount: formatPenceAsDecimal(converted),
    // At 20 % exactly the spec's texts; at another rate the share that rate leaves (issue 42).
    title:
      direction === 'to-gross'
        ? 'Converted to gross (100%)'
        : rate === 20
          ? 'Converted to net (80%)'
          : `Converted to net (${100 - rate}%)`,
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
