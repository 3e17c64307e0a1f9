import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { organizations } from './xero';

/** PostgreSQL `bytea` as a Buffer (pg answers a Buffer, PGlite a Uint8Array: both become a Buffer). */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => value,
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * Attachment bytes fetched from Xero, kept once per content (issue 19, egress): the key is the SHA-256 of
 * the bytes, so the same file on two invoices (or in two organisations) is stored once. Shared content: an
 * organisation only reaches a blob through its own `attachment_files` row, made when it downloaded those bytes
 * itself. Least-recently-used blobs are removed when the total passes ATTACHMENT_STORE_MB.
 */
export const attachmentBlobs = pgTable(
  'attachment_blobs',
  {
    /** Lower-case hex SHA-256 of `content`. */
    sha256: text('sha256').primaryKey(),
    content: bytea('content').notNull(),
    size: integer('size').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('attachment_blobs_last_used_idx').on(t.lastUsedAt)],
);

/**
 * One organisation's attachment as Xero lists it (id and ContentLength) → the blob holding its bytes, with the
 * MIME type it is served as and its file name. A file Xero replaces under the same id lists another length
 * and so misses here (downloaded again).
 */
export const attachmentFiles = pgTable(
  'attachment_files',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Xero's AttachmentID, lower case. */
    attachmentId: text('attachment_id').notNull(),
    /** Xero's ContentLength in the attachment list. */
    contentLength: bigint('content_length', { mode: 'number' }).notNull(),
    sha256: text('sha256')
      .notNull()
      .references(() => attachmentBlobs.sha256, { onDelete: 'cascade' }),
    mimeType: text('mime_type').notNull(),
    fileName: text('file_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.attachmentId, t.contentLength] }),
    index('attachment_files_sha256_idx').on(t.sha256),
  ],
);

/** An attachment as the list of one invoice describes it. */
export interface StoredAttachmentListItem {
  attachmentId: string;
  fileName: string;
  mimeType: string | null;
  contentLength: number | null;
}

/**
 * Xero's attachment list of one invoice (GET /Invoices/{id}/Attachments), reused while the cached invoice's
 * UpdatedDateUTC is the one it was read with and it is young (see attachment-store.ts).
 */
export const attachmentLists = pgTable(
  'attachment_lists',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Xero's InvoiceID, lower case. */
    invoiceId: text('invoice_id').notNull(),
    /** `xero_invoices.updated_utc` when the list was read (null when the cache had none). */
    invoiceUpdatedUtc: timestamp('invoice_updated_utc', { withTimezone: true }),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
    attachments: jsonb('attachments').$type<StoredAttachmentListItem[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.invoiceId] })],
);
