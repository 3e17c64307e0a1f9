import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { mfaAttempts, users } from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import { MFA_TEXTS } from '../../../shared/mfa';

/**
 * Code-guessing limits per account, kept in the database so every app instance sees the same counts. A
 * 6-digit code with a ±1 step window has 3 right answers in a million: 20 tries an hour gives a guesser
 * about 0.15 % a day, and only after they already have the password (or a signed-in session).
 */
export const MFA_LIMITS = [
  { max: 5, windowMs: 15 * 60_000 },
  { max: 20, windowMs: 60 * 60_000 },
] as const;

const KEEP_MS = 2 * 60 * 60_000;

export function createMfaLimiter(db: Db) {
  type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

  async function countFailures(tx: Tx, userId: number, windowMs: number): Promise<number> {
    const [row] = await tx
      .select({ n: count() })
      .from(mfaAttempts)
      .where(
        and(
          eq(mfaAttempts.userId, userId),
          eq(mfaAttempts.success, false),
          gt(mfaAttempts.at, new Date(Date.now() - windowMs)),
        ),
      );
    return row?.n ?? 0;
  }

  return {
    /**
     * Counts an attempt before it is evaluated: under the user's row lock, the failures so far are counted
     * and, when under every limit, the attempt goes in as a failure (until `succeed`), so parallel requests
     * cannot slip past the limit together. Throws 429 when over; returns the attempt's id for `succeed`.
     */
    async begin(userId: number, ip: string): Promise<number> {
      // The user's row lock serialises one account's attempts across every app instance: the count each
      // attempt sees includes every attempt that went before it, so exactly `max` are evaluated.
      const outcome = await db.transaction(async (tx): Promise<{ id: number } | { refusedForMs: number }> => {
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
        await tx
          .delete(mfaAttempts)
          .where(and(eq(mfaAttempts.userId, userId), lt(mfaAttempts.at, new Date(Date.now() - KEEP_MS))));
        for (const limit of MFA_LIMITS) {
          // A refused attempt was never evaluated: it is not recorded and does not extend the wait.
          if ((await countFailures(tx, userId, limit.windowMs)) >= limit.max)
            return { refusedForMs: limit.windowMs };
        }
        const [row] = await tx
          .insert(mfaAttempts)
          .values({ userId, ip, success: false })
          .returning({ id: mfaAttempts.id });
        return { id: row?.id ?? 0 };
      });
      if ('refusedForMs' in outcome) {
        throw new AppError(
          'RATE_LIMITED',
          MFA_TEXTS.tooManyAttempts(outcome.refusedForMs / 60_000),
          undefined,
          { retryAfterSeconds: outcome.refusedForMs / 1000 },
        );
      }
      return outcome.id;
    },
    async succeed(attemptId: number): Promise<void> {
      await db.update(mfaAttempts).set({ success: true }).where(eq(mfaAttempts.id, attemptId));
    },
  };
}
export type MfaLimiter = ReturnType<typeof createMfaLimiter>;
