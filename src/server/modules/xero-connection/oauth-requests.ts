import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { oauthRequests } from '../../db/schema/index';
import type { XeroOAuth } from '../../xero/xero-port';

/** An authorisation older than this is refused at the callback. */
const MAX_AGE_MS = 15 * 60_000;

export type OAuthPurpose = 'signin' | 'connect' | 'reconnect';

/** State, PKCE verifier and nonce of each authorisation in flight, kept server-side and used once. */
export function createOAuthRequests(db: Db) {
  return {
    async create(values: {
      state: string;
      purpose: OAuthPurpose;
      userId: number | null;
      codeVerifier: string;
      nonce: string;
      /** Connect on an organisation's card: the organisation asked for (issue 45 item 1). */
      organizationId?: number | null;
    }) {
      await db.delete(oauthRequests).where(lt(oauthRequests.createdAt, new Date(Date.now() - MAX_AGE_MS)));
      await db.insert(oauthRequests).values(values);
    },
    /** Returns and deletes the request for this state, or null when there is none, or it is unknown, used or stale. */
    async consume(state: string | undefined) {
      if (!state) return null;
      const rows = await db.delete(oauthRequests).where(eq(oauthRequests.state, state)).returning();
      const row = rows[0];
      if (!row || row.createdAt.getTime() < Date.now() - MAX_AGE_MS) return null;
      return row;
    },
  };
}
export type OAuthRequests = ReturnType<typeof createOAuthRequests>;

/**
 * The browser that started an authorisation (issue 16): a short-lived, HttpOnly, SameSite=Lax cookie holding
 * the states it started, checked at the callback. A callback link finished by someone else (an attacker's own
 * sign-in, sent to a victim) then signs no one in and connects nothing: the victim's browser never started it.
 * A few states are kept so two tabs can each finish their own flow.
 */
export const OAUTH_BROWSER_COOKIE = 'll_oauth';
const BROWSER_FLOWS_KEPT = 3;

function cookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: 'lax' as const, secure, path: '/api' };
}

function readBrowserStates(request: FastifyRequest): string[] {
  const raw = request.cookies?.[OAUTH_BROWSER_COOKIE];
  return raw ? raw.split('.').filter((s) => /^[\w-]{16,200}$/.test(s)) : [];
}

/** Marks this browser as the one that started the authorisation of `state`. */
export function bindToBrowser(
  request: FastifyRequest,
  reply: FastifyReply,
  state: string,
  secure: boolean,
): void {
  const states = [...readBrowserStates(request).slice(-(BROWSER_FLOWS_KEPT - 1)), state];
  reply.setCookie(OAUTH_BROWSER_COOKIE, states.join('.'), {
    ...cookieOptions(secure),
    maxAge: Math.floor(MAX_AGE_MS / 1000),
  });
}

/**
 * At the callback: true when this browser started the authorisation of `state`. The state is forgotten by the
 * browser either way (it is used once, as the stored request is).
 */
export function takeBrowserBinding(
  request: FastifyRequest,
  reply: FastifyReply,
  state: string | undefined,
  secure: boolean,
): boolean {
  const states = readBrowserStates(request);
  const bound = state !== undefined && states.includes(state);
  const rest = states.filter((s) => s !== state);
  if (rest.length > 0)
    reply.setCookie(OAUTH_BROWSER_COOKIE, rest.join('.'), {
      ...cookieOptions(secure),
      maxAge: Math.floor(MAX_AGE_MS / 1000),
    });
  else if (states.length > 0) reply.clearCookie(OAUTH_BROWSER_COOKIE, cookieOptions(secure));
  return bound;
}

/** What Xero sends back to a redirect URI: a code and our state, or an OAuth error (RFC 6749 §4.1.2). */
export const oauthCallbackQuerySchema = z.object({
  code: z.string().max(2000).optional(),
  state: z.string().max(500).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
  scope: z.string().max(2000).optional(),
});

/** What an authorisation in flight keeps for its callback: our state, the PKCE verifier and the OIDC nonce. */
export interface OAuthChecks {
  state: string;
  codeVerifier: string;
  nonce: string;
}

/**
 * Starts an authorisation at Xero (sign-in, connect and reconnect alike): fresh checks and Xero's consent URL
 * for them. The caller keeps the checks (`OAuthRequests.create`) once the URL could be made.
 */
export async function createAuthorization(
  oauth: XeroOAuth,
  redirectUri: string,
): Promise<{ url: string; checks: OAuthChecks }> {
  const checks = {
    state: oauth.randomState(),
    codeVerifier: oauth.randomCodeVerifier(),
    nonce: oauth.randomNonce(),
  };
  const url = await oauth.createAuthorizationUrl({ redirectUri, ...checks });
  return { url, checks };
}

/**
 * Where a callback goes when Xero sent an OAuth error: a declined consent to /xero-cancel, any other error to
 * the page's error display with Xero's reason (docs/product/shell.md §8). Null when Xero sent no error.
 */
export function findOAuthErrorRedirect(
  error: string | undefined,
  pageUrl: (params: Record<string, string>) => string,
): string | null {
  if (!error) return null;
  return error === 'access_denied' ? '/xero-cancel' : pageUrl({ error: 'oauth_error', reason: error });
}

/**
 * Trades the callback's code for tokens, checked against the stored request. Xero's answer is read as it
 * reached our redirect URI (the public one, whatever host or proxy the request came through).
 */
export function exchangeCallbackCode(
  oauth: XeroOAuth,
  redirectUri: string,
  requestUrl: string,
  pending: OAuthChecks,
) {
  const { search } = new URL(requestUrl, redirectUri);
  return oauth.exchangeCode(new URL(`${redirectUri}${search}`), {
    codeVerifier: pending.codeVerifier,
    state: pending.state,
    nonce: pending.nonce,
  });
}
