import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { xeroTokens } from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import type { SecretBox } from '../../lib/crypto';
import { CONNECTION_ERRORS } from '../../../shared/connection';
import { OAuthError, type TokenSet, type XeroOAuth } from './oauth';

/** Refresh this long before the access token expires, so no call goes out with a dying token. */
export const REFRESH_MARGIN_MS = 2 * 60_000;

/**
 * The connection status renews the token this long ahead of expiry (issue 17 item 6): more than the 5 minutes
 * under which the header turns amber (docs/product/shell.md §9) plus the 2-minute connection refetch, so a
 * healthy idle connection is renewed before it can look like it is running out.
 */
export const RENEW_AHEAD_MS = 10 * 60_000;

/**
 * An unused refresh token expires after 60 days (developer.xero.com/faq/oauth2; ../shared/xero-openapi/REFERENCE.md
 * §2.2). Xero answers `invalid_grant` alike for an expired token and a revoked one.
 */
export const REFRESH_TOKEN_LIFETIME_MS = 60 * 24 * 60 * 60_000;

/** Why a connection needs reconnecting (issue 45): see `ConnectionLossReason` in src/shared/connection-rules.ts. */
export type TokenLossReason = 'expired' | 'revoked';

/**
 * Why Xero refused a refresh token (`invalid_grant`): one last issued (saved or rotated) 60 days ago or more
 * has expired; one still in date was revoked (in Xero's Connected apps, or by revoking the token).
 */
export function classifyRefusedRefresh(issuedAt: Date, now: Date = new Date()): TokenLossReason {
  return now.getTime() - issuedAt.getTime() >= REFRESH_TOKEN_LIFETIME_MS ? 'expired' : 'revoked';
}

export interface StoredTokens {
  userId: number;
  xeroUserId: string | null;
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date;
  scopes: string;
  status: 'active' | 'reconnect_required';
  lastError: string | null;
  /** Why it needs reconnecting, and since when; null while active. */
  lostReason: TokenLossReason | null;
  lostAt: Date | null;
}

type Row = typeof xeroTokens.$inferSelect;

/**
 * Xero tokens, encrypted at rest, one set per user. Refresh is single-flight per user: within an instance
 * by a shared promise, across instances by a row lock (`SELECT … FOR UPDATE`) after which the row is read
 * again and the refresh skipped if another instance already did it. The rotated refresh token is saved in
 * the same transaction the refresh happens in, before anything uses the new access token; if the process
 * dies before that commit, the old refresh token still works inside Xero's 30-minute grace period.
 * `invalid_grant` marks the connection "reconnection required" and is never retried.
 */
export function createTokenStore(deps: {
  db: Db;
  box: SecretBox;
  oauth: XeroOAuth;
  onRefresh?: (userId: number) => void;
  /**
   * The connection was found lost (issue 45 item 2): called once, after the change is committed, by whichever
   * request or job found it; never again until the user reconnects.
   */
  onLost?: (userId: number, reason: TokenLossReason) => void;
}) {
  const { db, box, oauth } = deps;
  const inFlight = new Map<number, Promise<StoredTokens>>();

  const decode = (row: Row): StoredTokens => ({
    userId: row.userId,
    xeroUserId: row.xeroUserId,
    accessToken: box.decrypt(row.accessTokenEnc),
    refreshToken: row.refreshTokenEnc ? box.decrypt(row.refreshTokenEnc) : null,
    expiresAt: row.expiresAt,
    scopes: row.scopes,
    status: row.status,
    lastError: row.lastError,
    lostReason: row.lostReason,
    lostAt: row.lostAt,
  });

  async function read(userId: number): Promise<StoredTokens | null> {
    const rows = await db.select().from(xeroTokens).where(eq(xeroTokens.userId, userId)).limit(1);
    return rows[0] ? decode(rows[0]) : null;
  }

  async function save(userId: number, tokens: TokenSet, xeroUserId?: string | null): Promise<void> {
    const values = {
      accessTokenEnc: box.encrypt(tokens.accessToken),
      refreshTokenEnc: tokens.refreshToken ? box.encrypt(tokens.refreshToken) : null,
      expiresAt: tokens.expiresAt,
      scopes: tokens.scope,
      status: 'active' as const,
      lastError: null,
      lostReason: null,
      lostAt: null,
      updatedAt: new Date(),
      ...(xeroUserId ? { xeroUserId } : {}),
    };
    await db
      .insert(xeroTokens)
      .values({ userId, ...values })
      .onConflictDoUpdate({ target: xeroTokens.userId, set: values });
    announceLocalChange(db, `u:${userId}`);
  }

  async function refreshLocked(
    userId: number,
    force: boolean,
    rejectedAccessToken?: string,
    marginMs = REFRESH_MARGIN_MS,
  ): Promise<StoredTokens> {
    // A failure is returned, not thrown, from the transaction so that marking the connection
    // "reconnection required" is committed rather than rolled back with it.
    let lost: TokenLossReason | null = null;
    const outcome = await db.transaction(async (tx): Promise<StoredTokens | AppError> => {
      const rows = await tx.select().from(xeroTokens).where(eq(xeroTokens.userId, userId)).for('update');
      const row = rows[0];
      if (!row) return new AppError('XERO_AUTH_EXPIRED', CONNECTION_ERRORS.noRefreshToken);
      const current = decode(row);
      if (current.status === 'reconnect_required')
        return new AppError('XERO_AUTH_EXPIRED', current.lastError ?? CONNECTION_ERRORS.refreshFailed);
      // Another request or instance refreshed while we waited for the lock.
      if (!force && current.expiresAt.getTime() - Date.now() > marginMs) return current;
      if (force && rejectedAccessToken !== undefined) {
        // Xero refused that token: refresh unless another request has already replaced it. (A refresh a few
        // seconds ago is no reason to skip: the token it gave can be the very one Xero just refused.)
        if (current.accessToken !== rejectedAccessToken) return current;
      } else if (force && row.refreshedAt && Date.now() - row.refreshedAt.getTime() < 5_000) return current;
      if (!current.refreshToken) {
        lost = 'expired';
        await tx
          .update(xeroTokens)
          .set({
            status: 'reconnect_required',
            lastError: CONNECTION_ERRORS.noRefreshToken,
            lostReason: lost,
            lostAt: new Date(),
            updatedAt: new Date(),
          })
          .where(eq(xeroTokens.userId, userId));
        return new AppError('XERO_AUTH_EXPIRED', CONNECTION_ERRORS.noRefreshToken);
      }
      let fresh: TokenSet;
      try {
        deps.onRefresh?.(userId);
        fresh = await oauth.refresh(current.refreshToken);
      } catch (error) {
        if (
          error instanceof OAuthError &&
          (error.error === 'invalid_grant' || error.error === 'unauthorized_client')
        ) {
          // The refresh token was last issued when it was saved (a consent) or rotated (a refresh).
          const issuedAt = new Date(Math.max(row.updatedAt.getTime(), row.refreshedAt?.getTime() ?? 0));
          lost = classifyRefusedRefresh(issuedAt);
          await tx
            .update(xeroTokens)
            .set({
              status: 'reconnect_required',
              lastError: CONNECTION_ERRORS.refreshFailed,
              lostReason: lost,
              lostAt: new Date(),
              updatedAt: new Date(),
            })
            .where(eq(xeroTokens.userId, userId));
          return new AppError('XERO_AUTH_EXPIRED', CONNECTION_ERRORS.refreshFailed);
        }
        return new AppError(
          'XERO_UNAVAILABLE',
          'Xero could not be reached to refresh the connection. Please try again.',
        );
      }
      const next = {
        accessTokenEnc: box.encrypt(fresh.accessToken),
        refreshTokenEnc: fresh.refreshToken ? box.encrypt(fresh.refreshToken) : row.refreshTokenEnc,
        previousRefreshTokenEnc: row.refreshTokenEnc,
        expiresAt: fresh.expiresAt,
        scopes: fresh.scope || row.scopes,
        refreshedAt: new Date(),
        updatedAt: new Date(),
      };
      await tx.update(xeroTokens).set(next).where(eq(xeroTokens.userId, userId));
      return {
        ...current,
        accessToken: fresh.accessToken,
        refreshToken: fresh.refreshToken ?? current.refreshToken,
        expiresAt: fresh.expiresAt,
        scopes: next.scopes,
      };
    });
    // The token's state is part of who asks (its expiry, or "reconnect required"): forgotten here at once.
    announceLocalChange(db, `u:${userId}`);
    if (lost) deps.onLost?.(userId, lost);
    if (outcome instanceof AppError) throw outcome;
    return outcome;
  }

  /**
   * `rejectedAccessToken`: the token Xero answered 401 to, so a forced refresh knows whether it is still the
   * stored one. `marginMs`: refresh when less than this is left (default REFRESH_MARGIN_MS; RENEW_AHEAD_MS to
   * renew ahead). Single-flight either way.
   */
  function refresh(
    userId: number,
    force = false,
    rejectedAccessToken?: string,
    marginMs = REFRESH_MARGIN_MS,
  ): Promise<StoredTokens> {
    const running = inFlight.get(userId);
    if (running) return running;
    const promise = refreshLocked(userId, force, rejectedAccessToken, marginMs).finally(() =>
      inFlight.delete(userId),
    );
    inFlight.set(userId, promise);
    return promise;
  }

  return {
    read,
    save,
    refresh,
    /** A usable access token, refreshed first when it is close to expiry. */
    async getAccessToken(userId: number): Promise<StoredTokens> {
      const current = await read(userId);
      if (!current) throw new AppError('XERO_AUTH_EXPIRED', CONNECTION_ERRORS.noRefreshToken);
      if (current.status === 'reconnect_required')
        throw new AppError('XERO_AUTH_EXPIRED', current.lastError ?? CONNECTION_ERRORS.refreshFailed);
      if (current.expiresAt.getTime() - Date.now() > REFRESH_MARGIN_MS) return current;
      return refresh(userId);
    },
    async markReconnectRequired(
      userId: number,
      message: string,
      reason: TokenLossReason = 'revoked',
    ): Promise<void> {
      const changed = await db
        .update(xeroTokens)
        .set({
          status: 'reconnect_required',
          lastError: message,
          lostReason: reason,
          lostAt: new Date(),
          updatedAt: new Date(),
        })
        .where(and(eq(xeroTokens.userId, userId), eq(xeroTokens.status, 'active')))
        .returning({ userId: xeroTokens.userId });
      announceLocalChange(db, `u:${userId}`);
      if (changed.length > 0) deps.onLost?.(userId, reason);
    },
    async remove(userId: number): Promise<void> {
      await db.delete(xeroTokens).where(eq(xeroTokens.userId, userId));
      announceLocalChange(db, `u:${userId}`);
    },
  };
}
export type TokenStore = ReturnType<typeof createTokenStore>;
