import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { mfaAttempts } from '../../db/schema/index.ts';
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
  async function countFailures(userId: number, windowMs: number): Promise<number> {
    const [row] = await db
      .select({ n: count() })
      .from(mfaAttempts)
      .where(and(eq(mfaAttempts.userId, userId), eq(mfaAttempts.success, false), gt(mfaAttempts.at, new Date(Date.now() - windowMs))));
    return row?.n ?? 0;
  }

  return {
    /**
     * Counts an attempt before it is evaluated: the row goes in first (as a failure) and the count includes
     * it, so parallel requests cannot slip past the limit together. Throws 429 when over; returns the
     * attempt's id for `succeed`.
     */
    async begin(userId: number, ip: string): Promise<number> {
      await db.delete(mfaAttempts).where(and(eq(mfaAttempts.userId, userId), lt(mfaAttempts.at, new Date(Date.now() - KEEP_MS))));
      const [row] = await db.insert(mfaAttempts).values({ userId, ip, success: false }).returning({ id: mfaAttempts.id });
      const id = row?.id ?? 0;
      for (const limit of MFA_LIMITS) {
        if ((await countFailures(userId, limit.windowMs)) > limit.max) {
          // A refused attempt was never evaluated: it does not extend the wait.
          await db.delete(mfaAttempts).where(eq(mfaAttempts.id, id));
          throw new AppError('RATE_LIMITED', MFA_TEXTS.tooManyAttempts(limit.windowMs / 60_000));
        }
      }
      return id;
    },
    async succeed(attemptId: number): Promise<void> {
      await db.update(mfaAttempts).set({ success: true }).where(eq(mfaAttempts.id, attemptId));
    },
  };
}
export type MfaLimiter = ReturnType<typeof createMfaLimiter>;
