/**
 * Per-organisation default settings (docs/product/shell.md §3 "Connection status" defaults,
 * docs/product/shell.md §5 settings rules, docs/product/shell.md §7 `PATCH /api/xero/settings`) and the
 * reference-list items the settings screen chooses from.
 */
import { z } from 'zod';
import { idSchema, isDbId, refreshFlagSchema, textSchema } from './input';
import {
  DEFAULT_STOCK_JOURNAL_MARGIN_RATE,
  DEFAULT_STOCK_JOURNAL_POSTING_STATUS,
  DEFAULT_TAX_STATUS,
  POSTING_STATUSES,
  postingStatusSchema,
  TAX_STATUSES,
  taxStatusSchema,
  type ConnectionDefaults,
  type DefaultIdField,
} from './connection';
import { createIsoDate, getDateParts } from './dates';

// The tax and posting statuses (docs/product/shell.md §5; docs/product/features.md §4), their defaults
// (docs/product/shell.md §9: "Tax inclusive", draft, 1.35), the id-valued defaults and their mapping are the
// connection status's (docs/product/shell.md §3), defined once in the connection contract; the settings
// screen and the settings routes read them from here too.
export {
  DEFAULT_ID_FIELDS,
  DEFAULT_STOCK_JOURNAL_MARGIN_RATE,
  DEFAULT_STOCK_JOURNAL_POSTING_STATUS,
  DEFAULT_TAX_STATUS,
  POSTING_STATUSES,
  postingStatusSchema,
  TAX_STATUSES,
  taxStatusSchema,
  toConnectionDefaults,
  type ConnectionDefaults,
  type DefaultIdField,
  type PostingStatus,
  type StoredDefaults,
  type TaxStatus,
} from './connection';

/** Minimum stock journal margin rate in settings (docs/product/shell.md §5): 1. */
export const MIN_MARGIN_RATE = 1;
/** Step of the margin rate input (docs/product/shell.md §5): 0.01. */
export const MARGIN_RATE_STEP = 0.01;
/** Largest margin rate the server accepts (a sanity bound, not from the spec). */
export const MAX_MARGIN_RATE = 1000;

/**
 * The select value that means "no default" (docs/product/shell.md §2 Settings: "In the selects the value
 * "none" means null").
 */
export const NONE_SELECT_VALUE = 'none';

/**
 * Turn a select value into a stored id: "none", empty text, null and undefined all mean null
 * (docs/product/shell.md §2 Settings "the value "none" means null").
 */
export function normalizeSelectValue(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' || trimmed === NONE_SELECT_VALUE ? null : trimmed;
}

/** Turn a stored id into a select value: no id shows as "none" (docs/product/shell.md §2 Settings). */
export function toSelectValue(id: string | null | undefined): string {
  return normalizeSelectValue(id) ?? NONE_SELECT_VALUE;
}

function parseRate(value: string | number | null | undefined): number {
  if (typeof value === 'number') return value;
  if (value === null || value === undefined) return Number.NaN;
  const text = value.trim();
  return text === '' ? Number.NaN : Number(text);
}

function roundRate(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

/**
 * Margin rate while the user is editing (docs/product/shell.md §5): "a number, step 0.01, minimum 1; it falls
 * back to 1 if invalid while editing". Anything unparsable, non-finite or below 1 gives 1.
 */
export function parseMarginRateWhileEditing(value: string | number | null | undefined): number {
  const rate = parseRate(value);
  return Number.isFinite(rate) && rate >= MIN_MARGIN_RATE ? rate : MIN_MARGIN_RATE;
}

/**
 * Margin rate on save (docs/product/shell.md §5): "on save an unparsable value falls back to 1.35". A
 * parsable value below the minimum of 1 is raised to 1 (the minimum of docs/product/shell.md §5), and the
 * result is rounded to the 0.01 step.
 */
export function parseMarginRateOnSave(value: string | number | null | undefined): number {
  const rate = parseRate(value);
  if (!Number.isFinite(rate)) return DEFAULT_STOCK_JOURNAL_MARGIN_RATE;
  return Math.min(MAX_MARGIN_RATE, roundRate(Math.max(MIN_MARGIN_RATE, rate)));
}

/** A margin rate as saved: a number from 1 with at most 2 decimals (docs/product/shell.md §5). */
export const marginRateSchema = z
  .number({ error: 'Margin rate must be a number' })
  .finite('Margin rate must be a number')
  .min(MIN_MARGIN_RATE, 'Margin rate must be at least 1')
  .max(MAX_MARGIN_RATE, `Margin rate must be at most ${MAX_MARGIN_RATE}`)
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, 'Margin rate must have at most 2 decimals');

/**
 * An id default as sent: text, "" when not set (docs/product/shell.md §3 "Missing id values become empty
 * text").
 */
const idOrEmptySchema = z.string().max(200).default('');

/**
 * The connection defaults of docs/product/shell.md §3, as `GET /api/xero/connection` sends them. Missing ids
 * become "", defaultTaxStatus defaults to "Tax inclusive", defaultStockJournalMarginRate to 1.35 and
 * defaultStockJournalPostingStatus to draft (docs/product/shell.md §3, §9). No transforms, so it also serves
 * as a response schema (JSON Schema) for the server; use {@link toConnectionDefaults} to build it from stored
 * values.
 */
export const connectionDefaultsSchema = z.object({
  defaultCreditCardAccountId: idOrEmptySchema,
  defaultCashAccountId: idOrEmptySchema,
  defaultSalesAccountId: idOrEmptySchema,
  defaultVatRateId: idOrEmptySchema,
  defaultBillVatRateId: idOrEmptySchema,
  defaultBillAccountId: idOrEmptySchema,
  defaultContactId: idOrEmptySchema,
  defaultTaxStatus: taxStatusSchema.default(DEFAULT_TAX_STATUS),
  defaultCisSubcontractorsGroupId: idOrEmptySchema,
  defaultStockJournalContactId: idOrEmptySchema,
  defaultStockJournalMarginRate: z.number().finite().default(DEFAULT_STOCK_JOURNAL_MARGIN_RATE),
  defaultStockJournalStockAccountId: idOrEmptySchema,
  defaultStockJournalCostAccountId: idOrEmptySchema,
  defaultStockJournalPostingStatus: postingStatusSchema.default(DEFAULT_STOCK_JOURNAL_POSTING_STATUS),
}) satisfies z.ZodType<ConnectionDefaults>;

/**
 * The defaults of a new organisation: no ids, "Tax inclusive", 1.35, draft (docs/product/shell.md §3, §9).
 */
export function createEmptyConnectionDefaults(): ConnectionDefaults {
  return connectionDefaultsSchema.parse({});
}

/** An id in the settings PATCH: text id, or null to clear; "none" and "" are read as null. */
const settingIdSchema = z
  .string()
  .max(200)
  .nullable()
  .transform((v) => normalizeSelectValue(v));

/**
 * What each default is called on the settings page; the server's refusals start with it, so a message
 * always names the field ("Stock account: …").
 */
export const SETTING_FIELD_LABELS = {
  defaultCreditCardAccountId: 'Credit card account',
  defaultCashAccountId: 'Cash account',
  defaultSalesAccountId: 'Sales account',
  defaultVatRateId: 'VAT rate',
  defaultBillVatRateId: 'Bill VAT rate',
  defaultBillAccountId: 'Bill account',
  defaultContactId: 'Default contact',
  defaultTaxStatus: 'Tax status',
  defaultCisSubcontractorsGroupId: 'CIS subcontractors group',
  defaultStockJournalContactId: 'Stock journal contact',
  defaultStockJournalMarginRate: 'Margin rate',
  defaultStockJournalStockAccountId: 'Stock account',
  defaultStockJournalCostAccountId: 'Cost account',
  defaultStockJournalPostingStatus: 'Posting status',
} as const satisfies Record<keyof ConnectionDefaults, string>;

/**
 * What each id default refers to in Xero, and so which cached list it is checked against. Account ids are
 * Xero `AccountID`s (bank accounts often have no code), VAT rate ids are Xero `TaxType` codes, contacts and
 * groups are `ContactID` / `ContactGroupID`.
 */
export const SETTING_REFERENCE_KINDS = {
  defaultCreditCardAccountId: 'credit-card-account',
  defaultCashAccountId: 'cash-account',
  defaultSalesAccountId: 'sales-account',
  defaultVatRateId: 'sales-vat-rate',
  defaultBillVatRateId: 'bill-vat-rate',
  defaultBillAccountId: 'bill-account',
  defaultContactId: 'contact',
  defaultCisSubcontractorsGroupId: 'contact-group',
  defaultStockJournalContactId: 'contact',
  defaultStockJournalStockAccountId: 'stock-account',
  defaultStockJournalCostAccountId: 'cost-account',
} as const satisfies Record<DefaultIdField, string>;
export type SettingReferenceKind = (typeof SETTING_REFERENCE_KINDS)[DefaultIdField];

/** An organisation id as a request may name it (the settings screen of `/settings?org={id}`). */
const organizationIdFieldSchema = z.union([
  idSchema('Invalid organization ID'),
  z.string().max(12, 'Invalid organization ID').refine(isDbId, 'Invalid organization ID'),
]);

/**
 * Body of `PATCH /api/xero/settings` (docs/product/shell.md §7 "the default fields of section 3"): any subset
 * of the defaults; ids may be null (or "none") to clear them. Unknown fields are refused. `organizationId`
 * may name the organisation (else the active one); the server checks the user is linked to it.
 */
export const settingsUpdateRequestSchema = z
  .object({
    organizationId: organizationIdFieldSchema,
    defaultCreditCardAccountId: settingIdSchema,
    defaultCashAccountId: settingIdSchema,
    defaultSalesAccountId: settingIdSchema,
    defaultVatRateId: settingIdSchema,
    defaultBillVatRateId: settingIdSchema,
    defaultBillAccountId: settingIdSchema,
    defaultContactId: settingIdSchema,
    defaultTaxStatus: z.enum(TAX_STATUSES, {
      error: 'Tax status must be "Tax inclusive", "Tax exclusive" or "No tax"',
    }),
    defaultCisSubcontractorsGroupId: settingIdSchema,
    defaultStockJournalContactId: settingIdSchema,
    defaultStockJournalMarginRate: marginRateSchema,
    defaultStockJournalStockAccountId: settingIdSchema,
    defaultStockJournalCostAccountId: settingIdSchema,
    defaultStockJournalPostingStatus: z.enum(POSTING_STATUSES, {
      error: 'Posting status must be "draft" or "posted"',
    }),
  })
  .partial()
  .strict();
export type SettingsUpdateRequest = z.infer<typeof settingsUpdateRequestSchema>;
export type SettingsUpdateRequestInput = z.input<typeof settingsUpdateRequestSchema>;

/**
 * The defaults kept in browser local storage (docs/product/shell.md §3 "A local key saves the default bill
 * account, bill VAT rate, stock journal contact and margin rate").
 */
export const savedDefaultsSchema = z.object({
  defaultBillAccountId: z.string().nullish(),
  defaultBillVatRateId: z.string().nullish(),
  defaultStockJournalContactId: z.string().nullish(),
  defaultStockJournalMarginRate: z.number().finite().nullish(),
});
export type SavedDefaults = z.infer<typeof savedDefaultsSchema>;

/**
 * An account in a reference list (docs/product/features.md §3 "Account: id, code, name"); code "" when it has
 * none (bank accounts often have none).
 */
export const accountSchema = z.object({
  id: z.string().min(1),
  code: z.string().default(''),
  name: z.string(),
});
export type Account = z.infer<typeof accountSchema>;

/**
 * A VAT rate (docs/product/features.md §3 "VAT rate: id, name, rate"), rate in percent; id is Xero's TaxType
 * code. Whether it may go on sales or on bills is sent too, so each select offers only the rates Xero will
 * accept there.
 */
export const vatRateSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  rate: z.number().finite(),
  canApplyToRevenue: z.boolean().optional(),
  canApplyToExpenses: z.boolean().optional(),
});
export type VatRate = z.infer<typeof vatRateSchema>;

/** A contact or customer (docs/product/features.md §3 "Customer: id, name. Contact: id, name."). */
export const contactSchema = z.object({ id: z.string().min(1), name: z.string() });
export type Contact = z.infer<typeof contactSchema>;

/** A contact group (docs/product/shell.md §3 reference lists: id and name). */
export const contactGroupSchema = z.object({ id: z.string().min(1), name: z.string() });
export type ContactGroup = z.infer<typeof contactGroupSchema>;

/**
 * The settings PATCH answer: the organisation's defaults after the change (docs/product/shell.md §3 shapes).
 */
export const settingsUpdateResponseSchema = connectionDefaultsSchema.extend({
  organizationId: z.number().int(),
});
export type SettingsUpdateResponse = z.infer<typeof settingsUpdateResponseSchema>;

/**
 * Reference lists (docs/product/shell.md §3 "Additional reference lists … id and name; VAT rates also carry a
 * rate").
 */
export const accountsResponseSchema = z.array(accountSchema);
export const vatRatesResponseSchema = z.array(vatRateSchema);
export const contactsResponseSchema = z.array(contactSchema);
export const contactGroupsResponseSchema = z.array(contactGroupSchema);

/**
 * Most contacts one search answers; the selector asks again as the user types (docs/product/shell.md §2, 0.5
 * s debounce).
 */
export const CONTACT_SEARCH_LIMIT = 50;

/** Query of the reference lists: `?refresh=true` forces that cache's sync (docs/product/shell.md §7). */
export const referenceListQuerySchema = z.object({
  refresh: refreshFlagSchema,
  org: z.string().max(12).optional(),
});

/** Query of `GET /api/xero/contacts`: search text, refresh, and `ids` to name contacts already chosen. */
export const contactsQuerySchema = referenceListQuerySchema.extend({
  search: textSchema(100).optional(),
  ids: z.string().max(2000).optional(),
});

/** Old data clean-up (docs/product/shell.md §9 "older than 3 months"). */
export const OLD_DATA_MONTHS = 3;

/**
 * The first day that is kept by the old-data clean-up: the same day three calendar months before `today`,
 * or the month's last day when that month is shorter (31 May → 28 or 29 February).
 */
export function getOldDataCutoffDate(today: string, months: number = OLD_DATA_MONTHS): string {
  const { year, month, day } = getDateParts(today);
  const lastDay = Number(createIsoDate(year, month - months + 1, 0).slice(8, 10));
  return createIsoDate(year, month - months, Math.min(day, lastDay));
}
