import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  bindToBrowser,
  oauthCallbackQuerySchema,
  takeBrowserBinding,
} from '../xero-connection/oauth-requests';
import type { XeroSignInService } from './xero-signin.service';
import type { SessionStore } from './sessions';

/**
 * Sign in with Xero (OpenID Connect): the flow is xero-signin.service.ts's; these routes bind it to the browser
 * that started it and sign that browser in.
 */
export function registerXeroSignInRoutes(
  root: FastifyInstance,
  deps: {
    signIn: XeroSignInService;
    sessions: SessionStore;
    /** Cookies over HTTPS only (the session's setting). */
    secureCookie: boolean;
  },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { signIn, sessions } = deps;

  app.get(
    '/api/auth/xero',
    { schema: { querystring: z.object({}).passthrough() } },
    async (request, reply) => {
      const signedIn = request.session && !request.session.mfaPending ? request.session.user.id : null;
      const { redirect, state } = await signIn.start(signedIn, request.log);
      if (state !== undefined) bindToBrowser(request, reply, state, deps.secureCookie);
      return reply.redirect(redirect);
    },
  );

  app.get(
    '/api/auth/xero/callback',
    { schema: { querystring: oauthCallbackQuerySchema } },
    async (request, reply) => {
      const startedHere = takeBrowserBinding(request, reply, request.query.state, deps.secureCookie);
      return reply.redirect(
        await signIn.finishCallback({
          query: request.query,
          url: request.url,
          startedHere,
          ip: request.ip,
          log: request.log,
          // A new session id at every sign-in: a session fixed before sign-in is never promoted.
          startSession: async (userId) => {
            await sessions.destroy(request, reply);
            await sessions.create(reply, request, userId);
          },
        }),
      );
    },
  );
}
