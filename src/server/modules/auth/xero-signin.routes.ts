import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { OAuthError, type TokenStore, type XeroOAuth } from '../../xero/xero-port';
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
import type { XeroSignInUsers } from './xero-signin.service';
import type { SessionStore } from './sessions';

function authUrl(params: Record<string, string>): string {
  return `/auth?${new URLSearchParams(params).toString()}`;
}

/**
 * Sign in with Xero (OpenID Connect): creates or links the user by Xero user id and, in the same consent,
 * connects the organisations the user picked. Lands on /auth with the values of docs/product/shell.md §8.
 */
export function registerXeroSignInRoutes(
  root: FastifyInstance,
  deps: {
    oauth: XeroOAuth;
    oauthRequests: OAuthRequests;
    /** Finds, links or creates the user a Xero sign-in is for. */
    signInUsers: XeroSignInUsers;
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
  const { oauth, oauthRequests, signInUsers, tokens, sessions, connection, audit } = deps;

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

      const user = await signInUsers.findOrCreate(xeroUserId, claims, pending.userId ?? null);
      if (!user) return reply.redirect(authUrl({ error: 'authentication_failed' }));
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
