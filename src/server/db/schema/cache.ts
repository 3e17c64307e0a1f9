import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { organizations } from './xero';

/**
 * Cached Xero data per organisation (docs/architecture.md §3). Money is integer pence (bigint, as JS numbers:
 * safe far beyond any invoice). Every cache keeps its own high-water mark in `xero_sync_state` so refreshes
 * ask Xero only for what changed (If-Modified-Since).
 */
const orgRef = () =>
  integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });
const pence = (name: string) => bigint(name, { mode: 'number' });

export const xeroSyncState = pgTable(
  'xero_sync_state',
  {
    organizationId: orgRef(),
    /** 'invoices', 'accounts', 'tax-rates', 'contacts', 'contact-groups', 'manual-journals', … */
    resource: text('resource').notNull(),
    /** Largest UpdatedDateUTC seen: the next sync sends it as If-Modified-Since. */
    highWater: timestamp('high_water', { withTimezone: true }),
    lastSyncAt: timestamp('last_sync_at', { withTimezone: true }),
    lastFullSyncAt: timestamp('last_full_sync_at', { withTimezone: true }),
    /** Held by the instance syncing this resource now, so two instances never sync it twice at once. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /**
     * Set while a read of the whole view (a first visit, a forced refresh) is unfinished: the cache is then
     * partial, whatever `lastSyncAt` says, and the next sync carries on from `pagesRead` (issue 19).
     */
    initialReadAt: timestamp('initial_read_at', { withTimezone: true }),
    /** Pages and items the current (or last) read of the whole view stored; every instance reports these. */
    pagesRead: integer('pages_read').notNull().default(0),
    itemsRead: integer('items_read').notNull().default(0),
    /** How many items Xero said the whole read has (its `pagination.itemCount`), when it said. */
    itemsTotal: integer('items_total'),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.resource] })],
);

export const xeroInvoices = pgTable(
  'xero_invoices',
  {
    organizationId: orgRef(),
    invoiceId: text('invoice_id').notNull(),
    /** ACCREC (sales invoice) or ACCPAY (bill). */
    type: text('type').notNull(),
    invoiceNumber: text('invoice_number'),
    reference: text('reference'),
    contactId: text('contact_id'),
    contactName: text('contact_name'),
    status: text('status').notNull(),
    lineAmountTypes: text('line_amount_types'),
    date: date('date'),
    dueDate: date('due_date'),
    subTotalPence: pence('sub_total_pence').notNull().default(0),
    totalTaxPence: pence('total_tax_pence').notNull().default(0),
    totalPence: pence('total_pence').notNull().default(0),
    amountDuePence: pence('amount_due_pence').notNull().default(0),
    amountPaidPence: pence('amount_paid_pence').notNull().default(0),
    /** Xero's CISDeduction and CISRate on a bill (read-only, UK): null when Xero computed none (issue 29). */
    cisDeductionPence: pence('cis_deduction_pence'),
    cisRate: numeric('cis_rate', { precision: 9, scale: 4 }),
    currencyCode: text('currency_code').notNull().default('GBP'),
    sentToContact: boolean('sent_to_contact').notNull().default(false),
    hasAttachments: boolean('has_attachments').notNull().default(false),
    /** Line items and payments as Xero sent them, mapped to our camelCase shape. */
    lines: jsonb('lines').$type<unknown[]>().notNull().default([]),
    payments: jsonb('payments').$type<unknown[]>().notNull().default([]),
    updatedUtc: timestamp('updated_utc', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.invoiceId] }),
    index('xero_invoices_status_idx').on(t.organizationId, t.type, t.status),
    index('xero_invoices_contact_date_idx').on(t.organizationId, t.contactId, t.date),
  ],
);

export const xeroAccounts = pgTable(
  'xero_accounts',
  {
    organizationId: orgRef(),
    accountId: text('account_id').notNull(),
    code: text('code'),
    name: text('name').notNull(),
    type: text('type').notNull(),
    class: text('class'),
    status: text('status').notNull(),
    bankAccountType: text('bank_account_type'),
    /** As Xero shows it (sort code and number, a masked card number); null when Xero has none. */
    bankAccountNumber: text('bank_account_number'),
    taxType: text('tax_type'),
    enablePaymentsToAccount: boolean('enable_payments_to_account').notNull().default(false),
    systemAccount: text('system_account'),
    updatedUtc: timestamp('updated_utc', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.accountId] })],
);

export const xeroTaxRates = pgTable(
  'xero_tax_rates',
  {
    organizationId: orgRef(),
    taxType: text('tax_type').notNull(),
    name: text('name').notNull(),
    /** Effective rate in percent, e.g. 20.0000. */
    rate: numeric('rate', { precision: 9, scale: 4 }).notNull(),
    status: text('status').notNull(),
    canApplyToRevenue: boolean('can_apply_to_revenue').notNull().default(false),
    canApplyToExpenses: boolean('can_apply_to_expenses').notNull().default(false),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.taxType] })],
);

export const xeroContacts = pgTable(
  'xero_contacts',
  {
    organizationId: orgRef(),
    contactId: text('contact_id').notNull(),
    name: text('name').notNull(),
    email: text('email'),
    status: text('status').notNull(),
    isSupplier: boolean('is_supplier').notNull().default(false),
    isCustomer: boolean('is_customer').notNull().default(false),
    groupIds: jsonb('group_ids').$type<string[]>().notNull().default([]),
    /**
     * The contact's VAT number (Xero's TaxNumber) and its default purchases tax rate (AccountsPayableTaxType):
     * a subcontractor without a VAT number, or whose purchases rate is "No VAT" (NONE), charges no VAT (issue 42).
     */
    taxNumber: text('tax_number'),
    accountsPayableTaxType: text('accounts_payable_tax_type'),
    /**
     * Contact CIS settings (GET /Contacts/{id}/CISSettings), read when the contact is shown or picked and kept
     * while the contact's UpdatedDateUTC stays at `cisCheckedUpdatedUtc` (the value it had when they were read).
     */
    cisEnabled: boolean('cis_enabled'),
    cisRate: integer('cis_rate'),
    cisCheckedAt: timestamp('cis_checked_at', { withTimezone: true }),
    cisCheckedUpdatedUtc: timestamp('cis_checked_updated_utc', { withTimezone: true }),
    updatedUtc: timestamp('updated_utc', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.contactId] }),
    index('xero_contacts_name_idx').on(t.organizationId, t.name),
  ],
);

export const xeroContactGroups = pgTable(
  'xero_contact_groups',
  {
    organizationId: orgRef(),
    groupId: text('group_id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    contactIds: jsonb('contact_ids').$type<string[]>().notNull().default([]),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.groupId] })],
);

/**
 * Supplier credit notes (ACCPAYCREDIT) as Xero has them (issue 42): a CIS subcontractor's credit note allocated to
 * a bill reduces that bill on the CIS return, and one refunded in cash reduces the month of the refund
 * (src/shared/cis-figures.ts). Lines, allocations and refunds are kept whole, in our camelCase shape.
 */
export const xeroCreditNotes = pgTable(
  'xero_credit_notes',
  {
    organizationId: orgRef(),
    creditNoteId: text('credit_note_id').notNull(),
    /** ACCPAYCREDIT (from a supplier) or ACCRECCREDIT (to a customer). */
    type: text('type').notNull(),
    creditNoteNumber: text('credit_note_number'),
    contactId: text('contact_id'),
    contactName: text('contact_name'),
    status: text('status').notNull(),
    lineAmountTypes: text('line_amount_types'),
    date: date('date'),
    subTotalPence: pence('sub_total_pence').notNull().default(0),
    totalPence: pence('total_pence').notNull().default(0),
    remainingCreditPence: pence('remaining_credit_pence').notNull().default(0),
    /** Xero's own CIS deduction on a CIS credit note (null when Xero computed none). */
    cisDeductionPence: pence('cis_deduction_pence'),
    cisRate: numeric('cis_rate', { precision: 9, scale: 4 }),
    lines: jsonb('lines').$type<unknown[]>().notNull().default([]),
    /** [{ allocationId, invoiceId, amountPence, date }]: the bills it was allocated to. */
    allocations: jsonb('allocations').$type<unknown[]>().notNull().default([]),
    /** [{ paymentId, date, amountPence }]: cash the supplier refunded against it. */
    payments: jsonb('payments').$type<unknown[]>().notNull().default([]),
    updatedUtc: timestamp('updated_utc', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.creditNoteId] }),
    index('xero_credit_notes_contact_idx').on(t.organizationId, t.type, t.contactId),
  ],
);
