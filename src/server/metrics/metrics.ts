/**
 * GET /metrics in Prometheus' text format (prom-client), for operators: off unless METRICS_ENABLED, and then
 * only with `Authorization: Bearer <METRICS_TOKEN>` (docs/operations.md "Metrics" lists the series and the alerts worth
 * setting). One registry per app instance, so several apps in one process (tests) never mix their series.
 * Figures kept in the database (write-ledger states, sync lag) are read at scrape time, read-only.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { count, isNotNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client';
import { errorAnswer } from '../lib/app-error';
import { routeOf } from '../plugins/route-path';
import { XERO_WRITE_STATES, xeroSyncState, xeroWrites } from '../db/schema/index';
import type { XeroCallEvent } from '../xero/xero-http/http';

export interface MetricsOptions {
  enabled: boolean;
  /** Required by the configuration whenever metrics are enabled. */
  token: string | undefined;
  db: Db;
  /** Calls of this instance waiting at each organisation's Xero gate. */
  gateQueues: () => Iterable<[tenantId: string, pending: number]>;
}

/** Xero paths name objects by id: keep the endpoint, drop the ids, so each endpoint is one series. */
export function xeroEndpoint(method: string, path: string): string {
  const cleaned = path
    .replace(/^\/api\.xro\/2\.0/, '')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ':id')
    .replace(/\/\d+(?=\/|$)/g, '/:n');
  return `${method} ${cleaned || '/'}`;
}

const sha = (text: string) => createHash('sha256').update(text).digest();

export interface AppMetrics {
  registry: Registry;
  /** Feed of the Xero client (XeroHttpOptions.onCall). */
  onXeroCall(event: XeroCallEvent): void;
  /** The size of an answer body read from Xero (egress, which Xero bills by). */
  onXeroReceived(event: { tenantId: string; method: string; path: string; bytes: number }): void;
  /** One reconciler pass ended. */
  reconcilerRan(outcome: 'ok' | 'error'): void;
  /** A webhook event was applied this many seconds after its eventDateUtc. */
  webhookApplied(lagSeconds: number): void;
  /** A standard refresh asked Xero instead of trusting the webhook-fed cache, and why. */
  webhookFallback(reason: string): void;
}

export function registerMetrics(app: FastifyInstance, options: MetricsOptions): AppMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.enabled) collectDefaultMetrics({ register: registry, prefix: 'ledgerlink_' });

  const httpDuration = new Histogram({
    name: 'ledgerlink_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern (not the raw URL), method and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const xeroCalls = new Counter({
    name: 'ledgerlink_xero_calls_total',
    help: 'Calls to the Xero API, by organisation (Xero tenant id), endpoint and HTTP status (0: no answer).',
    labelNames: ['tenant', 'endpoint', 'status'] as const,
    registers,
  });
  const xeroDuration = new Histogram({
    name: 'ledgerlink_xero_call_duration_seconds',
    help: 'Time from sending a call to Xero to its answer, by endpoint.',
    labelNames: ['endpoint'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers,
  });
  const xeroBytes = new Counter({
    name: 'ledgerlink_xero_received_bytes_total',
    help: "Bytes of Xero's answer bodies read, by organisation (Xero tenant id) and endpoint: the egress Xero bills apps by.",
    labelNames: ['tenant', 'endpoint'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'ledgerlink_xero_rate_limited_total',
    help: "429 answers from Xero, by organisation and Xero's X-Rate-Limit-Problem (minute, day, concurrent, appminute).",
    labelNames: ['tenant', 'problem'] as const,
    registers,
  });
  const retryAfter = new Counter({
    name: 'ledgerlink_xero_retry_after_seconds_total',
    help: 'Seconds of Retry-After Xero asked for on 429 answers, by organisation (the gate pauses that long).',
    labelNames: ['tenant'] as const,
    registers,
  });
  const reconcilerRuns = new Counter({
    name: 'ledgerlink_reconciler_runs_total',
    help: 'Passes of the write reconciler (settles writes whose answer was lost), by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookLag = new Histogram({
    name: 'ledgerlink_webhook_lag_seconds',
    help: "Seconds from a Xero webhook event's eventDateUtc to the moment Ledgerlink applied it (cache updated, screens told).",
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600],
    registers,
  });
  const webhookFallbacks = new Counter({
    name: 'ledgerlink_webhook_fallbacks_total',
    help: 'Standard refreshes that asked Xero (If-Modified-Since) instead of the webhook-fed cache, by reason (not-started, gap, silent, catch-up); without a webhook key every refresh asks Xero and none is counted.',
    labelNames: ['reason'] as const,
    registers,
  });
  new Gauge({
    name: 'ledgerlink_xero_gate_queue_length',
    help: "Calls of this instance waiting for a slot at an organisation's Xero gate.",
    labelNames: ['tenant'] as const,
    registers,
    collect() {
      this.reset();
      for (const [tenant, pending] of options.gateQueues()) this.set({ tenant }, pending);
    },
  });
  new Gauge({
    name: 'ledgerlink_xero_writes',
    help: 'Rows of the local write ledger by state (pending, sent, confirmed, failed, unknown, needs_review), all instances.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const rows = await options.db
        .select({ state: xeroWrites.state, n: count() })
        .from(xeroWrites)
        .groupBy(xeroWrites.state);
      this.reset();
      for (const state of XERO_WRITE_STATES) this.set({ state }, 0);
      for (const row of rows) this.set({ state: row.state }, row.n);
    },
  });
  new Gauge({
    name: 'ledgerlink_sync_lag_seconds',
    help: 'Seconds since each cached Xero resource of an organisation was last synced.',
    labelNames: ['organization', 'resource'] as const,
    registers,
    async collect() {
      const rows = await options.db
        .select({
          organizationId: xeroSyncState.organizationId,
          resource: xeroSyncState.resource,
          lag: sql<string>`extract(epoch from (now() - ${xeroSyncState.lastSyncAt}))`,
        })
        .from(xeroSyncState)
        .where(isNotNull(xeroSyncState.lastSyncAt));
      this.reset();
      for (const row of rows)
        this.set({ organization: String(row.organizationId), resource: row.resource }, Number(row.lag));
    },
  });

  if (options.enabled) {
    app.addHook('onResponse', async (request, reply) => {
      if (routeOf(request).url === '/metrics') return;
      httpDuration.observe(
        {
          method: request.method,
          route: routeOf(request).url ?? '(no route)',
          status_code: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
    });
  }

  const expected = options.token ? sha(options.token) : undefined;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // The figures are of this moment and behind a token: no cache may keep them or answer them to another
    // scraper (issue 28).
    void reply.header('cache-control', 'no-store');
    if (!options.enabled || !expected) return reply.status(404).send(errorAnswer('NOT_FOUND', 'Not found'));
    const header = request.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!given || !timingSafeEqual(sha(given), expected)) {
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .send(errorAnswer('UNAUTHENTICATED', 'A valid metrics token is required'));
    }
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });

  return {
    registry,
    onXeroReceived(event) {
      if (!options.enabled) return;
      xeroBytes.inc(
        { tenant: event.tenantId, endpoint: xeroEndpoint(event.method, event.path) },
        event.bytes,
      );
    },
    onXeroCall(event) {
      if (!options.enabled) return;
      const endpoint = xeroEndpoint(event.method, event.path);
      const tenant = event.tenantId ?? '';
      xeroCalls.inc({ tenant, endpoint, status: String(event.status) });
      xeroDuration.observe({ endpoint }, event.durationMs / 1000);
      if (event.status === 429) {
        rateLimited.inc({ tenant, problem: event.rateLimitProblem || 'unknown' });
        if (event.retryAfterMs) retryAfter.inc({ tenant }, event.retryAfterMs / 1000);
      }
    },
    reconcilerRan(outcome) {
      if (options.enabled) reconcilerRuns.inc({ outcome });
    },
    webhookApplied(lagSeconds) {
      if (options.enabled) webhookLag.observe(lagSeconds);
    },
    webhookFallback(reason) {
      if (options.enabled) webhookFallbacks.inc({ reason });
    },
  };
}
