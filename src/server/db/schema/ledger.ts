import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  bigserial,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { WRITE_KINDS, XERO_WRITE_STATES } from '../../ledger/rules';
import { users } from './users';
import { organizations } from './xero';

/**
 * The local ledger of money writes (docs/architecture.md §3): every write to Xero is recorded here before it
 * is sent, with its idempotency key and a fingerprint of the request, and moves pending → sent → confirmed |
 * failed, or `unknown` when the answer was lost and Xero must be asked before anything is sent again.
 */
export { XERO_WRITE_STATES, type XeroWriteState } from '../../ledger/rules';

export const xeroWrites = pgTable(
  'xero_writes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** One of WRITE_KINDS (src/server/ledger/rules.ts). */
    kind: text('kind', { enum: WRITE_KINDS }).notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 of the canonical request: the same key with a different request is refused. */
    fingerprint: text('fingerprint').notNull(),
    /** The Xero object the write is about (invoice id for a payment, period key for a journal…). */
    targetId: text('target_id'),
    amountPence: bigint('amount_pence', { mode: 'number' }),
    state: text('state', { enum: XERO_WRITE_STATES }).notNull().default('pending'),
    request: jsonb('request').$type<unknown>().notNull(),
    response: jsonb('response').$type<unknown>(),
    /** The id Xero gave the created object (PaymentID, InvoiceID, ManualJournalID). */
    xeroId: text('xero_id'),
    error: text('error'),
    /**
     * The activity-log line this write stands for (action, target, username, ip, detail): the ledger writes it
     * once, when the row reaches confirmed or failed, whoever settles it (the request, a same-key retry, the
     * reconciler after a restart). Null for writes that are not logged.
     */
    audit: jsonb('audit').$type<unknown>(),
    /**
     * The document this write changes, e.g. `invoice:<id>`, `bill:<id>`, `journal-week:<period>` (issue 28):
     * while a write on a document is open, a write on it under another key is refused, on any instance.
     */
    document: text('document'),
    /** How people name that document ("INV-2015"), for the message that refuses a second writer. */
    documentLabel: text('document_label'),
    /**
     * A step of a multi-step action (issue 28): the write that must be confirmed in Xero before this one is
     * sent. Every step is recorded before the first is sent, so whoever picks the action up finishes it.
     */
    dependsOn: bigint('depends_on', { mode: 'number' }),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /**
     * The server instance that recorded and sends it (ledger_instances.id): while that instance beats, a
     * pending or sent write is in flight; once it stops, the write is settled at once (issue 28 item 5).
     */
    instanceId: text('instance_id'),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /**
     * Settled without the request that made it (a look-up, the reconciler, a step it finished, an
     * administrator), so the cached views have not taken it yet (issue 44): the catch-up reads what it changed
     * from Xero into the cache and tells the open screens, then clears this. Set in the settling transaction.
     */
    viewsDue: boolean('views_due').notNull().default(false),
    /**
     * An administrator sending this held write again (issue 44): who, and since when. While it is fresh, a
     * cancel or a second "Send again" is refused, so a cancel never reports a change Xero is being sent.
     */
    reviewClaimBy: text('review_claim_by'),
    reviewClaimAt: timestamp('review_claim_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('xero_writes_key_idx').on(t.organizationId, t.idempotencyKey),
    index('xero_writes_state_idx').on(t.state, t.createdAt),
    index('xero_writes_target_idx').on(t.organizationId, t.kind, t.targetId),
    index('xero_writes_document_idx').on(t.organizationId, t.document),
    index('xero_writes_depends_idx').on(t.dependsOn),
    index('xero_writes_views_due_idx')
      .on(t.organizationId)
      .where(sql`${t.viewsDue}`),
  ],
);

/**
 * One row per running server instance, its heartbeat renewed every HEARTBEAT_INTERVAL_MS (issue 28 item 5): a
 * write `sent` by an instance whose heartbeat is stale lost its answer with that instance and is settled by
 * look-up at once. A cleanly stopped instance deletes its row.
 */
export const ledgerInstances = pgTable('ledger_instances', {
  id: text('id').primaryKey(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Each `npm run db:restore` (issue 28 item 4): the restored database does not know the writes made after its
 * backup, so for a while after a restore the ledger looks every caller's key it does not know up in Xero (by
 * the mark each write leaves there) before sending it.
 */
export const ledgerRestores = pgTable('ledger_restores', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  restoredAt: timestamp('restored_at', { withTimezone: true }).notNull().defaultNow(),
  /** The backup file's name, for the record. */
  backupFile: text('backup_file'),
});

/**
 * Cash taken against a draft invoice that is not approved yet: applied when it is approved here
 * (docs/architecture.md §4).
 */
export const draftCashAmounts = pgTable(
  'draft_cash_amounts',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    invoiceId: text('invoice_id').notNull(),
    amountPence: bigint('amount_pence', { mode: 'number' }).notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.invoiceId] })],
);

/**
 * One stock journal per organisation and period (docs/architecture.md §4): a second post for the period is a
 * 409.
 */
export const stockJournalEntries = pgTable(
  'stock_journal_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    customerId: text('customer_id'),
    periodStart: date('period_start').notNull(),
    periodEnd: date('period_end').notNull(),
    journalId: text('journal_id'),
    /** DRAFT, POSTED, VOIDED, DELETED as Xero reports it; 'PENDING' while the write is in flight. */
    status: text('status').notNull(),
    netPence: bigint('net_pence', { mode: 'number' }).notNull(),
    amountPence: bigint('amount_pence', { mode: 'number' }).notNull(),
    marginRate: text('margin_rate').notNull(),
    reference: text('reference').notNull(),
    writeId: bigint('write_id', { mode: 'number' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('stock_journal_period_idx').on(t.organizationId, t.periodStart, t.periodEnd)],
);
