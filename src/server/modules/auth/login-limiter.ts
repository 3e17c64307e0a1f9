import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { loginAttempts } from '../../db/schema/index.ts';

/**
 * Password-guessing limits, kept in the database so every app instance sees the same counts:
 * - per account and address: 10 failures in 15 minutes (the person at the keyboard slows down; others don't);
 * - per account from anywhere: at most 100 attempts evaluated an hour (NIST SP 800-63B §5.2.2);
 * - per address: 100 failures an hour across all accounts (one source spraying many accounts).
 * A blocked attempt is not evaluated at all, so it costs no argon2 time either.
 */
export const LOGIN_LIMITS = {
  accountAndAddress: { max: 10, windowMs: 15 * 60_000 },
  account: { max: 100, windowMs: 60 * 60_000 },
  address: { max: 100, windowMs: 60 * 60_000 },
} as const;

export function usernameKey(username: string): string {
  return username.trim().toLowerCase();
}

export function createLoginLimiter(db: Db) {
  async function countSince(filters: ReturnType<typeof eq>[], windowMs: number) {
    const since = new Date(Date.now() - windowMs);
    const [row] = await db
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(...filters, gt(loginAttempts.at, since)));
    return row?.n ?? 0;
  }

  return {
    /** Minutes to wait, or 0 when this attempt may be evaluated. */
    async check(username: string, ip: string): Promise<number> {
      const key = usernameKey(username);
      const failed = eq(loginAttempts.success, false);
      const [pair, account, address] = await Promise.all([
        countSince([eq(loginAttempts.usernameKey, key), eq(loginAttempts.ip, ip), failed], LOGIN_LIMITS.accountAndAddress.windowMs),
        countSince([eq(loginAttempts.usernameKey, key)], LOGIN_LIMITS.account.windowMs),
        countSince([eq(loginAttempts.ip, ip), failed], LOGIN_LIMITS.address.windowMs),
      ]);
      if (pair >= LOGIN_LIMITS.accountAndAddress.max) return 15;
      if (account >= LOGIN_LIMITS.account.max || address >= LOGIN_LIMITS.address.max) return 60;
      return 0;
    },
    async record(username: string, ip: string, success: boolean): Promise<void> {
      await db.insert(loginAttempts).values({ usernameKey: usernameKey(username), ip, success });
    },
    async purgeOld(): Promise<void> {
      await db.delete(loginAttempts).where(lt(loginAttempts.at, new Date(Date.now() - 2 * 60 * 60_000)));
    },
  };
}
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
