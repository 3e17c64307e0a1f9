import type { FastifyReply, FastifyRequest } from 'fastify';
import { and, eq, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { createPreparedStatement, readJsonRow } from '../../db/prepared';
import { organizations, sessions, userOrganizations } from '../../db/schema/index';
import { createBatchLoader } from '../../lib/batch-loader';
import { randomToken, sha256 } from '../../lib/crypto';
import {
  ORGANIZATION_METERS,
  type MembershipRow,
  type OrganizationAccessRow,
  type OrganizationRow,
} from '../organizations/organizations.repository';
import type { PrincipalCache } from './principal-cache';

export const SESSION_COOKIE = 'll_session';

/** Session cookies whose hash was worked out lately: at most this many are remembered. */
const SESSION_IDS_KEPT = 2_000;

/**
 * A session's id is the SHA-256 of its cookie (only the hash is stored). Every /api request worked it out
 * again, a few µs of a small cached answer (issue 32); the answer is a pure function of the cookie, so the
 * last SESSION_IDS_KEPT are remembered. Nothing depends on it: a signed-out cookie's id finds no session.
 */
function createSessionIdMemo() {
  const ids = new Map<string, string>();
  return (token: string): string => {
    let id = ids.get(token);
    if (id === undefined) {
      id = sha256(token);
      if (ids.size >= SESSION_IDS_KEPT) ids.clear();
      ids.set(token, id);
    }
    return id;
  };
}

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
  /** Principals kept in memory between requests, dropped by the database's change notices (principal-cache.ts). */
  cache?: PrincipalCache<PrincipalRow>;
}

/** What the request's user has of Xero's token: its state only, never the token (nothing is decrypted). */
export interface XeroTokenStatus {
  status: 'active' | 'reconnect_required';
  expiresAt: Date;
  lastError: string | null;
  hasRefreshToken: boolean;
  /** Why it needs reconnecting (issue 45): 'expired' or 'revoked'; null while active. */
  lostReason: 'expired' | 'revoked' | null;
}

/** The organisation a request works on, read with its session: membership, flags, and invoice-cache version. */
export interface TenancySnapshot {
  /** The organisation the query string named, or 0 for the user's active one. */
  requested: number;
  found: { org: OrganizationAccessRow; membership: MembershipRow } | null;
  cacheVersion: number;
}

/**
 * Everything an /api request needs to know about who asks, read in one query when it arrives: the session
 * and user, the state of their Xero token, and the organisation the request names (or their active one)
 * with the membership, feature flags and cache version. Kept in memory between requests only while the
 * database's change notices reach this instance (principal-cache.ts): a change drops it on every instance.
 */
export interface RequestPrincipal {
  session: SessionInfo | null;
  xeroToken: XeroTokenStatus | null;
  tenancy: TenancySnapshot | null;
}

const SIGNED_OUT: RequestPrincipal = { session: null, xeroToken: null, tenancy: null };

/**
 * The principal of each request of a batch: `$1` the session hashes, `$2` the organisation each asks for (0:
 * the user's active one; -1: none), in arrival order (`ord`). Each row is one JSON text column: PGlite hands
 * over one column far more cheaply than the forty this would be (bench/profile-server.ts showed row decoding
 * as most of the statement's cost). Only what a request needs of the user and the token is selected (never a
 * password hash, a secret or a token); the organisation and membership rows are whole.
 */
const PRINCIPAL_SQL = `select r.ord::int as ord, json_build_object(
  'expiresAt', s.expires_at, 'lastSeenAt', s.last_seen_at, 'mfaPending', s.mfa_pending,
  'userId', u.id, 'username', u.username, 'email', u.email, 'isAdmin', u.is_admin,
  'isXeroUser', u.xero_user_id is not null, 'mfaEnabled', u.mfa_enabled,
  'token', case when t.user_id is null then null else json_build_object(
    'status', t.status, 'expiresAt', t.expires_at, 'lastError', t.last_error, 'hasRefreshToken', t.refresh_token_enc is not null,
    'lostReason', t.lost_reason) end,
  'requested', r.org, 'membership', row_to_json(uo), 'org', row_to_json(o), 'cacheVersion', coalesce(v.version, 0)
)::text as principal
from unnest($1::text[], $2::int[]) with ordinality as r(sid, org, ord)
join sessions s on s.id = r.sid
join users u on u.id = s.user_id
left join xero_tokens t on t.user_id = s.user_id
left join user_organizations uo on uo.user_id = s.user_id
  and (case when r.org = 0 then uo.is_active else uo.organization_id = r.org end)
left join organizations o on o.id = uo.organization_id
left join xero_cache_versions v on v.organization_id = o.id`;

export interface PrincipalRow {
  expiresAt: Date;
  lastSeenAt: Date;
  mfaPending: boolean;
  user: SessionUser;
  token: XeroTokenStatus | null;
  requested: number;
  found: { org: OrganizationAccessRow; membership: MembershipRow } | null;
  cacheVersion: number;
}

interface PrincipalJson {
  expiresAt: string;
  lastSeenAt: string;
  mfaPending: boolean;
  userId: number;
  username: string;
  email: string | null;
  isAdmin: boolean;
  isXeroUser: boolean;
  mfaEnabled: boolean;
  token: {
    status: XeroTokenStatus['status'];
    expiresAt: string;
    lastError: string | null;
    hasRefreshToken: boolean;
    lostReason?: 'expired' | 'revoked' | null;
  } | null;
  requested: number;
  membership: Record<string, unknown> | null;
  org: Record<string, unknown> | null;
  cacheVersion: number;
}

/** The organisation without its meters, which change with every Xero call and are not kept (migration 0020). */
function readPrincipalOrganization(json: Record<string, unknown>): OrganizationAccessRow {
  const row: Partial<OrganizationRow> = readJsonRow(organizations, json);
  for (const meter of ORGANIZATION_METERS) delete row[meter];
  return row as OrganizationAccessRow;
}

function readPrincipalRow(text: string): PrincipalRow {
  const json = JSON.parse(text) as PrincipalJson;
  // Requests asking the same at once share these rows: nobody may change them.
  const found =
    json.org && json.membership
      ? {
          org: Object.freeze(readPrincipalOrganization(json.org)),
          membership: Object.freeze(readJsonRow(userOrganizations, json.membership)),
        }
      : null;
  return {
    expiresAt: new Date(json.expiresAt),
    lastSeenAt: new Date(json.lastSeenAt),
    mfaPending: json.mfaPending,
    user: {
      id: json.userId,
      username: json.username,
      email: json.email,
      isAdmin: json.isAdmin,
      isXeroUser: json.isXeroUser,
      mfaEnabled: json.mfaEnabled,
    },
    token: json.token
      ? {
          ...json.token,
          expiresAt: new Date(json.token.expiresAt),
          lostReason: json.token.lostReason ?? null,
        }
      : null,
    requested: json.requested,
    found,
    cacheVersion: Number(json.cacheVersion),
  };
}

/** Refresh `last_seen_at` at most this often, so reads do not turn into a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Server-side sessions. The cookie holds a random token; the database holds its SHA-256, so a leaked
 * sessions table cannot be replayed. Idle and absolute timeouts come from configuration. Each /api request
 * reads its session with its principal (loadPrincipal): one statement, planned once, shared by the requests
 * that arrive together.
 */
export function createSessionStore(database: Database, options: SessionOptions) {
  const db = database.db;
  const sessionIdOf = createSessionIdMemo();
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: options.secureCookie,
  };

  // One statement for a whole batch of requests (see PRINCIPAL_SQL), planned once per connection.
  const principalStatement = createPreparedStatement(database, PRINCIPAL_SQL);
  const principals = createBatchLoader<{ id: string; org: number }, PrincipalRow | null>({
    maxInFlight: options.principalQueriesInFlight ?? 1,
    maxBatch: 200,
    identify: (key) => `${key.id}:${key.org}`,
    async run(keys) {
      const rows = await principalStatement.run([keys.map((k) => k.id), keys.map((k) => k.org)]);
      const byOrd = new Map<number, PrincipalRow>();
      for (const row of rows) {
        const ord = Number(row.ord);
        if (!byOrd.has(ord)) byOrd.set(ord, readPrincipalRow(String(row.principal)));
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
  const cache = options.cache;

  /** The principal row from the database, kept in the cache unless a change notice came meanwhile. */
  async function readPrincipal(id: string, org: number): Promise<PrincipalRow | null> {
    const readAt = cache?.generation ?? 0;
    const row = await principals.load({ id, org });
    if (row && cache)
      cache.set(
        `${id}:${org}`,
        row,
        { sessionId: id, userId: row.user.id, organizationId: row.found?.org.id ?? null },
        readAt,
      );
    return row;
  }

  const expired = (row: PrincipalRow, now: number) =>
    row.expiresAt.getTime() <= now || row.lastSeenAt.getTime() + options.idleTimeoutMs <= now;

  /**
   * The request's principal (see RequestPrincipal): `organizationId` is the organisation the query string
   * names, 0 for the active one, or -1 to read none. An expired session is deleted and reads as signed out.
   */
  async function loadPrincipal(request: FastifyRequest, organizationId = 0): Promise<RequestPrincipal> {
    const token = request.cookies[SESSION_COOKIE];
    if (!token || token.length > 100) return SIGNED_OUT;
    const id = sessionIdOf(token);
    let row = cache?.get(`${id}:${organizationId}`) ?? (await readPrincipal(id, organizationId));
    if (!row) return SIGNED_OUT;
    let now = Date.now();
    if (expired(row, now) && cache?.on) {
      // A kept row's last_seen_at may be older than another instance's touch: ask the database before deleting.
      cache.delete(`${id}:${organizationId}`);
      row = await readPrincipal(id, organizationId);
      if (!row) return SIGNED_OUT;
      now = Date.now();
    }
    if (expired(row, now)) {
      await db.delete(sessions).where(eq(sessions.id, id));
      return SIGNED_OUT;
    }
    if (now - row.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
      await touch(id, now);
      row.lastSeenAt = new Date(now);
    }
    return {
      session: { id, mfaPending: row.mfaPending, user: { ...row.user } },
      xeroToken: row.token ? { ...row.token } : null,
      tenancy:
        row.requested < 0
          ? null
          : { requested: row.requested, found: row.found, cacheVersion: row.cacheVersion },
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
      reply.setCookie(SESSION_COOKIE, token, {
        ...cookieOptions,
        maxAge: Math.floor(options.absoluteTimeoutMs / 1000),
      });
      return token;
    },

    /** The signed-in session of a request, or null (see loadPrincipal). */
    async load(request: FastifyRequest): Promise<SessionInfo | null> {
      return (await loadPrincipal(request, -1)).session;
    },

    /**
     * Whether a session is still signed in, without counting this as activity: a long-lived request (the live
     * events stream) checks this so an open tab does not keep an idle session alive.
     */
    async isLive(sessionId: string): Promise<boolean> {
      const [row] = await db
        .select({ expiresAt: sessions.expiresAt, lastSeenAt: sessions.lastSeenAt })
        .from(sessions)
        .where(eq(sessions.id, sessionId));
      const now = Date.now();
      return Boolean(
        row && row.expiresAt.getTime() > now && row.lastSeenAt.getTime() + options.idleTimeoutMs > now,
      );
    },

    async completeMfa(sessionId: string): Promise<void> {
      await db.update(sessions).set({ mfaPending: false }).where(eq(sessions.id, sessionId));
      // The notice reaches every instance; this one forgets at once, before it answers.
      announceLocalChange(db, `s:${sessionId}`);
    },

    async destroy(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const token = request.cookies[SESSION_COOKIE];
      if (token) {
        const id = sha256(token);
        await db.delete(sessions).where(eq(sessions.id, id));
        announceLocalChange(db, `s:${id}`);
      }
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
    },

    async destroyAllForUser(userId: number): Promise<void> {
      await db.delete(sessions).where(eq(sessions.userId, userId));
      announceLocalChange(db, `u:${userId}`);
    },

    async purgeExpired(): Promise<void> {
      const now = new Date();
      await db
        .delete(sessions)
        .where(
          or(
            lt(sessions.expiresAt, now),
            lt(sessions.lastSeenAt, new Date(now.getTime() - options.idleTimeoutMs)),
          ),
        );
    },

    async countForUser(userId: number): Promise<number> {
      const rows = await db
        .select({ id: sessions.id })
        .from(sessions)
        .where(and(eq(sessions.userId, userId)));
      return rows.length;
    },
  };
}
export type SessionStore = ReturnType<typeof createSessionStore>;
