import { boolean, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * The last TOTP time step each user signed in with. A code is accepted only for a later step, so a code seen
 * over someone's shoulder (or replayed from a log) cannot be used a second time within its 90-second window.
 */
export const mfaTotpSteps = pgTable('mfa_totp_steps', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  lastTimeStep: integer('last_time_step').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Two-step codes tried (TOTP, recovery code, or password to turn it off), for the per-account limiter. */
export const mfaAttempts = pgTable(
  'mfa_attempts',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ip: text('ip').notNull(),
    success: boolean('success').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('mfa_attempts_user_idx').on(t.userId, t.at)],
);
