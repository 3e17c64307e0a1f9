import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Append-only record of sign-ins, admin actions, settings changes, connections and money writes. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    userId: integer('user_id'),
    username: text('username'),
    organizationId: integer('organization_id'),
    action: text('action').notNull(),
    target: text('target'),
    result: text('result', { enum: ['success', 'failure'] }).notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>(),
    ip: text('ip'),
  },
  (t) => [index('audit_log_at_idx').on(t.at), index('audit_log_org_idx').on(t.organizationId, t.at)],
);
