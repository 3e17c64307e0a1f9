import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { connectionStatusSchema, xeroAuthUrlResponseSchema } from '../../../shared/connection';
import { featureFlagsResponseSchema, userOrganizationsResponseSchema } from '../../../shared/organizations';
import { idOrIdTextSchema } from '../../../shared/input';
import type { WebhookHealth } from '../../../shared/webhook-health';
import { AppError } from '../../lib/app-error';
import { OAuthError, type TokenStore, type XeroOAuth } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import { requireUser } from '../auth/guards';
import type { ConnectionService } from './connection.service';
import {
  createAuthorization,
  exchangeCallbackCode,
  findOAuthErrorRedirect,
  oauthCallbackQuerySchema,
  bindToBrowser,
  takeBrowserBinding,
  type OAuthRequests,
} from './oauth-requests';

/** `organizationId` as the clients send it: a number, or a string of digits (docs/product/shell.md §5). */
export const organizationIdSchema = idOrIdTextSchema('Invalid organization ID');

const setActiveBody = z.object({ organizationId: organizationIdSchema });

/** Where the organisations page learns what happened (docs/product/shell.md §8, query-string errors). */
function organizationsUrl(params: Record<string, string>): string {
  return `/organizations?${new URLSearchParams(params).toString()}`;
}

export function registerConnectionRoutes(
  root: FastifyInstance,
  deps: {
    connection: ConnectionService;
    oauth: XeroOAuth;
    oauthRequests: OAuthRequests;
    tokens: TokenStore;
    audit: AuditLog;
    redirectUri: string;
    appUrl: string;
    /** Cookies over HTTPS only (the session's setting). */
    secureCookie: boolean;
    /** Each organisation's live updates from Xero, for its card (docs/decisions/018-webhooks.md). */
    liveUpdates?: (tenantIds: readonly string[]) => Promise<Map<string, WebhookHealth>>;
  },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { connection, oauth, oauthRequests, tokens, audit } = deps;

  const start = async (request: FastifyRequest, reply: FastifyReply, purpose: 'connect' | 'reconnect') => {
    const user = requireUser(request);
    let authorization: Awaited<ReturnType<typeof createAuthorization>>;
    try {
      authorization = await createAuthorization(oauth, deps.redirectUri);
    } catch (error) {
      request.log.warn({ err: error }, 'Xero authorization URL failed');
      throw new AppError(
        'XERO_UNAVAILABLE',
        purpose === 'connect'
          ? 'Failed to generate Xero connection URL'
          : 'Failed to generate Xero reconnection URL',
      );
    }
    await oauthRequests.create({ ...authorization.checks, purpose, userId: user.id });
    bindToBrowser(request, reply, authorization.checks.state, deps.secureCookie);
    return { url: authorization.url, cancelUrl: `${deps.appUrl}/xero-cancel` };
  };
  app.get(
    '/api/xero/connect',
    { schema: { response: { 200: xeroAuthUrlResponseSchema } } },
    (request, reply) => start(request, reply, 'connect'),
  );
  app.get(
    '/api/xero/reconnect',
    { schema: { response: { 200: xeroAuthUrlResponseSchema } } },
    (request, reply) => start(request, reply, 'reconnect'),
  );

  app.get(
    '/api/xero/callback',
    {
      schema: {
        querystring: oauthCallbackQuerySchema,
      },
    },
    async (request, reply) => {
      const { code, state, error } = request.query;
      const pending = await oauthRequests.consume(state);
      const startedHere = takeBrowserBinding(request, reply, state, deps.secureCookie);
      const errorRedirect = findOAuthErrorRedirect(error, organizationsUrl);
      if (errorRedirect) return reply.redirect(errorRedirect);
      const user = request.session && !request.session.mfaPending ? request.session.user : null;
      if (!user) return reply.redirect(organizationsUrl({ error: 'unauthorized' }));
      if (!code) return reply.redirect(organizationsUrl({ error: 'missing_code' }));
      if (!pending || pending.purpose === 'signin')
        return reply.redirect(organizationsUrl({ error: 'invalid_request' }));
      if (pending.userId !== user.id) return reply.redirect(organizationsUrl({ error: 'unauthorized' }));
      // A callback this browser did not start connects nothing (issue 16).
      if (!startedHere) {
        await audit.record({
          userId: user.id,
          action: `xero.${pending.purpose}`,
          result: 'failure',
          ip: request.ip,
          detail: { reason: 'state_not_bound_to_browser' },
        });
        return reply.redirect(organizationsUrl({ error: 'invalid_request' }));
      }

      let tokenSet;
      try {
        tokenSet = await exchangeCallbackCode(oauth, deps.redirectUri, request.url, pending);
      } catch (e) {
        const kind = e instanceof OAuthError ? e.error : 'token_exchange_failed';
        request.log.warn({ err: e, kind }, 'Xero code exchange failed');
        const codeMap: Record<string, string> = {
          invalid_grant: 'invalid_grant',
          invalid_client: 'invalid_client',
          invalid_request: 'invalid_request',
        };
        await audit.record({
          userId: user.id,
          action: 'xero.connect',
          result: 'failure',
          ip: request.ip,
          detail: { reason: kind },
        });
        return reply.redirect(organizationsUrl({ error: codeMap[kind] ?? 'token_exchange_failed' }));
      }
      if (!tokenSet.accessToken) return reply.redirect(organizationsUrl({ error: 'missing_access_token' }));
      if (!tokenSet.refreshToken) return reply.redirect(organizationsUrl({ error: 'missing_refresh_token' }));
      await tokens.save(user.id, tokenSet, tokenSet.idTokenClaims?.xero_userid ?? null);

      let orgs;
      try {
        orgs = await connection.syncFromXero(user.id);
      } catch (e) {
        request.log.warn({ err: e }, 'Xero connections could not be read');
        const message = e instanceof AppError ? e.message : 'Could not record the organisations';
        return reply.redirect(
          organizationsUrl(
            e instanceof AppError && e.code.startsWith('XERO')
              ? { error: 'xero_connection_failed' }
              : { error: 'tenant_update_failed', message },
          ),
        );
      }
      if (orgs.length === 0) return reply.redirect(organizationsUrl({ error: 'no_tenants' }));
      await audit.record({
        userId: user.id,
        action: pending.purpose === 'reconnect' ? 'xero.reconnect' : 'xero.connect',
        result: 'success',
        ip: request.ip,
        detail: { organizations: orgs.map((o) => o.tenantName) },
      });
      return reply.redirect(organizationsUrl({ connected: 'true' }));
    },
  );

  app.get(
    '/api/xero/connection',
    { schema: { response: { 200: connectionStatusSchema } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return connection.getStatus(requireUser(request).id, request.principal);
    },
  );

  app.get(
    '/api/user-organizations',
    { schema: { response: { 200: userOrganizationsResponseSchema } } },
    async (request) => {
      const orgs = await connection.listUserOrganizations(requireUser(request).id, request.principal);
      if (!deps.liveUpdates || orgs.length === 0) return orgs;
      const health = await deps.liveUpdates(orgs.map((o) => o.tenantId));
      return orgs.map((o) => ({ ...o, liveUpdates: health.get(o.tenantId) ?? null }));
    },
  );

  app.get(
    '/api/feature-flags',
    { schema: { response: { 200: featureFlagsResponseSchema } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const rows = await connection.listUserOrganizations(requireUser(request).id, request.principal);
      return rows.map((o) => ({
        organizationId: o.organizationId,
        featurePayInvoices: o.featurePayInvoices === true,
        featureAddInvoices: o.featureAddInvoices === true,
        featureCisBills: o.featureCisBills === true,
        featureStockJournal: o.featureStockJournal === true,
      }));
    },
  );

  app.post(
    '/api/xero/set-active-organization',
    {
      schema: {
        body: setActiveBody,
        response: {
          200: z.object({
            success: z.literal(true),
            organizationId: z.number(),
            tenantId: z.string(),
            tenantName: z.string().nullable(),
            warning: z.string().optional(),
          }),
        },
      },
    },
    async (request) => connection.setActive(requireUser(request).id, request.body.organizationId, request.ip),
  );

  app.post(
    '/api/xero/connections/refresh',
    {
      schema: {
        response: { 200: z.object({ disconnectedInXero: z.array(z.string()) }) },
      },
    },
    async (request) => connection.refreshConnections(requireUser(request).id, request.ip),
  );

  app.post(
    '/api/xero/disconnect',
    { schema: { body: setActiveBody, response: { 200: z.object({ success: z.literal(true) }) } } },
    async (request) => {
      await connection.disconnect(requireUser(request).id, request.body.organizationId, request.ip);
      return { success: true as const };
    },
  );
}
