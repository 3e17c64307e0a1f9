import { and, count, eq, gt, lt, sql } from 'drizzle-orm';
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

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export function createLoginLimiter(db: Db) {
  async function countSince(tx: Tx, filters: ReturnType<typeof eq>[], windowMs: number) {
    const since = new Date(Date.now() - windowMs);
    const [row] = await tx
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(...filters, gt(loginAttempts.at, since)));
    return row?.n ?? 0;
  }

  return {
    /**
     * Reserves one evaluation: under transaction-scoped advisory locks on the account and the address (always
     * taken in that order), counts what went before and, when under every limit, records this attempt as a
     * failure until `finish` says otherwise. Parallel guesses therefore cannot slip past a limit together, on
     * one instance or many. Answers the minutes to wait, or the attempt's id.
     */
    async begin(username: string, ip: string): Promise<{ waitMinutes: number } | { id: number }> {
      const key = usernameKey(username);
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`login-account:${key}`}))`);
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`login-address:${ip}`}))`);
        const failed = eq(loginAttempts.success, false);
        const pair = await countSince(tx, [eq(loginAttempts.usernameKey, key), eq(loginAttempts.ip, ip), failed], LOGIN_LIMITS.accountAndAddress.windowMs);
        if (pair >= LOGIN_LIMITS.accountAndAddress.max) return { waitMinutes: 15 };
        const account = await countSince(tx, [eq(loginAttempts.usernameKey, key)], LOGIN_LIMITS.account.windowMs);
        const address = await countSince(tx, [eq(loginAttempts.ip, ip), failed], LOGIN_LIMITS.address.windowMs);
        if (account >= LOGIN_LIMITS.account.max || address >= LOGIN_LIMITS.address.max) return { waitMinutes: 60 };
        const [row] = await tx.insert(loginAttempts).values({ usernameKey: key, ip, success: false }).returning({ id: loginAttempts.id });
        return { id: row?.id ?? 0 };
      });
    },
    async finish(attemptId: number, success: boolean): Promise<void> {
      if (success) await db.update(loginAttempts).set({ success: true }).where(eq(loginAttempts.id, attemptId));
    },
    async purgeOld(): Promise<void> {
      await db.delete(loginAttempts).where(lt(loginAttempts.at, new Date(Date.now() - 2 * 60 * 60_000)));
    },
  };
}
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
