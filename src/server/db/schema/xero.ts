import {
  bigint,
  boolean,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/** An OAuth authorisation in flight: state, PKCE verifier and nonce kept on the server. */
export const oauthRequests = pgTable('oauth_requests', {
  state: text('state').primaryKey(),
  purpose: text('purpose', { enum: ['signin', 'connect', 'reconnect'] }).notNull(),
  userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
  codeVerifier: text('code_verifier').notNull(),
  nonce: text('nonce').notNull(),
  /**
   * The organisation the user asked to connect (Connect on its card, issue 45 item 1): the callback says so
   * when the consent left it out. Not a foreign key: the request lives 15 minutes and only names it.
   */
  organizationId: integer('organization_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One Xero token set per user, covering every tenant that user authorised. Encrypted at rest. */
export const xeroTokens = pgTable('xero_tokens', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  xeroUserId: text('xero_user_id'),
  accessTokenEnc: text('access_token_enc').notNull(),
  refreshTokenEnc: text('refresh_token_enc'),
  /** The refresh token before the last rotation: Xero still honours it for a grace period. */
  previousRefreshTokenEnc: text('previous_refresh_token_enc'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  scopes: text('scopes').notNull().default(''),
  /** 'active', or 'reconnect_required' after invalid_grant: never retried in a loop. */
  status: text('status', { enum: ['active', 'reconnect_required'] })
    .notNull()
    .default('active'),
  lastError: text('last_error'),
  /**
   * Why the connection needs reconnecting (issue 45): 'expired' (the refresh token went unused past Xero's 60
   * days, or none was kept) or 'revoked' (Xero refused a refresh token still in date). Null while active.
   */
  lostReason: text('lost_reason', { enum: ['expired', 'revoked'] }),
  /** When the loss was noticed. */
  lostAt: timestamp('lost_at', { withTimezone: true }),
  refreshedAt: timestamp('refreshed_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * When Xero's GET /connections was last read for a user by the connections watch (issue 45 item 2): an instance
 * claims a user by moving `checked_at` forward, so each user is asked once a round whichever instance asks. A
 * table of its own: a change to `xero_tokens` is a change of who asks, announced to every instance (0019).
 */
export const xeroConnectionChecks = pgTable('xero_connection_checks', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
});

export const organizations = pgTable(
  'organizations',
  {
    id: serial('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    tenantName: text('tenant_name'),
    featurePayInvoices: boolean('feature_pay_invoices').notNull().default(false),
    featureAddInvoices: boolean('feature_add_invoices').notNull().default(false),
    featureCisBills: boolean('feature_cis_bills').notNull().default(false),
    featureStockJournal: boolean('feature_stock_journal').notNull().default(false),
    defaultCreditCardAccountId: text('default_credit_card_account_id'),
    defaultCashAccountId: text('default_cash_account_id'),
    defaultSalesAccountId: text('default_sales_account_id'),
    defaultVatRateId: text('default_vat_rate_id'),
    defaultBillVatRateId: text('default_bill_vat_rate_id'),
    defaultBillAccountId: text('default_bill_account_id'),
    defaultContactId: text('default_contact_id'),
    defaultTaxStatus: text('default_tax_status').notNull().default('Tax inclusive'),
    defaultCisSubcontractorsGroupId: text('default_cis_subcontractors_group_id'),
    defaultStockJournalContactId: text('default_stock_journal_contact_id'),
    defaultStockJournalMarginRate: numeric('default_stock_journal_margin_rate', { precision: 10, scale: 2 })
      .notNull()
      .default('1.35'),
    defaultStockJournalStockAccountId: text('default_stock_journal_stock_account_id'),
    defaultStockJournalCostAccountId: text('default_stock_journal_cost_account_id'),
    defaultStockJournalPostingStatus: text('default_stock_journal_posting_status').notNull().default('draft'),
    /** Xero's remaining call budget, from the last answer's headers. */
    rateMinuteRemaining: integer('rate_minute_remaining'),
    rateDayRemaining: integer('rate_day_remaining'),
    rateUpdatedAt: timestamp('rate_updated_at', { withTimezone: true }),
    /**
     * Bytes of Xero's answers received for this organisation in `egressMonth` (UTC 'YYYY-MM'): Xero bills
     * apps by the data they download (issue 19), so the organisation card shows it.
     */
    egressMonth: text('egress_month'),
    egressBytes: bigint('egress_bytes', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('organizations_tenant_idx').on(t.tenantId)],
);

/** Which user may use which organisation; exactly one active per user. */
export const userOrganizations = pgTable(
  'user_organizations',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Xero's connection id (GET /connections `id`), used to disconnect. */
    connectionId: text('connection_id'),
    connected: boolean('connected').notNull().default(true),
    /**
     * Why a membership is not connected (issue 45 item 1): 'disconnected' here (Disconnect on its card),
     * 'removed' in Xero (Xero's GET /connections stopped listing it), or 'not-included' (a consent that left it
     * out). Null while connected, and for a membership disconnected before this was recorded.
     */
    disconnectedReason: text('disconnected_reason', { enum: ['disconnected', 'removed', 'not-included'] }),
    disconnectedAt: timestamp('disconnected_at', { withTimezone: true }),
    isActive: boolean('is_active').notNull().default(false),
    lastAccessed: timestamp('last_accessed', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.organizationId] }),
    index('user_organizations_org_idx').on(t.organizationId),
  ],
);
