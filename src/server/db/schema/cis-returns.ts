import { boolean, date, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';
import { organizations } from './xero';

/**
 * The CIS month-end (issue 29). Xero's API gives neither the contractor's nor the subcontractors' HMRC
 * references (docs/xero-api.md §4.8), so Ledgerlink keeps them, with the organisation's materials accounts and
 * the months marked as filed.
 */
const orgRef = () =>
  integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });

/** One row per organisation: the contractor's references and which accounts hold materials. */
export const cisContractorSettings = pgTable('cis_contractor_settings', {
  organizationId: orgRef().primaryKey(),
  /** The name on statements; null means the organisation's name. */
  contractorName: text('contractor_name'),
  utr: text('utr'),
  employerReference: text('employer_reference'),
  accountsOfficeReference: text('accounts_office_reference'),
  /** Codes of the accounts whose bill lines are materials (none by default). */
  materialsAccountCodes: jsonb('materials_account_codes').$type<string[]>().notNull().default([]),
  /**
   * Code of the liability account a Ledgerlink bill books its CIS deduction to, as a line of its own (issue 42:
   * Xero's API refuses its CIS system accounts on line items). Null until chosen; bills to a subcontractor
   * with a deduction are refused until it is.
   */
  deductionAccountCode: text('deduction_account_code'),
  /**
   * Whether the organisation applies the VAT domestic reverse charge (Xero UK's DRCHARGE20) to bills from
   * VAT-registered subcontractors (issue 42).
   */
  reverseCharge: boolean('reverse_charge').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A subcontractor's UTR and verification number, per organisation and Xero contact. */
export const cisSubcontractorRefs = pgTable(
  'cis_subcontractor_refs',
  {
    organizationId: orgRef(),
    contactId: text('contact_id').notNull(),
    utr: text('utr'),
    verificationNumber: text('verification_number'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.contactId] })],
);

/** A monthly return marked as filed with HMRC; undoing the mark deletes the row (the audit log keeps both). */
export const cisReturnFilings = pgTable(
  'cis_return_filings',
  {
    organizationId: orgRef(),
    /** `YYYY-MM` of the month the tax month ends in. */
    period: text('period').notNull(),
    filedOn: date('filed_on').notNull(),
    filedAt: timestamp('filed_at', { withTimezone: true }).notNull().defaultNow(),
    filedByUserId: integer('filed_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    filedByName: text('filed_by_name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.period] })],
);
