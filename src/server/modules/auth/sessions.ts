import type { FastifyReply, FastifyRequest } from 'fastify';
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { organizations, sessions, userOrganizations, users, xeroCacheVersions, xeroTokens } from '../../db/schema/index.ts';
import { createBatchLoader } from '../../lib/batch-loader';
import { randomToken, sha256 } from '../../lib/crypto';
import type { MembershipRow, OrganizationRow } from '../organizations/organizations.repository';

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
  /** Principal queries running at once: 1 for PGlite (one thread anyway), a few for a PostgreSQL pool. */
  principalQueriesInFlight?: number;
}

/** What the request's user has of Xero's token: its state only, never the token (nothing is decrypted). */
export interface XeroTokenStatus {
  status: 'active' | 'reconnect_required';
  expiresAt: Date;
  lastError: string | null;
  hasRefreshToken: boolean;
}

/** The organisation a request works on, read with its session: membership, flags, and invoice-cache version. */
export interface TenancySnapshot {
  /** The organisation the query string named, or 0 for the user's active one. */
  requested: number;
  found: { org: OrganizationRow; membership: MembershipRow } | null;
  cacheVersion: number;
}

/**
 * Everything an /api request needs to know about who asks, read in one query when it arrives: the session
 * and user, the state of their Xero token, and the organisation the request names (or their active one)
 * with the membership, feature flags and cache version. Nothing here is kept between requests.
 */
export interface RequestPrincipal {
  session: SessionInfo | null;
  xeroToken: XeroTokenStatus | null;
  tenancy: TenancySnapshot | null;
}

const SIGNED_OUT: RequestPrincipal = { session: null, xeroToken: null, tenancy: null };

/** Refresh `last_seen_at` at most this often, so reads do not turn into a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Server-side sessions. The cookie holds a random token; the database holds its SHA-256, so a leaked
 * sessions table cannot be replayed. Idle and absolute timeouts come from configuration. Each /api request
 * reads its session with its principal (loadPrincipal): one statement, planned once, shared by the requests
 * that arrive together.
 */
export function createSessionStore(db: Db, options: SessionOptions, preparedDb: Db = db) {
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: options.secureCookie,
  };

  // One statement for a whole batch of requests: `r` lists each request's session hash and the organisation
  // it asks for (0: the user's active one; -1: none), in arrival order.
  // On `preparedDb` it is planned once, not per execution (src/server/db/prepared.ts).
  const principalQuery = preparedDb
    .select({
      ord: sql<number>`r.ord`.mapWith(Number),
      requested: sql<number>`r.org`.mapWith(Number),
      session: {
        id: sessions.id,
        expiresAt: sessions.expiresAt,
        lastSeenAt: sessions.lastSeenAt,
        mfaPending: sessions.mfaPending,
      },
      user: {
        id: users.id,
        username: users.username,
        email: users.email,
        isAdmin: users.isAdmin,
        xeroUserId: users.xeroUserId,
        mfaEnabled: users.mfaEnabled,
      },
      token: {
        status: xeroTokens.status,
        expiresAt: xeroTokens.expiresAt,
        lastError: xeroTokens.lastError,
        refreshTokenEnc: xeroTokens.refreshTokenEnc,
      },
      membership: userOrganizations,
      org: organizations,
      cacheVersion: xeroCacheVersions.version,
    })
    .from(sql`unnest(${sql.placeholder('ids')}::text[], ${sql.placeholder('orgs')}::int[]) with ordinality as r(sid, org, ord)`)
    .innerJoin(sessions, sql`${sessions.id} = r.sid`)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(xeroTokens, eq(xeroTokens.userId, sessions.userId))
    .leftJoin(
      userOrganizations,
      and(
        eq(userOrganizations.userId, sessions.userId),
        sql`(case when r.org = 0 then ${userOrganizations.isActive} else ${userOrganizations.organizationId} = r.org end)`,
      ),
    )
    .leftJoin(organizations, eq(organizations.id, userOrganizations.organizationId))
    .leftJoin(xeroCacheVersions, eq(xeroCacheVersions.organizationId, organizations.id))
    .prepare('request_principal');
  type PrincipalRow = Awaited<ReturnType<typeof principalQuery.execute>>[number];

  const principals = createBatchLoader<{ id: string; org: number }, PrincipalRow | null>({
    maxInFlight: options.principalQueriesInFlight ?? 1,
    maxBatch: 200,
    identify: (key) => `${key.id}:${key.org}`,
    async run(keys) {
      const rows = await principalQuery.execute({ ids: keys.map((k) => k.id), orgs: keys.map((k) => k.org) });
      const byOrd = new Map<number, PrincipalRow>();
      for (const row of rows) {
        if (byOrd.has(row.ord)) continue;
        // Requests asking the same at once share these rows: nobody may change them.
        if (row.org) Object.freeze(row.org);
        if (row.membership) Object.freeze(row.membership);
        byOrd.set(row.ord, row);
      }
      return keys.map((_, i) => byOrd.get(i + 1) ?? null);
    },
  });

  // A burst of requests on one session refreshes last_seen_at once.
  const touching = new Map<string, Promise<unknown>>();
  function touch(id: string, now: number): Promise<unknown> {
    const running = touching.get(id);
    if (running) return running;
    const promise = db
      .update(sessions)
      .set({ lastSeenAt: new Date(now) })
      .where(eq(sessions.id, id))
      .finally(() => touching.delete(id));
    touching.set(id, promise);
    return promise;
  }

  /**
   * The request's principal (see RequestPrincipal): `organizationId` is the organisation the query string
   * names, 0 for the active one, or -1 to read none. An expired session is deleted and reads as signed out.
   */
  async function loadPrincipal(request: FastifyRequest, organizationId = 0): Promise<RequestPrincipal> {
    const token = request.cookies[SESSION_COOKIE];
    if (!token || token.length > 100) return SIGNED_OUT;
    const id = sha256(token);
    const row = await principals.load({ id, org: organizationId });
    if (!row) return SIGNED_OUT;
    const now = Date.now();
    if (row.session.expiresAt.getTime() <= now || row.session.lastSeenAt.getTime() + options.idleTimeoutMs <= now) {
      await db.delete(sessions).where(eq(sessions.id, id));
      return SIGNED_OUT;
    }
    if (now - row.session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) await touch(id, now);
    return {
      session: {
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
      },
      xeroToken: row.token
        ? { status: row.token.status, expiresAt: row.token.expiresAt, lastError: row.token.lastError, hasRefreshToken: row.token.refreshTokenEnc !== null }
        : null,
      tenancy:
        row.requested < 0
          ? null
          : {
              requested: row.requested,
              found: row.org && row.membership ? { org: row.org, membership: row.membership } : null,
              cacheVersion: row.cacheVersion ?? 0,
            },
    };
  }

  return {
    loadPrincipal,

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

    /** The signed-in session of a request, or null (see loadPrincipal). */
    async load(request: FastifyRequest): Promise<SessionInfo | null> {
      return (await loadPrincipal(request, -1)).session;
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
