/**
 * Xero's side of the shared parts (issue 46; docs/code-style.md §4): OAuth, the tokens, the one HTTP client and
 * its gate, the port built on it, the metrics it feeds, webhooks' health and the sync of the cache. Built once by
 * wiring/shared-parts.ts; pointed at Xero or the sandbox by the endpoints alone.
 */
import type { FastifyInstance } from 'fastify';
import type { WriteLedger } from '../ledger/index';
import type { LiveEvents } from '../lib/live-events';
import { registerMetrics, type AppMetrics } from '../metrics/metrics';
import type { EgressMeter } from '../modules/organizations/egress-meter';
import type { OrganizationsRepository } from '../modules/organizations/organizations.repository';
import type { SecretBox } from '../lib/crypto';
import { createWriteCatchUp } from '../xero/sync/settled-write-catch-up';
import { createXeroSync, type SyncContext } from '../xero/sync/sync.service';
import { createWebhookHealth } from '../xero/webhooks/health';
import { createWebhookProcessor } from '../xero/webhooks/processor';
import { createXeroPort } from '../xero/xero-http/adapter';
import { createXeroHttp } from '../xero/xero-http/http';
import { createXeroOAuth } from '../xero/xero-http/oauth';
import { createSharedGates } from '../xero/xero-http/shared-gate';
import { createTokenStore, type TokenLossReason } from '../xero/xero-http/token-store';
import type { BuildAppOptions } from './build-options';

export function createXeroParts(
  app: FastifyInstance,
  options: BuildAppOptions,
  deps: {
    box: SecretBox;
    orgs: OrganizationsRepository;
    egress: EgressMeter;
    ledger: WriteLedger;
    live: LiveEvents;
    /** A connection found lost (expired or revoked, issue 45 item 2), said once by the connection service. */
    onLost: (userId: number, reason: TokenLossReason) => void;
  },
) {
  const { config, database } = options;
  const db = database.db;
  const log = app.log;
  const { orgs, egress, ledger, live } = deps;
  // Xero: the one client (docs/code-style.md §4), pointed at Xero or the sandbox by the endpoints alone.
  const oauth = createXeroOAuth(options.xero);
  const tokens = createTokenStore({ db, box: deps.box, oauth, onLost: deps.onLost });
  const lastRateWrite = new Map<string, number>();
  // On PostgreSQL the instances keep Xero's limits together (shared-gate.ts); PGlite has one instance.
  const sharedGates =
    database.kind === 'postgres' && database.pool && !options.xeroHttp?.createGate
      ? createSharedGates(database.pool, { ...options.xeroHttp?.gate, ...options.xeroGate }, log)
      : undefined;
  const metrics: AppMetrics = registerMetrics(app, {
    ...config.metrics,
    db,
    gateQueues: () => xeroHttp.gateQueues(),
  });
  const webhookKey = options.xero.webhookKey ?? config.xero.webhookKey;
  const webhookHealth = createWebhookHealth({
    db,
    keyConfigured: Boolean(webhookKey),
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
  // Live updates from Xero's webhooks, or the fallback to If-Modified-Since (docs/decisions/018-webhooks.md).
  const sync = createXeroSync({
    db,
    http: xeroHttp,
    // Without a key every refresh asks Xero, as before webhooks: nothing to decide, nothing to count.
    ...(webhookKey
      ? {
          mayUseCache: (ctx: SyncContext, lastSyncAt: Date | null, check?: 'refresh' | 'payment') =>
            webhookHealth.mayUseCache(ctx, lastSyncAt, check),
        }
      : {}),
    onChangesRead: (ctx, changedAt) =>
      void webhookHealth.expectDelivery(ctx.tenantId, changedAt).catch(() => undefined),
    onBackgroundError: (ctx, error) =>
      log.warn(
        { err: error, organizationId: ctx.organizationId },
        'reading invoices from Xero stopped after the first page; the next request carries on',
      ),
  });
  // What the ledger settled without its request (a look-up after a crash, the reconciler), read into the cache and
  // told to the open screens, with or without webhooks (issue 44).
  const catchUp = createWriteCatchUp({ db, ledger, sync, live, log });
  // Xero's webhooks in (signed deliveries, applied after the answer), live screens out (docs/decisions/018-webhooks.md).
  const webhooks = createWebhookProcessor({
    db,
    sync,
    live,
    log,
    onApplied: (lag) => metrics.webhookApplied(lag),
  });
  return {
    oauth,
    tokens,
    sharedGates,
    metrics,
    webhookKey,
    webhookHealth,
    xeroHttp,
    xero,
    sync,
    catchUp,
    webhooks,
  };
}
