import crypto from 'node:crypto';
import { and, count, eq, gt, inArray, lt, not, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { loginAttempts } from '../../db/schema/index';

/**
 * Password-guessing limits (issue 16), after OWASP's Authentication Cheat Sheet ("Login Throttling", "Account
 * Lockout": lock out attackers, not the account's owner; a lockout should expire; an administrator can lift it)
 * and its "Slow Down Online Guessing Attacks with Device Cookies" guidance: a browser that signed in to an
 * account before holds a device cookie for it, and only its own failures count against it, so a guesser
 * elsewhere (even behind the same address) cannot lock the owner out. Other attempts keep the limits:
 * - per account and address: 10 failures in 15 minutes;
 * - per account from anywhere: at most 100 attempts without a device cookie evaluated an hour (NIST SP 800-63B §5.2.2);
 * - per address: 100 failures an hour across all accounts (one source spraying many accounts);
 * - per device cookie: 10 failures in 15 minutes (then it is an unknown browser again until they expire).
 * Counts live in the database so every app instance sees the same. A refused attempt is not evaluated at all,
 * so it costs no argon2 time either; it answers 429 with how long to wait (Retry-After).
 */
export const LOGIN_LIMITS = {
  accountAndAddress: { max: 10, windowMs: 15 * 60_000 },
  account: { max: 100, windowMs: 60 * 60_000 },
  address: { max: 100, windowMs: 60 * 60_000 },
  device: { max: 10, windowMs: 15 * 60_000 },
} as const;

/** How long a device cookie is honoured after the sign-in that set it. */
export const DEVICE_COOKIE_MAX_AGE_MS = 90 * 24 * 60 * 60_000;
export const DEVICE_COOKIE = 'll_device';
/** Attempts from a known device are recorded under this pseudo-address, so they never count against an address. */
const DEVICE_PREFIX = 'device:';

export function usernameKey(username: string): string {
  return username.trim().toLowerCase();
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export function createLoginLimiter(db: Db, deviceKey: Buffer) {
  const mac = (key: string, nonce: string) =>
    crypto.createHmac('sha256', deviceKey).update(`${key}\n${nonce}`).digest('base64url');

  async function countSince(tx: Tx | Db, filters: ReturnType<typeof eq>[], windowMs: number) {
    const since = new Date(Date.now() - windowMs);
    const [row] = await tx
      .select({ n: count() })
      .from(loginAttempts)
      .where(and(...filters, gt(loginAttempts.at, since)));
    return row?.n ?? 0;
  }
  const fromDevice = sql`${loginAttempts.ip} like ${`${DEVICE_PREFIX}%`}`;

  return {
    /** A device cookie for a browser that just signed in to this account. */
    createDeviceToken(username: string): string {
      const nonce = crypto.randomBytes(16).toString('base64url');
      return `${nonce}.${mac(usernameKey(username), nonce)}`;
    },

    /** The device's id when the cookie was issued by us for this account; null otherwise. */
    readDevice(username: string, token: string | undefined): string | null {
      const [nonce, given] = (token ?? '').split('.');
      if (!nonce || !given || !/^[\w-]{10,64}$/.test(nonce)) return null;
      const expected = Buffer.from(mac(usernameKey(username), nonce));
      const actual = Buffer.from(given);
      return expected.length === actual.length && crypto.timingSafeEqual(expected, actual) ? nonce : null;
    },

    /**
     * Reserves one evaluation: under transaction-scoped advisory locks on the account and the address (always
     * taken in that order), counts what went before and, when under every limit, records this attempt as a
     * failure until `finish` says otherwise. Parallel guesses therefore cannot slip past a limit together, on
     * one instance or many. Answers the seconds to wait, or the attempt's id.
     */
    async begin(
      username: string,
      ip: string,
      device: string | null = null,
    ): Promise<{ waitSeconds: number } | { id: number }> {
      const key = usernameKey(username);
      const source = device ? `${DEVICE_PREFIX}${device}` : ip;
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`login-account:${key}`}))`);
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`login-address:${source}`}))`);
        const failed = eq(loginAttempts.success, false);
        if (device) {
          const mine = await countSince(
            tx,
            [eq(loginAttempts.usernameKey, key), eq(loginAttempts.ip, source), failed],
            LOGIN_LIMITS.device.windowMs,
          );
          if (mine >= LOGIN_LIMITS.device.max) return { waitSeconds: LOGIN_LIMITS.device.windowMs / 1000 };
        } else {
          const pair = await countSince(
            tx,
            [eq(loginAttempts.usernameKey, key), eq(loginAttempts.ip, ip), failed],
            LOGIN_LIMITS.accountAndAddress.windowMs,
          );
          if (pair >= LOGIN_LIMITS.accountAndAddress.max)
            return { waitSeconds: LOGIN_LIMITS.accountAndAddress.windowMs / 1000 };
          const account = await countSince(
            tx,
            [eq(loginAttempts.usernameKey, key), not(fromDevice)],
            LOGIN_LIMITS.account.windowMs,
          );
          const address = await countSince(
            tx,
            [eq(loginAttempts.ip, ip), failed],
            LOGIN_LIMITS.address.windowMs,
          );
          if (account >= LOGIN_LIMITS.account.max || address >= LOGIN_LIMITS.address.max)
            return { waitSeconds: LOGIN_LIMITS.account.windowMs / 1000 };
        }
        const [row] = await tx
          .insert(loginAttempts)
          .values({ usernameKey: key, ip: source, success: false })
          .returning({ id: loginAttempts.id });
        return { id: row?.id ?? 0 };
      });
    },
    async finish(attemptId: number, success: boolean): Promise<void> {
      if (success)
        await db.update(loginAttempts).set({ success: true }).where(eq(loginAttempts.id, attemptId));
    },

    /** The accounts (by username) that an unknown browser cannot sign in to now: an account-wide or per-address limit is reached. */
    async findLocked(usernames: string[]): Promise<Set<string>> {
      if (usernames.length === 0) return new Set();
      const keys = usernames.map(usernameKey);
      const pairSince = new Date(Date.now() - LOGIN_LIMITS.accountAndAddress.windowMs);
      const accountSince = new Date(Date.now() - LOGIN_LIMITS.account.windowMs);
      const pairs = await db
        .select({ key: loginAttempts.usernameKey })
        .from(loginAttempts)
        .where(
          and(
            inArray(loginAttempts.usernameKey, keys),
            eq(loginAttempts.success, false),
            gt(loginAttempts.at, pairSince),
            not(fromDevice),
          ),
        )
        .groupBy(loginAttempts.usernameKey, loginAttempts.ip)
        .having(sql`count(*) >= ${LOGIN_LIMITS.accountAndAddress.max}`);
      const accounts = await db
        .select({ key: loginAttempts.usernameKey })
        .from(loginAttempts)
        .where(
          and(inArray(loginAttempts.usernameKey, keys), gt(loginAttempts.at, accountSince), not(fromDevice)),
        )
        .groupBy(loginAttempts.usernameKey)
        .having(sql`count(*) >= ${LOGIN_LIMITS.account.max}`);
      const locked = new Set([...pairs, ...accounts].map((r) => r.key));
      return new Set(usernames.filter((u) => locked.has(usernameKey(u))));
    },

    /** Lifts every sign-in lock of an account (an administrator's action): its recent attempts are forgotten. */
    async unlock(username: string): Promise<number> {
      const removed = await db
        .delete(loginAttempts)
        .where(eq(loginAttempts.usernameKey, usernameKey(username)))
        .returning({ id: loginAttempts.id });
      return removed.length;
    },

    async purgeOld(): Promise<void> {
      await db.delete(loginAttempts).where(lt(loginAttempts.at, new Date(Date.now() - 2 * 60 * 60_000)));
    },
  };
}
export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
