import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { organizations } from './xero';

/**
 * Xero's webhook events as they arrived (docs/decisions/018-webhooks.md), stored before the receiver answers
 * 200 so none is lost when the process dies right after. Xero retries a delivery it did not see answered and
 * keeps no order, so one change may arrive twice or after a later one: the unique key drops the repeat, and
 * processing reads the resource's current state from Xero, so the order does not matter.
 */
export const xeroWebhookEvents = pgTable(
  'xero_webhook_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: text('tenant_id').notNull(),
    /** INVOICE or CONTACT. */
    category: text('category').notNull(),
    /** CREATE or UPDATE. */
    eventType: text('event_type').notNull(),
    resourceId: text('resource_id').notNull(),
    eventAt: timestamp('event_at', { withTimezone: true }).notNull(),
    /** The delivery's lastEventSequence (Xero numbers deliveries, not events). */
    sequence: bigint('sequence', { mode: 'number' }),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /** An instance working on the event holds it until then; a crash frees it. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    /** What processing did: 'applied', 'ignored' (no user connected the tenant) or the last error. */
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [
    uniqueIndex('xero_webhook_events_unique_idx').on(
      t.tenantId,
      t.category,
      t.resourceId,
      t.eventType,
      t.eventAt,
    ),
    index('xero_webhook_events_pending_idx').on(t.processedAt, t.id),
  ],
);

/**
 * What the open screens are told (GET /api/events): one row per change of an organisation's data, numbered
 * so a browser that reconnects asks for what it missed (Last-Event-ID). Kept for a day.
 */
export const liveEvents = pgTable(
  'live_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** 'invoices' or 'contacts'. */
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('live_events_org_idx').on(t.organizationId, t.id)],
);

/**
 * What the receiver knows of the app's whole delivery stream (one row, id 1): when the first signed delivery
 * arrived (webhooks began) and the sequence up to which every delivery has arrived. Deliveries that came
 * past a missing one wait in xero_webhook_ranges until the gap fills (docs/decisions/018-webhooks.md).
 */
export const xeroWebhookFeed = pgTable('xero_webhook_feed', {
  id: integer('id').primaryKey(),
  firstDeliveryAt: timestamp('first_delivery_at', { withTimezone: true }),
  sequenceDone: bigint('sequence_done', { mode: 'number' }),
});

/** Deliveries received past a sequence gap: first..last, and when they came (the gap was seen then). */
export const xeroWebhookRanges = pgTable(
  'xero_webhook_ranges',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    firstSequence: bigint('first_sequence', { mode: 'number' }).notNull(),
    lastSequence: bigint('last_sequence', { mode: 'number' }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('xero_webhook_ranges_first_idx').on(t.firstSequence)],
);

/**
 * Live-update health per Xero organisation (tenant id, lower case): since when a delivery is awaited
 * (Ledgerlink wrote to Xero, or read a change there, and none came since), the last delivery naming it, and
 * the last trouble that may have lost deliveries (cached views read before it are refreshed from Xero once).
 */
export const xeroWebhookHealth = pgTable('xero_webhook_health', {
  tenantId: text('tenant_id').primaryKey(),
  awaitingSince: timestamp('awaiting_since', { withTimezone: true }),
  lastDeliveryAt: timestamp('last_delivery_at', { withTimezone: true }),
  suspectSince: timestamp('suspect_since', { withTimezone: true }),
});
