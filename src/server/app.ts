import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isDatabaseReady } from './db/client';
import { createLoggerOptions, createRequestLogger, LedgerlinkLogController } from './lib/logger';
import { documentErrorResponses } from './plugins/api-errors';
import { registerErrorHandler } from './plugins/error-handler';
import { answerFrameworkError, registerInputGuard } from './plugins/input-guard';
import { isApiRequest, routePath } from './plugins/route-path';
import { registerSecurity } from './plugins/security';
import { registerSpa } from './plugins/spa';
import {
  readRequestedOrganization,
  registerTenancy,
  type TenantScope,
} from './modules/organizations/tenancy';
import { WEBHOOK_PATH } from './modules/xero-webhooks/webhooks.routes';
import { createWiring, type BuildAppOptions, type WiringParts } from './wiring';

export type { BuildAppOptions } from './wiring';

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: { body?: unknown; querystring?: unknown; params?: unknown; response?: unknown; hide?: boolean };
  /** An organisation-scoped route's `config.tenant` (docs/decisions/007-tenancy.md). */
  tenant?: TenantScope | undefined;
}

/**
 * The parts of a built app that only its builder's caller sees (the app is not decorated with them): the test
 * factory hands them to tests as a typed handle, for what a route cannot show (docs/code-style.md §7).
 */
export interface AppParts extends WiringParts {
  /** Every route, as registered: the isolation, bad-input and tenancy suites enumerate it so none is missed. */
  routeTable: RegisteredRoute[];
}

const DEFAULT_CLIENT_DIR = fileURLToPath(new URL('../../dist/client', import.meta.url));

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  return (await assembleApp(options)).app;
}

/** buildApp, also answering the parts the test factory hands to tests (src/server/test/app.ts). */
export async function assembleApp(
  options: BuildAppOptions,
): Promise<{ app: FastifyInstance; parts: AppParts }> {
  const { config, database } = options;
  const requestIdPrefix = randomBytes(6).toString('base64url');
  let requestCount = 0;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            ...createLoggerOptions(config.logLevel),
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Ids come from us, never from a client header: this app's random prefix and a count, unique across
    // instances for the logs (a UUID each was about 0.5 KB of garbage a request, issue 47).
    genReqId: () => `${requestIdPrefix}-${(++requestCount).toString(36)}`,
    // A path parameter beyond its length (414) or a malformed URL answers in our { message, code } shape.
    frameworkErrors: answerFrameworkError,
    // Demo mode: each request's own lines are debug (src/server/lib/logger.ts), as server.ts's pino hook says.
    logController: new LedgerlinkLogController({ requestsAtDebug: config.xeroMode === 'demo' }),
    // A request's logger is made when it first writes a line that is kept (lib/logger.ts `RequestLogger`).
    ...(options.logger === false ? {} : { childLoggerFactory: createRequestLogger }),
  }).withTypeProvider<ZodTypeProvider>();

  // Every route, as registered (AppParts.routeTable).
  const routeTable: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    // Every /api route documents its error answers in the { message, code } shape (issue 16).
    documentErrorResponses(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routeTable.push({
        method,
        url: route.url,
        schema: (route.schema ?? {}) as RegisteredRoute['schema'],
        tenant: route.config?.tenant,
      });
    }
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  await registerSecurity(app, {
    appUrl: config.appUrl,
    https: config.session.secureCookie,
    signedPaths: [WEBHOOK_PATH],
  });
  await app.register(cookie);
  // Per-route request limits (registration); the sign-in and code limits live in the database (login-limiter.ts).
  await app.register(rateLimit, { global: false });
  // OpenAPI description of our own API, generated from the zod schemas, browsable at /api/docs.
  await app.register(swagger, {
    openapi: {
      info: { title: 'Ledgerlink API', version: '1' },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'll_session' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: false });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await isDatabaseReady(database);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'database unavailable' });
  });

  app.get(
    '/api/config',
    {
      schema: {
        response: {
          200: z.object({
            mode: z.enum(['demo', 'live']),
            demoLogin: z.boolean(),
            provider: z.literal('Xero'),
          }),
        },
      },
    },
    async () => ({
      mode: config.xeroMode,
      demoLogin: Boolean(options.demoCredentials),
      provider: 'Xero' as const,
    }),
  );

  // Every port, service, module and background job, wired once (src/server/wiring.ts, docs/code-style.md §4).
  const wiring = createWiring(app, options);
  const principalCache = wiring.parts.principals;
  // A write's own instance forgets what it changed as it commits (db/local-notices.ts), without waiting for
  // its notice. The organisation's invoice-cache version moves by trigger with any invoice a write touches
  // (payments, approvals, settings, a refresh), so a write request's organisation is forgotten as it answers.
  // A request that changed who may do what (a sign-out, a demoted administrator, a switched-off feature, a
  // disconnect, new Xero tokens) answers once every other instance has heard of it, or can no longer serve from
  // before it (decision 032, principal-cache.ts `peersHeard`): a millisecond or two on PostgreSQL, nothing on PGlite.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const organizationId = request.principal?.tenancy?.found?.org.id;
    if (organizationId !== undefined && request.method !== 'GET' && request.method !== 'HEAD')
      principalCache.forget(`o:${organizationId}`);
    const mark = request.accessChangesAtStart;
    if (mark !== null && principalCache.localChanges !== mark) {
      principalCache.peersHeard().then(
        () => done(null, payload),
        (error: unknown) => done(error as Error),
      );
      return;
    }
    done(null, payload);
  });

  app.decorateRequest('session', null);
  app.decorateRequest('principal', null);
  app.decorateRequest('queriedOrganization', null);
  app.decorateRequest('accessChangesAtStart', null);
  app.decorateRequest('matchedRoute', null);
  // Who asks, their Xero token's state and the organisation the request names (or their active one), in one
  // query shared with the requests arriving at the same moment (src/server/modules/auth/sessions.ts).
  app.addHook('onRequest', async (request) => {
    // Xero's webhook deliveries carry no session: they are trusted by their signature alone.
    // Decided on the route that matched, as the router decoded it (`/%61pi/user` is `/api/user`: issue 28).
    if (!isApiRequest(request) || routePath(request) === WEBHOOK_PATH) return;
    request.accessChangesAtStart = principalCache.localChanges;
    if (options.settleNoticesFirst) await principalCache.settled();
    const principal = await wiring.sessions.loadPrincipal(request, readRequestedOrganization(request));
    request.principal = principal;
    request.session = principal.session;
  });

  // Which organisation, then the input (docs/decisions/007-tenancy.md): the tenancy hook runs before the input guard.
  registerTenancy(app, wiring.resolveTenant);
  registerInputGuard(app);

  wiring.registerModules();
  app.addHook('onReady', () => wiring.start());
  app.addHook('onClose', () => wiring.stop());

  // A page's first data is asked of Xero as its HTML leaves, not once its scripts have run (issue 32).
  await registerSpa(app, options.clientDir ?? DEFAULT_CLIENT_DIR, {
    onPage: async (request, pathname) => {
      if (options.settleNoticesFirst) await principalCache.settled();
      await wiring.startPageData(request, pathname);
    },
  });
  return { app, parts: { ...wiring.parts, routeTable } };
}
