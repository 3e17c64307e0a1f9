/**
 * The pieces every benchmark part needs: the built-in Xero sandbox on an ephemeral loopback port, the real
 * app (`buildApp`) on another, a database, and an HTTP client that signs in and connects Xero the way a
 * browser does (login, /api/xero/connect, the sandbox's authorize endpoint with auto-consent, our callback).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/sandbox';
import type { OrgRec } from '../../src/sandbox/state';
import { assembleApp, type AppParts } from '../../src/server/app';
import type { XeroEndpoints } from '../../src/server/xero/endpoints';
import { loadConfig, type ServerConfig } from '../../src/server/config/env';
import { migrateDatabase, openDatabase, type Database } from '../../src/server/db/client';
import { createUsersRepository } from '../../src/server/modules/auth/auth.repository';
import { ensureBootstrapAdmin } from '../../src/server/modules/auth/auth.service';
import type { TenantGateOptions } from '../../src/server/xero/xero-http/tenant-gate';

/** The address users (or the load balancer) reach the app on; the instances listen on loopback ports. */
export const BENCH_ORIGIN = 'http://ledgerlink.bench.test';
export const BENCH_CLIENT = { clientId: 'ledgerlink-bench', clientSecret: 'ledgerlink-bench-secret' };
export const BENCH_ADMIN = { username: 'bench-admin', password: 'Bench-Ledger-Pass-2026' };
/** One key for every instance: instances sharing a database must share it (README, scale-out). */
export const BENCH_TOKEN_KEY = Buffer.alloc(32, 7).toString('base64');
/** The sandbox user who owns both demo organisations. */
export const OWNER_EMAIL = 'owner@demoshop.example';

/**
 * Xero's per-minute limit (60 per organisation) would stretch "a typical day" of ~100 calls over two
 * minutes of waiting. Call counts do not depend on pacing, so the benchmark lifts the minute limits on
 * both sides (the sandbox and the app's per-tenant gate) and keeps Xero's 5 calls in flight.
 */
export const UNPACED_GATE: TenantGateOptions = { maxInFlight: 5, perMinute: 1_000_000, windowMs: 60_500 };
const UNPACED_SANDBOX: Partial<SandboxOptions> = {
  minuteLimit: 1_000_000,
  appMinuteLimit: 1_000_000,
  dailyLimit: 1_000_000,
};

export const TMP_ROOT = path.resolve('bench/.tmp');

/** A fresh folder under bench/.tmp (git-ignored), removed by the caller. */
export function makeTempDir(prefix: string): string {
  fs.mkdirSync(TMP_ROOT, { recursive: true });
  return fs.mkdtempSync(path.join(TMP_ROOT, `${prefix}-`));
}

export async function startBenchSandbox(options: {
  scale: number;
  origins?: string[];
  paced?: boolean;
  /** Client organisations for the owner beside the two demo ones (SANDBOX_CLIENTS, issue 47). */
  practiceClients?: number;
}): Promise<Sandbox> {
  const origins = options.origins ?? [BENCH_ORIGIN];
  return startSandbox({
    port: 0,
    dataDir: null,
    seed: 1,
    scale: options.scale,
    ...(options.practiceClients ? { practiceClients: options.practiceClients } : {}),
    clients: [
      {
        ...BENCH_CLIENT,
        redirectUris: origins.flatMap((o) => [`${o}/api/xero/callback`, `${o}/api/auth/xero/callback`]),
      },
    ],
    ...(options.paced ? {} : UNPACED_SANDBOX),
  });
}

export function sandboxEndpoints(sandboxUrl: string, config: ServerConfig): XeroEndpoints {
  return {
    issuer: sandboxUrl,
    apiUrl: sandboxUrl,
    ...BENCH_CLIENT,
    scopes: config.xero.scopes,
    allowInsecureRequests: true,
  };
}

export function benchConfig(dataDir: string, extra: Record<string, string> = {}): ServerConfig {
  return loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    APP_URL: BENCH_ORIGIN,
    TOKEN_ENCRYPTION_KEY: BENCH_TOKEN_KEY,
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    ...extra,
  });
}

/** A migrated database: PostgreSQL at `url`, PGlite under `dir`, or PGlite in memory. */
export async function openBenchDatabase(where: { url?: string; dir?: string | null }): Promise<Database> {
  const database = await openDatabase(
    where.url ? { databaseUrl: where.url } : { dataDir: where.dir ?? null },
  );
  await migrateDatabase(database);
  return database;
}

export interface RunningApp {
  app: FastifyInstance;
  /** The app's internals a bench drives directly (a sync, a raw Xero call). */
  parts: AppParts;
  url: string;
  config: ServerConfig;
  database: Database;
  close(): Promise<void>;
}

/**
 * The real app on an ephemeral loopback port, built the way server.ts builds it (bootstrap administrator
 * from ADMIN_USERNAME/ADMIN_PASSWORD), pointed at the sandbox.
 */
export async function startBenchApp(options: {
  database: Database;
  sandboxUrl: string;
  dataDir: string;
  clientDir?: string;
  paced?: boolean;
  closeDatabase?: boolean;
  /** More configuration variables (e.g. XERO_WEBHOOK_KEY), as the environment would give them. */
  env?: Record<string, string>;
}): Promise<RunningApp> {
  const config = benchConfig(options.dataDir, options.env);
  await ensureBootstrapAdmin({
    users: createUsersRepository(options.database.db),
    admin: config.admin,
    demo: false,
    dataDir: options.dataDir,
    print: () => undefined,
  });
  const { app, parts } = await assembleApp({
    config,
    database: options.database,
    xero: sandboxEndpoints(options.sandboxUrl, config),
    logger: false,
    clientDir: options.clientDir ?? path.join(options.dataDir, 'no-client'),
    ...(options.paced ? {} : { xeroHttp: { gate: UNPACED_GATE } }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    parts,
    url: `http://127.0.0.1:${port}`,
    config,
    database: options.database,
    async close() {
      await app.close();
      if (options.closeDatabase !== false) await options.database.close();
    },
  };
}

export interface ApiResponse {
  status: number;
  text: string;
  ms: number;
  headers: Headers;
  json<T = unknown>(): T;
}

/** The app answered 404 for a route it does not have (as opposed to a 404 about a missing record). */
export class RouteMissingError extends Error {
  constructor(readonly route: string) {
    super(`endpoint not built yet: ${route}`);
    this.name = 'RouteMissingError';
  }
}

export class HttpError extends Error {
  constructor(
    readonly route: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${route} answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'HttpError';
  }
}

/** A browser-like API client: keeps the session cookie and sends the app's origin (the same-origin rule). */
export class ApiClient {
  constructor(
    public base: string,
    public cookie = '',
    readonly origin = BENCH_ORIGIN,
  ) {}

  /** The same signed-in user against another instance (scale-out). */
  on(base: string): ApiClient {
    return new ApiClient(base, this.cookie, this.origin);
  }

  async send(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const started = performance.now();
    const res = await fetch(`${this.base}${url}`, {
      method,
      redirect: 'manual',
      headers: {
        origin: this.origin,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    // The session, and the OAuth flow's browser binding (a callback is only honoured with it), as a browser keeps them.
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0] ?? '';
      const name = pair.split('=')[0];
      if (name !== 'll_session' && name !== 'll_oauth') continue;
      const others = this.cookie.split('; ').filter((c) => c && !c.startsWith(`${name}=`));
      this.cookie = [...others, ...(pair.endsWith('=') ? [] : [pair])].join('; ');
    }
    return { status: res.status, text, ms, headers: res.headers, json: <T>() => JSON.parse(text) as T };
  }

  /**
   * Sends and insists on a 2xx/3xx answer. A JSON 404 "Not found: METHOD /path" means the route does not
   * exist yet (features are still being built): that is a RouteMissingError, reported as such.
   */
  async call(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const res = await this.send(method, url, body, headers);
    const route = `${method} ${url.split('?')[0]}`;
    if (res.status === 404 && /"code":"NOT_FOUND"/.test(res.text) && /Not found: /.test(res.text))
      throw new RouteMissingError(route);
    if (res.status >= 400) throw new HttpError(route, res.status, res.text);
    return res;
  }

  async json<T>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    return (await this.call(method, url, body, headers)).json<T>();
  }
}

export interface UserOrganization {
  organizationId: number;
  tenantId: string;
  tenantName: string;
}

export async function signIn(client: ApiClient, credentials = BENCH_ADMIN): Promise<void> {
  await client.call('POST', '/api/login', credentials);
  if (!client.cookie) throw new Error('login gave no session cookie');
}

/**
 * Connects Xero for the signed-in user as the browser does, with the sandbox approving the consent at once
 * as `email` for every organisation (or those named in `tenants`). `callbackClient` may be another instance (scale-out: the OAuth state
 * must be shared). Returns the user's organisations.
 */
export async function connectXero(
  client: ApiClient,
  sandbox: Pick<Sandbox, 'setAutoConsent'>,
  options: { email?: string; callbackClient?: ApiClient; tenants?: 'all' | string[] } = {},
): Promise<UserOrganization[]> {
  const { url } = await client.json<{ url: string }>('GET', '/api/xero/connect');
  sandbox.setAutoConsent({ email: options.email ?? OWNER_EMAIL, tenants: options.tenants ?? 'all' });
  let location: string | null;
  try {
    const authorize = await fetch(url, { redirect: 'manual' });
    location = authorize.headers.get('location');
    if (!location)
      throw new Error(`sandbox did not redirect (${authorize.status}): ${await authorize.text()}`);
  } finally {
    sandbox.setAutoConsent(null);
  }
  const callback = new URL(location);
  const via = options.callbackClient ?? client;
  const landed = await via.send('GET', `${callback.pathname}${callback.search}`, undefined, {
    cookie: client.cookie,
  });
  // The binding is used once: the browser that finished the flow holds its session cookie alone again.
  client.cookie = client.cookie
    .split('; ')
    .filter((c) => !c.startsWith('ll_oauth='))
    .join('; ');
  const target = landed.headers.get('location') ?? '';
  if (!target.startsWith('/organizations?connected=true'))
    throw new Error(`connect landed on ${target || landed.status}: ${landed.text.slice(0, 200)}`);
  return client.json<UserOrganization[]>('GET', '/api/user-organizations');
}

/** Switches the four features on for every organisation, through the admin API (the user is the administrator). */
export async function enableAllFeatures(client: ApiClient, orgs: UserOrganization[]): Promise<void> {
  for (const org of orgs) {
    for (const flag of [
      'featurePayInvoices',
      'featureAddInvoices',
      'featureCisBills',
      'featureStockJournal',
    ]) {
      await client.call('PATCH', `/api/admin/organizations/${org.organizationId}/features`, { [flag]: true });
    }
  }
}

export async function setActiveOrganization(client: ApiClient, org: UserOrganization): Promise<void> {
  await client.call('POST', '/api/xero/set-active-organization', { organizationId: org.organizationId });
}

/**
 * The administrator signed in, Xero connected, every feature on and Demo Shop Ltd the active organisation: where
 * the page benchmarks start.
 */
export async function openDemoShop(
  client: ApiClient,
  sandbox: Pick<Sandbox, 'setAutoConsent'>,
): Promise<{ orgs: UserOrganization[]; shop: UserOrganization }> {
  await signIn(client);
  const orgs = await connectXero(client, sandbox);
  await enableAllFeatures(client, orgs);
  const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
  if (!shop) throw new Error('Demo Shop Ltd was not connected');
  await setActiveOrganization(client, shop);
  return { orgs, shop };
}

/** The seeded organisation called `name` in the sandbox's live state. */
export function sandboxOrg(sandbox: Sandbox, name: string): OrgRec {
  const org = sandbox.state.orgs.find((o) => o.Name === name);
  if (!org) throw new Error(`sandbox has no organisation "${name}"`);
  return org;
}

/** Accounting API calls the sandbox counted for one organisation (what Xero's per-organisation limits count). */
export function countTenantCalls(
  sandbox: Sandbox,
  tenantId: string,
): {
  total: number;
  bytes: number;
  writeBytes: number;
  byEndpoint: Record<string, number>;
  bytesByEndpoint: Record<string, number>;
} {
  const snapshot = sandbox.ledger();
  const byEndpoint: Record<string, number> = {};
  const bytesByEndpoint: Record<string, number> = {};
  let total = 0;
  let bytes = 0;
  /** Xero's answers to writes: it answers each with the whole document, whatever the client asks. */
  let writeBytes = 0;
  for (const row of snapshot.calls) {
    if (row.tenantId !== tenantId) continue;
    const key = `${row.method} ${row.endpoint.replace('/api.xro/2.0', '')}`;
    byEndpoint[key] = (byEndpoint[key] ?? 0) + row.count;
    bytesByEndpoint[key] = (bytesByEndpoint[key] ?? 0) + row.bytes;
    total += row.count;
    bytes += row.bytes;
    if (row.method !== 'GET') writeBytes += row.bytes;
  }
  return { total, bytes, writeBytes, byEndpoint, bytesByEndpoint };
}
