import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { connectionStatusSchema, xeroAuthUrlResponseSchema } from '../../../shared/connection';
import { featureFlagsResponseSchema, userOrganizationsResponseSchema } from '../../../shared/organizations';
import { idOrIdTextSchema } from '../../../shared/input';
import type { WebhookHealth } from '../../../shared/webhook-health';
import { requireUser } from '../auth/guards';
import type { ConnectService } from './connect.service';
import type { ConnectionService } from './connection.service';
import { bindToBrowser, oauthCallbackQuerySchema, takeBrowserBinding } from './oauth-requests';

/** `organizationId` as the clients send it: a number, or a string of digits (docs/product/shell.md §5). */
export const organizationIdSchema = idOrIdTextSchema('Invalid organization ID');

const setActiveBody = z.object({ organizationId: organizationIdSchema });

/**
 * GET /api/xero/connection's answer as sent, for the answers the service keeps (frozen: one per organisation
 * row, membership and token expiry a principal holds, decision 032), checked against the route's schema and
 * serialised once instead of on every request (the zod serialiser was a tenth of the answer's CPU,
 * bench/profile-server.ts; issue 32). Another answer is left to the route's serialiser (undefined).
 */
const connectionBodies = new WeakMap<object, string>();
function connectionBody(status: z.infer<typeof connectionStatusSchema>): string | undefined {
  if (!Object.isFrozen(status)) return undefined;
  let body = connectionBodies.get(status);
  if (body === undefined) {
    body = JSON.stringify(connectionStatusSchema.parse(status));
    connectionBodies.set(status, body);
  }
  return body;
}

export function registerConnectionRoutes(
  root: FastifyInstance,
  deps: {
    connection: ConnectionService;
    /** Connect and reconnect: the authorisation and its callback (connect.service.ts). */
    connect: ConnectService;
    /** Cookies over HTTPS only (the session's setting). */
    secureCookie: boolean;
    /** Each organisation's live updates from Xero, for its card (docs/decisions/018-webhooks.md). */
    liveUpdates?: (tenantIds: readonly string[]) => Promise<Map<string, WebhookHealth>>;
  },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { connection, connect } = deps;

  const start = async (
    request: FastifyRequest,
    reply: FastifyReply,
    purpose: 'connect' | 'reconnect',
    organizationId: number | null = null,
  ) => {
    const userId = requireUser(request).id;
    // Connect on a card names its organisation (issue 45 item 1): only one of the user's own.
    if (organizationId !== null) await connection.requireMembership(userId, organizationId);
    const { state, ...answer } = await connect.startAuthorization(
      userId,
      purpose,
      request.log,
      organizationId,
    );
    bindToBrowser(request, reply, state, deps.secureCookie);
    return answer;
  };
  app.get(
    '/api/xero/connect',
    {
      schema: {
        // Beyond the spec: Connect on an organisation's card names it, so the page can say when Xero's
        // consent left it out (issue 45 item 1).
        querystring: z.object({ organizationId: organizationIdSchema.optional() }),
        response: { 200: xeroAuthUrlResponseSchema },
      },
    },
    (request, reply) => start(request, reply, 'connect', request.query.organizationId ?? null),
  );
  app.get(
    '/api/xero/reconnect',
    { schema: { response: { 200: xeroAuthUrlResponseSchema } } },
    (request, reply) => start(request, reply, 'reconnect'),
  );

  app.get(
    '/api/xero/callback',
    { schema: { querystring: oauthCallbackQuerySchema } },
    async (request, reply) => {
      const startedHere = takeBrowserBinding(request, reply, request.query.state, deps.secureCookie);
      const session = request.session && !request.session.mfaPending ? request.session : null;
      return reply.redirect(
        await connect.finishCallback({
          query: request.query,
          url: request.url,
          userId: session ? session.user.id : null,
          startedHere,
          ip: request.ip,
          log: request.log,
        }),
      );
    },
  );

  app.get(
    '/api/xero/connection',
    { schema: { response: { 200: connectionStatusSchema } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const status = await connection.getStatus(requireUser(request).id, request.principal);
      const body = connectionBody(status);
      // A kept answer goes out as the text it was serialised to once; any other through the route's schema.
      // (The type provider types `send` by the schema; the text is that schema's answer, already checked.)
      return body === undefined
        ? status
        : reply.type('application/json; charset=utf-8').send(body as unknown as typeof status);
    },
  );

  app.get(
    '/api/user-organizations',
    { schema: { response: { 200: userOrganizationsResponseSchema } } },
    async (request) => {
      const orgs = await connection.listUserOrganizations(requireUser(request).id, request.principal);
      if (!deps.liveUpdates || orgs.length === 0) return orgs;
      const health = await deps.liveUpdates(orgs.map((o) => o.tenantId));
      // While Xero refuses the connection nothing of the organisation is read, whatever the webhooks' state
      // (issue 45 item 2: the card said "Live updates: On" after a revoke).
      return orgs.map((o) => ({
        ...o,
        liveUpdates: o.lostReason
          ? { state: 'fallback' as const, reason: 'connection-lost' as const, since: null }
          : (health.get(o.tenantId) ?? null),
      }));
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
