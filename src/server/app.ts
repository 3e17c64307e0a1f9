import nodeCrypto from 'node:crypto';
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
import type { ServerConfig } from './config/env';
import type { Database } from './db/client';
import { isDatabaseReady } from './db/client';
import { createLoggerOptions, LedgerlinkLogController } from './lib/logger';
import { documentErrorResponses } from './plugins/api-errors';
import { registerErrorHandler } from './plugins/error-handler';
import { answerFrameworkError, registerInputGuard } from './plugins/input-guard';
import { isApiRequest, routePath } from './plugins/route-path';
import { registerSecurity } from './plugins/security';
import { registerSpa } from './plugins/spa';
import { registerFeatureModules } from './modules/features';
import { createAuditLog } from './modules/audit/audit';
import { createUsersRepository } from './modules/auth/auth.repository';
import { registerAuthRoutes } from './modules/auth/auth.routes';
import { createAdminRepository } from './modules/admin/admin.repository';
import { registerAdminRoutes } from './modules/admin/admin.routes';
import { createAdminService } from './modules/admin/admin.service';
import { createAuthService } from './modules/auth/auth.service';
import { createLoginLimiter } from './modules/auth/login-limiter';
import { createMfaLimiter } from './modules/auth/mfa.limiter';
import { createMfaRepository } from './modules/auth/mfa.repository';
import { createMfaService } from './modules/auth/mfa.service';
import { createPrincipalCache } from './modules/auth/principal-cache';
import { createSessionStore, type PrincipalRow } from './modules/auth/sessions';
import { registerXeroSignInRoutes } from './modules/auth/xero-signin.routes';
import { createXeroSignInUsers } from './modules/auth/xero-signin.service';
import { createOrganizationsRepository } from './modules/organizations/organizations.repository';
import { createTenancy, readRequestedOrganization } from './modules/organizations/tenancy';
import { registerConnectionRoutes } from './modules/xero-connection/connection.routes';
import { createConnectionService } from './modules/xero-connection/connection.service';
import { createOAuthRequests } from './modules/xero-connection/oauth-requests';
import { createBodyCache } from './lib/body-cache';
import { createSecretBox, loadEncryptionKey } from './lib/crypto';
import { createXeroPort } from './xero/xero-http/adapter';
import { createXeroHttp, type XeroHttpOptions } from './xero/xero-http/http';
import { createSharedGates, type SharedGateOptions } from './xero/xero-http/shared-gate';
import { registerMetrics, type AppMetrics } from './metrics/metrics';
import { redirectUris } from './demo';
import { createXeroOAuth } from './xero/xero-http/oauth';
import { createTokenStore } from './xero/xero-http/token-store';
import { createWriteLedger, RECONCILE_INTERVAL_MS } from './xero/write-ledger';
import { createXeroSync, type SyncContext } from './xero/sync/sync.service';
import { createLiveEvents } from './lib/live-events';
import { createWebhookHealth } from './xero/webhooks/health';
import { createWebhookProcessor } from './xero/webhooks/processor';
import { registerXeroWebhookRoutes, WEBHOOK_PATH } from './modules/xero-webhooks/webhooks.routes';
import { registerLiveEventsRoutes } from './modules/live-events/live-events.routes';
import { createEgressMeter } from './modules/organizations/egress-meter';
import type { XeroEndpoints } from './xero/endpoints';

export interface BuildAppOptions {
  config: ServerConfig;
  database: Database;
  xero: XeroEndpoints;
  /** false silences request logs (tests); an object is passed to pino. */
  logger?: boolean | Record<string, unknown>;
  /** Folder of the built client; defaults to dist/client. */
  clientDir?: string;
  /**
   * Demo mode only: the bootstrap admin's credentials, offered to the development helper
   * (docs/product/shell.md §6).
   */
  demoCredentials?: { username: string; password: string } | undefined;
  /** Tests tune retries and back-off of the Xero client (and may hold its calls at the gate). */
  xeroHttp?: Partial<
    Pick<
      XeroHttpOptions,
      'backoffMs' | 'maxAttempts' | 'maxRetryAfterMs' | 'timeoutMs' | 'gate' | 'createGate'
    >
  >;
  /** On PostgreSQL: limits of the Xero gate shared by all instances (tests lower them with the sandbox's). */
  xeroGate?: Partial<SharedGateOptions>;
  /**
   * Tests: each request first waits until this instance has read every change notice committed before it
   * (principal-cache.ts `settled`). An injected request runs in the very tick a test's write returns, before a
   * PostgreSQL notice can be read off its socket; a request over a network arrives after it.
   */
  settleNoticesFirst?: boolean;
}

/**
 * The parts of a built app that only its builder's caller sees (the app is not decorated with them): the
 * test factory hands them to tests as a typed handle, for what a route cannot show (a reconcile pass run now,
 * a sync run directly, a raw Xero call for a fault, a token read back).
 */
export interface AppParts {
  tokens: ReturnType<typeof createTokenStore>;
  xeroHttp: ReturnType<typeof createXeroHttp>;
  ledger: ReturnType<typeof createWriteLedger>;
  sync: ReturnType<typeof createXeroSync>;
  /** Who asks, kept in memory between requests (src/server/modules/auth/principal-cache.ts). */
  principals: ReturnType<typeof createPrincipalCache<PrincipalRow>>;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: { body?: unknown; querystring?: unknown; params?: unknown; response?: unknown; hide?: boolean };
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RegisteredRoute[];
  }
}

/** Memory for serialised cached answers: a 5,000-invoice list is about 1.3 MB. */
const BODY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

const DEFAULT_CLIENT_DIR = fileURLToPath(new URL('../../dist/client', import.meta.url));

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  return (await assembleApp(options)).app;
}

/** buildApp, also answering the parts the test factory hands to tests (src/server/test/app.ts). */
export async function assembleApp(
  options: BuildAppOptions,
): Promise<{ app: FastifyInstance; parts: AppParts }> {
  const { config, database } = options;
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
    // Ids come from us, never from a client header.
    genReqId: () => crypto.randomUUID(),
    // A path parameter beyond its length (414) or a malformed URL answers in our { message, code } shape.
    frameworkErrors: answerFrameworkError,
    logController: new LedgerlinkLogController(),
  }).withTypeProvider<ZodTypeProvider>();

  // Every route, as registered: the isolation and bad-input suites enumerate it so no route can be missed.
  const routeTable: RegisteredRoute[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    // Every /api route documents its error answers in the { message, code } shape (issue 16).
    documentErrorResponses(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routeTable.push({ method, url: route.url, schema: (route.schema ?? {}) as RegisteredRoute['schema'] });
    }
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerInputGuard(app);
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

  // Collaborators, wired once (docs/code-style.md §4).
  const db = database.db;
  const audit = createAuditLog(db, app.log);
  // Who asks, kept in memory while the database's change notices reach this instance (issue 32).
  const principalCache = createPrincipalCache<PrincipalRow>({ database, log: app.log });
  void principalCache.start();
  app.addHook('onClose', () => principalCache.close());
  // A change this instance wrote is refused here before the writer hears back: its notice has come back.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && isApiRequest(request))
      await principalCache.settled();
    return payload;
  });
  const sessions = createSessionStore(database, {
    ...config.session,
    principalQueriesInFlight: database.kind === 'pglite' ? 1 : 4,
    cache: principalCache,
  });
  const users = createUsersRepository(db);
  const encryptionKey = loadEncryptionKey({ configured: config.tokenEncryptionKey, dataDir: config.dataDir });
  // Device cookies of the sign-in limits are signed with a key of their own, derived from the encryption key.
  const limiter = createLoginLimiter(
    db,
    nodeCrypto.createHmac('sha256', encryptionKey).update('ledgerlink device cookie').digest(),
  );
  const auth = createAuthService({ users, limiter, audit });
  const box = createSecretBox(encryptionKey);
  const mfa = createMfaService({
    repo: createMfaRepository(db),
    limiter: createMfaLimiter(db),
    box: () => box,
    audit,
    requireMfaForAdmins: config.requireMfaForAdmins,
  });

  app.decorateRequest('session', null);
  app.decorateRequest('principal', null);
  app.decorateRequest('queriedOrganization', null);
  // Who asks, their Xero token's state and the organisation the request names (or their active one), in one
  // query shared with the requests arriving at the same moment (src/server/modules/auth/sessions.ts).
  app.addHook('onRequest', async (request) => {
    // Xero's webhook deliveries carry no session: they are trusted by their signature alone.
    // Decided on the route that matched, as the router decoded it (`/%61pi/user` is `/api/user`: issue 28).
    if (!isApiRequest(request) || routePath(request) === WEBHOOK_PATH) return;
    if (options.settleNoticesFirst) await principalCache.settled();
    const principal = await sessions.loadPrincipal(request, readRequestedOrganization(request));
    request.principal = principal;
    request.session = principal.session;
  });

  registerAuthRoutes(app, {
    auth,
    sessions,
    audit,
    demoCredentials: options.demoCredentials,
    mfa,
    limiter,
    secureCookie: config.session.secureCookie,
  });

  // Xero: the one client (docs/code-style.md §4), pointed at Xero or the sandbox by the endpoints alone.
  const oauth = createXeroOAuth(options.xero);
  const tokens = createTokenStore({ db, box, oauth });
  const orgs = createOrganizationsRepository(database);
  const lastRateWrite = new Map<string, number>();
  const egress = createEgressMeter({ store: orgs, log: app.log });
  app.addHook('onClose', () => egress.flush());
  // On PostgreSQL the instances keep Xero's limits together (shared-gate.ts); PGlite has one instance.
  const sharedGates =
    database.kind === 'postgres' && database.pool && !options.xeroHttp?.createGate
      ? createSharedGates(database.pool, { ...options.xeroHttp?.gate, ...options.xeroGate }, app.log)
      : undefined;
  if (sharedGates) app.addHook('onClose', () => sharedGates.close());
  const metrics: AppMetrics = registerMetrics(app, {
    ...config.metrics,
    db,
    gateQueues: () => xeroHttp.gateQueues(),
  });
  const webhookHealth = createWebhookHealth({
    db,
    keyConfigured: Boolean(options.xero.webhookKey ?? config.xero.webhookKey),
    onFallback: (reason) => metrics.webhookFallback(reason),
  });
  const xeroHttp = createXeroHttp({
    apiUrl: options.xero.apiUrl,
    tokens,
    ...options.xeroHttp,
    // A gate given by the caller (tests that hold Xero's calls) wins over the shared one.
    ...(sharedGates && !options.xeroHttp?.createGate ? { createGate: sharedGates.createGate } : {}),
    onCall: (event) => {
      metrics.onXeroCall(event);
      webhookHealth.onXeroCall(event);
    },
    onReceived: (event) => {
      metrics.onXeroReceived(event);
      egress.record(event.tenantId, event.bytes);
    },
    onRateLimits: (tenantId, limits) => {
      // Remember the budget for the organisation cards, at most every few seconds per organisation.
      const now = Date.now();
      if (now - (lastRateWrite.get(tenantId) ?? 0) < 5_000) return;
      lastRateWrite.set(tenantId, now);
      void orgs.updateRateLimits(tenantId, limits).catch(() => undefined);
    },
  });
  // The Xero port, every part built here once; services get only the part they use (docs/code-style.md §4).
  const xero = createXeroPort(xeroHttp);
  const oauthRequests = createOAuthRequests(db);
  const connection = createConnectionService({ orgs, tokens, xero: xero.connections, audit });
  const resolveTenant = createTenancy(orgs);
  const ledger = createWriteLedger({ db, log: app.log });
  // Live updates from Xero's webhooks, or the fallback to If-Modified-Since (docs/decisions/018-webhooks.md).
  const webhookKey = options.xero.webhookKey ?? config.xero.webhookKey;
  const sync = createXeroSync({
    db,
    http: xeroHttp,
    // Without a key every refresh asks Xero, as before webhooks: nothing to decide, nothing to count.
    ...(webhookKey
      ? {
          mayUseCache: (ctx: SyncContext, lastSyncAt: Date | null) =>
            webhookHealth.mayUseCache(ctx, lastSyncAt),
        }
      : {}),
    onChangesRead: (ctx, changedAt) =>
      void webhookHealth.expectDelivery(ctx.tenantId, changedAt).catch(() => undefined),
    onBackgroundError: (ctx, error) =>
      app.log.warn(
        { err: error, organizationId: ctx.organizationId },
        'reading invoices from Xero stopped after the first page; the next request carries on',
      ),
  });
  // A first visit's read goes on after its answer (issue 19): it stops after its page before the database closes.
  app.addHook('onClose', () => sync.close());
  const uris = redirectUris(config.appUrl);
  registerConnectionRoutes(app, {
    connection,
    oauth,
    oauthRequests,
    tokens,
    audit,
    redirectUri: uris.connect,
    appUrl: config.appUrl,
    secureCookie: config.session.secureCookie,
    liveUpdates: (tenantIds) => webhookHealth.healthOf(tenantIds),
  });
  registerXeroSignInRoutes(app, {
    oauth,
    oauthRequests,
    signInUsers: createXeroSignInUsers(users),
    tokens,
    sessions,
    connection,
    audit,
    redirectUri: uris.signin,
    secureCookie: config.session.secureCookie,
  });
  registerAdminRoutes(app, {
    service: createAdminService({ admin: createAdminRepository(db), users, audit, limiter }),
    ledger,
  });
  const bodies = createBodyCache({ maxBytes: BODY_CACHE_MAX_BYTES });

  const housekeeping = setInterval(() => {
    void sessions
      .purgeExpired()
      .catch((error: unknown) => app.log.warn({ err: error }, 'purging expired sessions failed'));
    void limiter
      .purgeOld()
      .catch((error: unknown) => app.log.warn({ err: error }, 'purging old sign-in attempts failed'));
  }, 15 * 60_000);
  housekeeping.unref();
  app.addHook('onClose', async () => clearInterval(housekeeping));

  // Feature modules: services built and routes registered with what they use (modules/features.ts).
  registerFeatureModules(app, {
    db,
    xero,
    sync,
    ledger,
    audit,
    tokens,
    resolveTenant,
    bodies,
    log: app.log,
    attachmentStoreBytes: config.attachmentStore.maxBytes,
  });

  // Xero's webhooks in (signed deliveries, applied after the answer), live screens out (docs/decisions/018-webhooks.md).
  const live = createLiveEvents({ database, log: app.log });
  const webhooks = createWebhookProcessor({
    db,
    sync,
    live,
    log: app.log,
    onApplied: (lag) => metrics.webhookApplied(lag),
  });
  registerXeroWebhookRoutes(app, { webhookKey, processor: webhooks, health: webhookHealth });
  registerLiveEventsRoutes(app, {
    live,
    resolveTenant,
    mayStillRead: async (sessionId, userId, organizationId) =>
      (await sessions.isLive(sessionId)) &&
      Boolean((await orgs.findMembership(userId, organizationId))?.membership.connected),
  });
  app.addHook('onReady', async () => {
    await live.start();
    // Events stored by an instance that stopped before applying them.
    if (webhookKey) void webhooks.drain();
  });
  let lastWebhookPurge = 0;
  const webhookSweep = setInterval(() => {
    if (webhookKey) void webhooks.drain();
    if (webhookKey)
      void webhookHealth
        .giveUpOldGaps()
        .catch((error: unknown) => app.log.warn({ err: error }, 'checking webhook gaps failed'));
    void live
      .purgeOld()
      .catch((error: unknown) => app.log.warn({ err: error }, 'purging old live events failed'));
    if (Date.now() - lastWebhookPurge > 15 * 60_000) {
      lastWebhookPurge = Date.now();
      void webhooks
        .purgeProcessed()
        .catch((error: unknown) => app.log.warn({ err: error }, 'purging processed webhook events failed'));
    }
  }, 30_000);
  webhookSweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(webhookSweep);
    await live.close();
  });

  // This instance's heartbeat (issue 28 item 5), then: settle the writes the staleness rule calls stale (a
  // crashed instance's, a lost answer) by asking Xero, at start and every RECONCILE_INTERVAL_MS, one pass at
  // a time.
  let reconciling = false;
  const reconcile = () => {
    if (reconciling) return;
    reconciling = true;
    void ledger
      .reconcile()
      .then(
        () => metrics.reconcilerRan('ok'),
        (error: unknown) => {
          metrics.reconcilerRan('error');
          app.log.warn({ err: error }, 'reconcile failed');
        },
      )
      .finally(() => {
        reconciling = false;
      });
  };
  const reconciler = setInterval(reconcile, RECONCILE_INTERVAL_MS);
  reconciler.unref();
  app.addHook('onReady', async () => {
    await ledger.start();
    reconcile();
  });
  app.addHook('onClose', async () => {
    clearInterval(reconciler);
    await ledger.stop().catch((error: unknown) => app.log.warn({ err: error }, 'ledger stop failed'));
  });

  await registerSpa(app, options.clientDir ?? DEFAULT_CLIENT_DIR);
  return { app, parts: { tokens, xeroHttp, ledger, sync, principals: principalCache } };
}
