import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
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
  /**
   * The day the contractor first made a CIS return, when that was before the first return marked filed here:
   * HMRC's penalty rules for contractors new to CIS hinge on it (issue 42, CH62540). Null: the first marked here.
   */
  firstReturnOn: date('first_return_on'),
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

/** A return line as it was filed (the shape of `cisReturnLineSchema`, pounds). */
export interface FiledLine {
  contactId: string;
  name: string;
  utr: string | null;
  verificationNumber: string | null;
  rate: number | null;
  grossAmount: number;
  materialsAmount: number;
  deductionAmount: number;
}

/**
 * A monthly return filed with HMRC; undoing the mark deletes the row (the audit log keeps both). Since issue 42 it
 * keeps what was filed (the lines and totals, pounds as on the return) and, when Ledgerlink filed it with HMRC
 * (issue 43), HMRC's receipt.
 */
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
    /** 'manual' (marked by a person) or 'hmrc' (sent through Ledgerlink, with HMRC's receipt). */
    source: text('source').notNull().default('manual'),
    /** The lines and totals as filed; null on months marked before issue 42. */
    lines: jsonb('lines').$type<FiledLine[]>(),
    totals: jsonb('totals').$type<{
      grossAmount: number;
      materialsAmount: number;
      deductionAmount: number;
    }>(),
    /** The deductions as filed, in pence: the late-filing penalty's 5 % is of these. */
    deductionPence: bigint('deduction_pence', { mode: 'number' }),
    /** HMRC's receipt: the IRmark, HMRC's time of receipt and its correlation id. */
    irmark: text('irmark'),
    hmrcReceivedAt: timestamp('hmrc_received_at', { withTimezone: true }),
    correlationId: text('correlation_id'),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.period] })],
);

/**
 * A nil month dealt with without a return: HMRC told in advance that no payments would be made, or the scheme
 * inactive (issue 42). Removed when taken off.
 */
export const cisNilMonths = pgTable(
  'cis_nil_months',
  {
    organizationId: orgRef(),
    period: text('period').notNull(),
    /** 'told-in-advance' or 'inactive'. */
    kind: text('kind').notNull(),
    markedAt: timestamp('marked_at', { withTimezone: true }).notNull().defaultNow(),
    markedByUserId: integer('marked_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    markedByName: text('marked_by_name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.period] })],
);

/**
 * What each payment to a CIS subcontractor (and each refund of their credit note) carried onto the return, kept
 * the first time Ledgerlink counted it (issue 42): a settings change later (materials accounts, the deductions
 * account), a change of the contact's CIS rate, or a cache clean-up never moves a paid month. A row counts while
 * Xero still lists the payment on its document (a payment removed in Xero stops counting).
 */
export const cisCountedPayments = pgTable(
  'cis_counted_payments',
  {
    organizationId: orgRef(),
    paymentId: text('payment_id').notNull(),
    /** The bill (ACCPAY) or supplier credit note (ACCPAYCREDIT) it is on. */
    documentId: text('document_id').notNull(),
    documentType: text('document_type').notNull(),
    contactId: text('contact_id').notNull(),
    contactName: text('contact_name').notNull(),
    /** The payment's date: the tax month it counts in. */
    date: date('date').notNull(),
    amountPence: bigint('amount_pence', { mode: 'number' }).notNull(),
    /** Positive on a bill's payment; a credit note's refund carries negative figures. */
    grossPence: bigint('gross_pence', { mode: 'number' }).notNull(),
    materialsPence: bigint('materials_pence', { mode: 'number' }).notNull(),
    deductionPence: bigint('deduction_pence', { mode: 'number' }).notNull(),
    /** The rate the document says it was deducted at (`at N%`, Xero's CISRate); null when it does not say. */
    rateUsed: integer('rate_used'),
    /** Xero's CIS settings for the contact when counted: enabled, and the rate. */
    contactCis: boolean('contact_cis').notNull(),
    contactRate: integer('contact_rate'),
    /** The accounts rule it was counted under: materials accounts and the deductions account. */
    rule: jsonb('rule')
      .$type<{ materialsAccountCodes: string[]; deductionAccountCode: string | null }>()
      .notNull(),
    countedAt: timestamp('counted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.paymentId] }),
    index('cis_counted_payments_date_idx').on(t.organizationId, t.date),
    index('cis_counted_payments_document_idx').on(t.organizationId, t.documentId),
  ],
);
