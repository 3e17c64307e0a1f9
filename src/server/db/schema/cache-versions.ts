import { bigint, integer, pgTable } from 'drizzle-orm/pg-core';
import { organizations } from './xero';

/**
 * One counter per organisation that every change to its cached invoices moves on: database triggers on
 * `xero_invoices` (insert, update, delete) and on `xero_sync_state` (delete: a view forgotten must be read
 * again) bump it in the same transaction as the change, whichever module or instance writes. Answers built
 * from the invoice cache are kept in memory under the version they were built at, and a request reads the
 * version with its session (one query), so a write on any instance is seen by the next request everywhere.
 */
export const xeroCacheVersions = pgTable('xero_cache_versions', {
  organizationId: integer('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});
