import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/env';
import { createTestApp, type TestApp } from '../test/app';
import { createConnectedUser, createXeroTestApp, type XeroTestApp } from '../test/xero';
import { xeroEndpoint } from './metrics';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('GET /metrics configuration', () => {
  it('is off by default: 404, nothing about the process given away', async () => {
    const t: TestApp = await createTestApp();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).not.toContain('ledgerlink_');
    } finally {
      await t.close();
    }
  });

  it('refuses to start enabled without a token, naming the variable and not echoing it', () => {
    expect(() => loadConfig({ METRICS_ENABLED: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_ENABLED: 'true' })).toThrow(
      /METRICS_TOKEN is required with METRICS_ENABLED=true/,
    );
    let message = '';
    try {
      loadConfig({ METRICS_ENABLED: 'true', METRICS_TOKEN: 'short-secret' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain('METRICS_TOKEN must be at least 16 characters');
    expect(message).not.toContain('short-secret');
  });

  it('names an endpoint without the ids in its path', () => {
    expect(
      xeroEndpoint('GET', '/api.xro/2.0/Invoices/0f2b1c9e-5a3d-4c7e-9f00-123456789abc/Attachments'),
    ).toBe('GET /Invoices/:id/Attachments');
    expect(xeroEndpoint('PUT', '/api.xro/2.0/Payments')).toBe('PUT /Payments');
    expect(xeroEndpoint('GET', '/connections')).toBe('GET /connections');
  });
});

describe('GET /metrics enabled', () => {
  let t: XeroTestApp;
  let tenantId = '';
  let userId = 0;

  beforeAll(async () => {
    t = await createXeroTestApp({ env: { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN } });
    const owner = await createConnectedUser(t, 'metrics.owner', { tenants: ['Demo Shop Ltd'] });
    const shop = owner.orgs[0];
    tenantId = shop?.tenantId ?? '';
    userId = owner.user.id;
    await t.parts.sync.syncInvoices(
      { organizationId: shop?.organizationId ?? 0, tenantId, userId },
      { key: 'sales-open' },
    );
    await owner.call('GET', '/api/user-organizations');
  });
  afterAll(() => t.close());

  const scrape = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

  it('asks for the token: none or a wrong one is a 401 with a Bearer challenge', async () => {
    for (const auth of [undefined, 'Bearer wrong-token-0123456789', `Basic ${TOKEN}`]) {
      const res = await scrape(auth);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
      expect(res.body).not.toContain('ledgerlink_');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers the Prometheus text format with the series an operator needs', async () => {
    // A 429 with Retry-After on one call, so those series have something to say.
    t.sandbox.setFaults({ rateLimitBurst: { count: 1, problem: 'minute', retryAfterSeconds: 1 } });
    await t.parts.xeroHttp.send(userId, tenantId, {
      method: 'GET',
      path: '/api.xro/2.0/Organisation',
    });
    t.sandbox.clearFaults();
    await t.app.inject({ method: 'GET', url: '/healthz' });

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    // Figures of this moment, behind a token: no cache keeps them (issue 28).
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body;
    // HTTP latency by route pattern, never the raw URL.
    expect(body).toMatch(
      /ledgerlink_http_request_duration_seconds_bucket\{[^}]*method="GET",route="\/api\/user-organizations",status_code="200"/,
    );
    expect(body).toMatch(/ledgerlink_http_request_duration_seconds_count\{[^}]*route="\/healthz"/);
    // Xero calls by organisation, endpoint and status; the 429 and the second it asked for.
    expect(body).toContain(
      `ledgerlink_xero_calls_total{tenant="${tenantId}",endpoint="GET /Invoices",status="200"}`,
    );
    expect(body).toContain(
      `ledgerlink_xero_calls_total{tenant="${tenantId}",endpoint="GET /Organisation",status="429"} 1`,
    );
    expect(body).toContain(`ledgerlink_xero_rate_limited_total{tenant="${tenantId}",problem="minute"} 1`);
    expect(body).toContain(`ledgerlink_xero_retry_after_seconds_total{tenant="${tenantId}"} 1`);
    expect(body).toContain(`ledgerlink_xero_gate_queue_length{tenant="${tenantId}"} 0`);
    // Read from the database at scrape time.
    expect(body).toContain('ledgerlink_xero_writes{state="needs_review"} 0');
    expect(body).toMatch(
      new RegExp(`ledgerlink_sync_lag_seconds\\{organization="\\d+",resource="[^"]+"\\} \\d`),
    );
    expect(body).toMatch(/ledgerlink_reconciler_runs_total\{outcome="ok"\} [1-9]/);
    // Process figures (prom-client's default metrics).
    expect(body).toMatch(/ledgerlink_process_resident_memory_bytes \d+/);
    expect(body).toMatch(/ledgerlink_nodejs_eventloop_lag_seconds \d/);
  });
});
