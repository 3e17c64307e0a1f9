import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { users } from './users';
import { organizations } from './xero';

/**
 * Filing with HMRC (issue 43, decision 043): the contractor's Government Gateway credentials, each message sent to
 * HMRC's Transaction Engine with its outcome, the subcontractors' verifications, the statements emailed and the
 * demo's outbox.
 */
const orgRef = () =>
  integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });

const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => value,
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * The contractor's Government Gateway user ID and password, one pair per organisation, encrypted at rest as Xero
 * tokens are (AES-256-GCM with TOKEN_ENCRYPTION_KEY, src/server/lib/crypto.ts); with the deadline reminder's
 * settings.
 */
export const hmrcCredentials = pgTable('hmrc_credentials', {
  organizationId: orgRef().primaryKey(),
  senderIdEnc: text('sender_id_enc'),
  passwordEnc: text('password_enc'),
  updatedByUserId: integer('updated_by_user_id').references(() => users.id, { onDelete: 'set null' }),
  updatedByName: text('updated_by_name'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** Email the contractor 5 days before the 19th while the month's return is not filed. */
  remindersEnabled: boolean('reminders_enabled').notNull().default(false),
  reminderEmail: text('reminder_email'),
});

/**
 * One message to HMRC (a monthly return or a verification request), recorded before it is sent and never sent
 * twice (decision 043): `state` is what the screens say (sending, accepted, rejected); `phase` where the exchange
 * is (recorded → submitting → polling → answered). The message is kept without the password.
 */
export const hmrcSubmissions = pgTable(
  'hmrc_submissions',
  {
    id: serial('id').primaryKey(),
    organizationId: orgRef(),
    kind: text('kind', { enum: ['cis300', 'verify'] }).notNull(),
    /** A return's tax month (YYYY-MM). */
    period: text('period'),
    /** A verification's Xero contact. */
    contactId: text('contact_id'),
    state: text('state', { enum: ['sending', 'accepted', 'rejected'] }).notNull(),
    phase: text('phase', { enum: ['recorded', 'submitting', 'polling', 'answered'] }).notNull(),
    /** The browser's key for the action (a double click sends the same). */
    idempotencyKey: text('idempotency_key'),
    /** Ours, in MessageDetails/TransactionID: how a submission whose acknowledgement was lost is found on HMRC's queue. */
    transactionId: text('transaction_id').notNull(),
    correlationId: text('correlation_id'),
    responseEndPoint: text('response_end_point'),
    pollIntervalSeconds: integer('poll_interval_seconds'),
    nextPollAt: timestamp('next_poll_at', { withTimezone: true }),
    /** Whoever polls holds the row until then (instances share the work). */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** The instance that sent it (ledger_instances): its heartbeat tells whether the send may still be on its way. */
    instanceId: text('instance_id'),
    irmark: text('irmark').notNull(),
    irmarkBase32: text('irmark_base32').notNull(),
    gatewayTest: boolean('gateway_test').notNull(),
    requestXml: text('request_xml').notNull(),
    /** What was sent, in our words: a return's lines and totals, a verification's subcontractor. */
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    declarations: jsonb('declarations').$type<Record<string, boolean>>(),
    /** HMRC's receipt of an accepted message. */
    receipt: jsonb('receipt').$type<Record<string, unknown>>(),
    /** HMRC's reasons for a rejection, in words. */
    reasons: jsonb('reasons').$type<Array<Record<string, unknown>>>(),
    /** HMRC said the failure was temporary: the same message may go again. */
    retryable: boolean('retryable').notNull().default(false),
    /** A verification's answer. */
    result: jsonb('result').$type<Record<string, unknown>>(),
    /** The answer was taken off HMRC's queue (request/delete). */
    queueDeleted: boolean('queue_deleted').notNull().default(false),
    createdByUserId: integer('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdByName: text('created_by_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('hmrc_submissions_transaction_idx').on(t.transactionId),
    uniqueIndex('hmrc_submissions_key_idx')
      .on(t.organizationId, t.kind, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // One return per month on its way or accepted: a second one is the first one's outcome (decision 043).
    uniqueIndex('hmrc_submissions_one_return_idx')
      .on(t.organizationId, t.period)
      .where(sql`${t.kind} = 'cis300' and ${t.state} in ('sending', 'accepted')`),
    uniqueIndex('hmrc_submissions_one_verification_idx')
      .on(t.organizationId, t.contactId)
      .where(sql`${t.kind} = 'verify' and ${t.state} = 'sending'`),
    index('hmrc_submissions_open_idx').on(t.state, t.nextPollAt),
  ],
);

/** A subcontractor's latest verification with HMRC: the rate the deduction uses (the history is in the audit log). */
export const cisVerifications = pgTable(
  'cis_verifications',
  {
    organizationId: orgRef(),
    contactId: text('contact_id').notNull(),
    submissionId: integer('submission_id').references(() => hmrcSubmissions.id, { onDelete: 'set null' }),
    matched: boolean('matched').notNull(),
    taxTreatment: text('tax_treatment').notNull(),
    rate: integer('rate').notNull(),
    verificationNumber: text('verification_number'),
    utr: text('utr').notNull(),
    nameSent: text('name_sent').notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true }).notNull().defaultNow(),
    verifiedByUserId: integer('verified_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    verifiedByName: text('verified_by_name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.contactId] })],
);

/** A subcontractor's statement emailed: to whom, when and by whom (the activity log has the same line). */
export const cisStatementEmails = pgTable(
  'cis_statement_emails',
  {
    id: serial('id').primaryKey(),
    organizationId: orgRef(),
    period: text('period').notNull(),
    contactId: text('contact_id').notNull(),
    sentTo: text('sent_to').notNull(),
    messageId: text('message_id'),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
    sentByUserId: integer('sent_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    sentByName: text('sent_by_name').notNull(),
  },
  (t) => [index('cis_statement_emails_period_idx').on(t.organizationId, t.period)],
);

/** The deadline reminder sent for a month (once). */
export const hmrcReminders = pgTable(
  'hmrc_reminders',
  {
    organizationId: orgRef(),
    period: text('period').notNull(),
    sentTo: text('sent_to').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.period] })],
);

/** Demo mode's outbox: each email Ledgerlink sent, as sent, for a person to open (no SMTP server). */
export const mailOutbox = pgTable('mail_outbox', {
  id: serial('id').primaryKey(),
  organizationId: integer('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
  sentTo: text('sent_to').notNull(),
  sentFrom: text('sent_from').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  /** The whole message as SMTP would carry it (RFC 5322, with its attachments). */
  raw: bytea('raw').notNull(),
  attachments: jsonb('attachments')
    .$type<Array<{ filename: string; contentType: string; size: number }>>()
    .notNull()
    .default([]),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const mailOutboxAttachments = pgTable(
  'mail_outbox_attachments',
  {
    messageId: integer('message_id')
      .notNull()
      .references(() => mailOutbox.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.position] })],
);
