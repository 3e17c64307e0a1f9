import { USERNAME_MIN_LENGTH, usernameSchema } from '../../../shared/admin';
import { OAuthError, type TokenStore, type XeroOAuth } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { FlowLog } from '../xero-connection/connect.service';
import type { ConnectionService } from '../xero-connection/connection.service';
import {
  createAuthorization,
  exchangeCallbackCode,
  findOAuthErrorRedirect,
  type OAuthRequests,
} from '../xero-connection/oauth-requests';
import type { UsersRepository } from './auth.repository';

/**
 * The username rule's form of what Xero says about the person (their email, usually): only the characters the
 * rule allows, at most 50 of them so a number fits after it, and 'xero-user' when too little is left (issue 16:
 * an email such as `"><svg/onload=alert(9)>@e.co` is Xero's to allow, not a username of ours).
 */
export function deriveUsername(wanted: string): string {
  const kept = wanted
    .replace(/[^A-Za-z0-9._@+-]+/g, '')
    .slice(0, 50)
    .replace(/^[.@+-]+|[.@+-]+$/g, '');
  const base = kept.length >= USERNAME_MIN_LENGTH ? kept : 'xero-user';
  return usernameSchema.safeParse(base).success ? base : 'xero-user';
}

/** A free username from the Xero profile: the derived one, or it with a number after it. */
async function pickUsername(users: Pick<UsersRepository, 'findByUsername'>, wanted: string): Promise<string> {
  const base = deriveUsername(wanted);
  if (!(await users.findByUsername(base))) return base;
  for (let i = 2; i < 1000; i += 1) {
    const candidate = `${base}-${i}`;
    if (!(await users.findByUsername(candidate))) return candidate;
  }
  return `${base}-${Date.now()}`;
}

/** What Xero's ID token says about the person. */
export interface XeroProfile {
  email?: string | undefined;
  preferred_username?: string | undefined;
}

/** The users of Sign in with Xero (docs/product/shell.md §8): found by Xero user id, linked, or created. */
function createXeroSignInUsers(users: UsersRepository) {
  return {
    /**
     * The user a Xero sign-in is for: the one linked to this Xero user; else the signed-in user who started
     * the sign-in (`linkUserId`), now linked; else a new one with no password, named from the profile.
     */
    async findOrCreate(xeroUserId: string, profile: XeroProfile, linkUserId: number | null) {
      const linked = await users.findByXeroUserId(xeroUserId);
      if (linked) return linked;
      if (linkUserId) {
        await users.linkXero(linkUserId, xeroUserId);
        const user = await users.findById(linkUserId);
        if (user) return user;
      }
      const username = await pickUsername(
        users,
        profile.email ?? profile.preferred_username ?? `xero-${xeroUserId.slice(0, 8)}`,
      );
      return users.create({ username, email: profile.email ?? null, passwordHash: null, xeroUserId });
    },
  };
}

/** Where the sign-in page learns what happened (docs/product/shell.md §8). */
function authUrl(params: Record<string, string>): string {
  return `/auth?${new URLSearchParams(params).toString()}`;
}

/** What the callback of a Sign in with Xero brings back, as the route read it. */
export interface SignInCallback {
  query: { code?: string | undefined; state?: string | undefined; error?: string | undefined };
  /** The URL the callback reached us at (Xero's answer is read from its query string). */
  url: string;
  /** Whether this browser started the authorisation of `query.state` (issue 16, oauth-requests.ts). */
  startedHere: boolean;
  ip: string;
  log: FlowLog;
  /** Signs the browser in as this user: a new session in place of the one it had (the route's cookies). */
  startSession: (userId: number) => Promise<void>;
}

/**
 * Sign in with Xero (OpenID Connect, docs/architecture.md §4 Sign-in and users): creates or links the user by
 * Xero user id and, in the same consent, connects the organisations the user picked. Each step answers where
 * the browser goes: /auth with the values of docs/product/shell.md §8.
 */
export function createXeroSignInService(deps: {
  users: UsersRepository;
  oauth: XeroOAuth;
  oauthRequests: OAuthRequests;
  tokens: TokenStore;
  connection: ConnectionService;
  audit: AuditLog;
  redirectUri: string;
}) {
  const { oauth, oauthRequests, tokens, connection, audit } = deps;
  const signInUsers = createXeroSignInUsers(deps.users);

  return {
    /**
     * GET /api/auth/xero: Xero's consent URL and the `state` the route binds to this browser, the flow's checks
     * kept server-side; or, when Xero cannot be asked, where the browser goes instead. A user already signed
     * in (`signedInUserId`) is linked to the Xero user at the callback.
     */
    async start(signedInUserId: number | null, log: FlowLog): Promise<{ redirect: string; state?: string }> {
      try {
        const { url, checks } = await createAuthorization(oauth, deps.redirectUri);
        await oauthRequests.create({ ...checks, purpose: 'signin', userId: signedInUserId });
        return { redirect: url, state: checks.state };
      } catch (error) {
        log.warn({ err: error }, 'Sign in with Xero could not start');
        return { redirect: authUrl({ error: 'auth_configuration' }) };
      }
    },

    /**
     * GET /api/auth/xero/callback: finishes the sign-in and answers where the browser goes. The stored request
     * is used up whatever happens.
     */
    async finishCallback(callback: SignInCallback): Promise<string> {
      const { code, state, error } = callback.query;
      const { ip, log } = callback;
      const pending = await oauthRequests.consume(state);
      const errorRedirect = findOAuthErrorRedirect(error, authUrl);
      if (errorRedirect) return errorRedirect;
      if (!code) return authUrl({ error: 'missing_code' });
      if (!pending || pending.purpose !== 'signin') return authUrl({ error: 'authentication_failed' });
      // A callback this browser did not start (a link finished elsewhere) signs no one in.
      if (!callback.startedHere) {
        log.warn('Sign in with Xero: callback from a browser that did not start the flow');
        await audit.record({
          userId: null,
          action: 'user.login',
          result: 'failure',
          ip,
          detail: { method: 'xero', reason: 'state_not_bound_to_browser' },
        });
        return authUrl({ error: 'authentication_failed' });
      }

      let tokenSet;
      try {
        tokenSet = await exchangeCallbackCode(oauth, deps.redirectUri, callback.url, pending);
      } catch (e) {
        log.warn({ err: e }, 'Sign in with Xero: code exchange failed');
        const kind = e instanceof OAuthError ? e.error : '';
        return authUrl({ error: kind === 'invalid_client' ? 'auth_configuration' : 'authentication_failed' });
      }
      const claims = tokenSet.idTokenClaims;
      const xeroUserId = claims?.xero_userid ?? claims?.sub;
      if (!tokenSet.accessToken || !claims || !xeroUserId) return authUrl({ error: 'missing_token' });

      const user = await signInUsers.findOrCreate(xeroUserId, claims, pending.userId ?? null);
      if (!user) return authUrl({ error: 'authentication_failed' });
      await tokens.save(user.id, tokenSet, xeroUserId);

      let warning: string | undefined;
      try {
        const { orgs } = await connection.recordConsent(user.id);
        if (orgs.length === 0) warning = 'no_tenants';
      } catch (e) {
        log.warn({ err: e }, 'Sign in with Xero: connections could not be read');
        warning = 'connection_issue';
      }
      await callback.startSession(user.id);
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.login',
        result: 'success',
        ip,
        detail: { method: 'xero' },
      });
      return authUrl({ xero_callback: 'true', ...(warning ? { warning } : {}) });
    },
  };
}
export type XeroSignInService = ReturnType<typeof createXeroSignInService>;
