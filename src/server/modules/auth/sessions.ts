import type { FastifyReply, FastifyRequest } from 'fastify';
import { and, eq, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions, users } from '../../db/schema/index.ts';
import { randomToken, sha256 } from '../../lib/crypto';

export const SESSION_COOKIE = 'll_session';

export interface SessionUser {
  id: number;
  username: string;
  email: string | null;
  isAdmin: boolean;
  isXeroUser: boolean;
  mfaEnabled: boolean;
}

export interface SessionInfo {
  id: string;
  user: SessionUser;
  mfaPending: boolean;
}

export interface SessionOptions {
  idleTimeoutMs: number;
  absoluteTimeoutMs: number;
  secureCookie: boolean;
}

/** Refresh `last_seen_at` at most this often, so reads do not turn into a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Server-side sessions. The cookie holds a random token; the database holds its SHA-256, so a leaked
 * sessions table cannot be replayed. Idle and absolute timeouts come from configuration.
 */
export function createSessionStore(db: Db, options: SessionOptions) {
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: options.secureCookie,
  };

  return {
    async create(
      reply: FastifyReply,
      request: FastifyRequest,
      userId: number,
      extra: { mfaPending?: boolean } = {},
    ): Promise<string> {
      const token = randomToken(32);
      const now = Date.now();
      await db.insert(sessions).values({
        id: sha256(token),
        userId,
        expiresAt: new Date(now + options.absoluteTimeoutMs),
        mfaPending: extra.mfaPending ?? false,
        ip: request.ip,
        userAgent: String(request.headers['user-agent'] ?? '').slice(0, 300),
      });
      reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: Math.floor(options.absoluteTimeoutMs / 1000) });
      return token;
    },

    async load(request: FastifyRequest): Promise<SessionInfo | null> {
      const token = request.cookies[SESSION_COOKIE];
      if (!token || token.length > 100) return null;
      const id = sha256(token);
      const rows = await db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(eq(sessions.id, id))
        .limit(1);
      const row = rows[0];
      if (!row) return null;
      const now = Date.now();
      if (row.session.expiresAt.getTime() <= now || row.session.lastSeenAt.getTime() + options.idleTimeoutMs <= now) {
        await db.delete(sessions).where(eq(sessions.id, id));
        return null;
      }
      if (now - row.session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
        await db.update(sessions).set({ lastSeenAt: new Date(now) }).where(eq(sessions.id, id));
      }
      return {
        id,
        mfaPending: row.session.mfaPending,
        user: {
          id: row.user.id,
          username: row.user.username,
          email: row.user.email,
          isAdmin: row.user.isAdmin,
          isXeroUser: row.user.xeroUserId !== null,
          mfaEnabled: row.user.mfaEnabled,
        },
      };
    },

    async completeMfa(sessionId: string): Promise<void> {
      await db.update(sessions).set({ mfaPending: false }).where(eq(sessions.id, sessionId));
    },

    async destroy(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const token = request.cookies[SESSION_COOKIE];
      if (token) await db.delete(sessions).where(eq(sessions.id, sha256(token)));
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
    },

    async destroyAllForUser(userId: number): Promise<void> {
      await db.delete(sessions).where(eq(sessions.userId, userId));
    },

    async purgeExpired(): Promise<void> {
      const now = new Date();
      await db
        .delete(sessions)
        .where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, new Date(now.getTime() - options.idleTimeoutMs))));
    },

    async countForUser(userId: number): Promise<number> {
      const rows = await db.select({ id: sessions.id }).from(sessions).where(and(eq(sessions.userId, userId)));
      return rows.length;
    },
  };
}
export type SessionStore = ReturnType<typeof createSessionStore>;
