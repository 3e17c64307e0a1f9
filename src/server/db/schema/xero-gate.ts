import { bigserial, index, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The Xero call gate shared by every instance on one PostgreSQL (docs/decisions/, "shared Xero gate"): one row
 * per call, from the moment it queues until a day after its answer. `waiting` rows keep the queue's order
 * (by id) across instances; `in_flight` rows count against the 5 in flight; `done` rows against the minute
 * and the day. `lease_until` is renewed by the instance that owns the row: a row whose instance died stops
 * counting as waiting or in flight when its lease runs out.
 */
export const XERO_GATE_STATES = ['waiting', 'in_flight', 'done'] as const;

export const xeroGateCalls = pgTable(
  'xero_gate_calls',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: text('tenant_id').notNull(),
    instanceId: text('instance_id').notNull(),
    state: text('state', { enum: XERO_GATE_STATES }).notNull().default('waiting'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull(),
    /**
     * 0 a person's call, 1 a background read (issue 47): a waiting person's call goes before every waiting
     * background call of its organisation, and background calls leave part of each limit to people.
     */
    priority: smallint('priority').notNull().default(0),
  },
  (t) => [
    index('xero_gate_calls_tenant_state_idx').on(t.tenantId, t.state, t.id),
    index('xero_gate_calls_tenant_started_idx').on(t.tenantId, t.startedAt),
    index('xero_gate_calls_answered_idx').on(t.answeredAt),
    index('xero_gate_calls_state_idx').on(t.state, t.startedAt),
  ],
);

/** Per organisation: no call starts before `paused_until` (a 429's Retry-After) or `day_blocked_until`. */
export const xeroGateTenants = pgTable('xero_gate_tenants', {
  tenantId: text('tenant_id').primaryKey(),
  pausedUntil: timestamp('paused_until', { withTimezone: true }),
  dayBlockedUntil: timestamp('day_blocked_until', { withTimezone: true }),
});
