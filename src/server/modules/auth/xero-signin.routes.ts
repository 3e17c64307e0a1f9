import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { USERNAME_MIN_LENGTH, usernameSchema } from '../../../shared/admin';
import { OAuthError, type XeroOAuth } from '../../xero/xero-http/oauth';
import type { TokenStore } from '../../xero/xero-http/token-store';
import type { AuditLog } from '../audit/audit';
import type { ConnectionService } from '../xero-connection/connection.service';
import {
  createAuthorization,
  exchangeCallbackCode,
  findOAuthErrorRedirect,
  oauthCallbackQuerySchema,
  bindToBrowser,
  takeBrowserBinding,
  type OAuthRequests,
} from '../xero-connection/oauth-requests';
import type { UsersRepository } from './auth.repository';
import type { SessionStore } from './sessions';

function authUrl(params: Record<string, string>): string {
  return `/auth?${new URLSearchParams(params).toString()}`;
}

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
async function pickUsername(users: UsersRepository, wanted: string): Promise<string> {
  const base = deriveUsername(wanted);
  if (!(await users.findByUsername(base))) return base;
  for (let i = 2; i < 1000; i += 1) {
    const candidate = `${base}-${i}`;
    if (!(await users.findByUsername(candidate))) return candidate;
  }
  return `${base}-${Date.now()}`;
}

/**
 * Sign in with Xero (OpenID Connect): creates or links the user by Xero user id and, in the same consent,
 * connects the organisations the user picked. Lands on /auth with the values of spec 000 §8.
 */
export function registerXeroSignInRoutes(
  root: FastifyInstance,
  deps: {
    oauth: XeroOAuth;
    oauthRequests: OAuthRequests;
    users: UsersRepository;
    tokens: TokenStore;
    sessions: SessionStore;
    connection: ConnectionService;
    audit: AuditLog;
    redirectUri: string;
    /** Cookies over HTTPS only (the session's setting). */
    secureCookie: boolean;
  },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { oauth, oauthRequests, users, tokens, sessions, connection, audit } = deps;

  app.get(
    '/api/auth/xero',
    { schema: { querystring: z.object({}).passthrough() } },
    async (request, reply) => {
      try {
        const { url, checks } = await createAuthorization(oauth, deps.redirectUri);
        const signedIn = request.session && !request.session.mfaPending ? request.session.user.id : null;
        await oauthRequests.create({ ...checks, purpose: 'signin', userId: signedIn });
        bindToBrowser(request, reply, checks.state, deps.secureCookie);
        return reply.redirect(url);
      } catch (error) {
        request.log.warn({ err: error }, 'Sign in with Xero could not start');
        return reply.redirect(authUrl({ error: 'auth_configuration' }));
      }
    },
  );

  app.get(
    '/api/auth/xero/callback',
    {
      schema: {
        querystring: oauthCallbackQuerySchema,
      },
    },
    async (request, reply) => {
      const { code, state, error } = request.query;
      const pending = await oauthRequests.consume(state);
      const startedHere = takeBrowserBinding(request, reply, state, deps.secureCookie);
      const errorRedirect = findOAuthErrorRedirect(error, authUrl);
      if (errorRedirect) return reply.redirect(errorRedirect);
      if (!code) return reply.redirect(authUrl({ error: 'missing_code' }));
      if (!pending || pending.purpose !== 'signin')
        return reply.redirect(authUrl({ error: 'authentication_failed' }));
      // A callback this browser did not start (a link finished elsewhere) signs no one in.
      if (!startedHere) {
        request.log.warn('Sign in with Xero: callback from a browser that did not start the flow');
        await audit.record({
          userId: null,
          action: 'user.login',
          result: 'failure',
          ip: request.ip,
          detail: { method: 'xero', reason: 'state_not_bound_to_browser' },
        });
        return reply.redirect(authUrl({ error: 'authentication_failed' }));
      }

      let tokenSet;
      try {
        tokenSet = await exchangeCallbackCode(oauth, deps.redirectUri, request.url, pending);
      } catch (e) {
        request.log.warn({ err: e }, 'Sign in with Xero: code exchange failed');
        const kind = e instanceof OAuthError ? e.error : '';
        return reply.redirect(
          authUrl({ error: kind === 'invalid_client' ? 'auth_configuration' : 'authentication_failed' }),
        );
      }
      const claims = tokenSet.idTokenClaims;
      const xeroUserId = claims?.xero_userid ?? claims?.sub;
      if (!tokenSet.accessToken || !claims || !xeroUserId)
        return reply.redirect(authUrl({ error: 'missing_token' }));

      let user = await users.findByXeroUserId(xeroUserId);
      if (!user && pending.userId) {
        await users.linkXero(pending.userId, xeroUserId);
        user = await users.findById(pending.userId);
      }
      if (!user) {
        const email = claims.email ?? null;
        const username = await pickUsername(
          users,
          claims.email ?? claims.preferred_username ?? `xero-${xeroUserId.slice(0, 8)}`,
        );
        user = await users.create({ username, email, passwordHash: null, xeroUserId });
        if (!user) return reply.redirect(authUrl({ error: 'authentication_failed' }));
      }
      await tokens.save(user.id, tokenSet, xeroUserId);

      let warning: string | undefined;
      try {
        const orgs = await connection.syncFromXero(user.id);
        if (orgs.length === 0) warning = 'no_tenants';
      } catch (e) {
        request.log.warn({ err: e }, 'Sign in with Xero: connections could not be read');
        warning = 'connection_issue';
      }
      await sessions.destroy(request, reply);
      await sessions.create(reply, request, user.id);
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.login',
        result: 'success',
        ip: request.ip,
        detail: { method: 'xero' },
      });
      return reply.redirect(authUrl({ xero_callback: 'true', ...(warning ? { warning } : {}) }));
    },
  );
}
