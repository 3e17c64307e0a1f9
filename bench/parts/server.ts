/**
 * Part 2: the server under load on its cached reads, beside a bare Fastify route answering the same bytes,
 * and the server's peak memory with many organisations' invoices cached.
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Sandbox } from '../../src/sandbox/sandbox';
import { addDays, getUkToday } from '../../src/shared/dates';
import type { Invoice } from '../../src/shared/pay-invoices';
import { describeServerCommand, spawnServer, type ChildServer } from '../lib/child';
import {
  ApiClient,
  connectXero,
  enableAllFeatures,
  makeTempDir,
  openBenchDatabase,
  RouteMissingError,
  sandboxOrg,
  setActiveOrganization,
  signIn,
  startBenchApp,
  startBenchSandbox,
} from '../lib/harness';
import type { BenchOptions } from '../lib/options';
import type { PostgresServer } from '../lib/postgres';
import { summarize, type Spread } from '../lib/stats';
import { insertCachedOrganization, insertOutstandingInvoices, markSalesOpenSynced } from '../lib/synthetic';

export interface LoadFigures {
  rps: Spread | null;
  p99: Spread | null;
}

export interface TargetResult {
  label: string;
  bytes: number;
  app: LoadFigures;
  bare: LoadFigures;
  ratio: Spread | null;
  /** The same app on PostgreSQL, when a server could be started. */
  pg: (LoadFigures & { ratio: Spread | null }) | null;
}

export interface MemoryResult {
  /** Idle RSS of the app processes of the load test, just after start: PGlite inside, and on PostgreSQL. */
  idleLoadMb: { pglite: number | null; postgres: number | null };
  orgs: number;
  invoicesPerOrg: number;
  database: string;
  /** How the server process ran (its Node flags, bundled or through tsx). */
  serverCommand?: string;
  seedSeconds: number;
  loadSeconds: number;
  idleMb: Spread | null;
  peakMb: Spread | null;
  requests: Spread | null;
  note: string;
}

export interface ServerResult {
  connections: number;
  durationSec: number;
  runs: number;
  database: string;
  postgres: string | null;
  targets: TargetResult[];
  missing: string[];
  xeroCallsDuringLoad: number;
  memory: MemoryResult | null;
}

interface Target {
  label: string;
  path: string;
}

/**
 * autocannon stops sending when its time is up, but the server may still owe answers (a slow target with 10
 * connections leaves a queue): wait until its database answers promptly, so that queue is not charged to
 * the next measurement.
 */
async function waitUntilIdle(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/readyz`).catch(() => null);
    await res?.arrayBuffer();
    if (res?.ok && performance.now() - started < 250) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function load(url: string, cookie: string, options: BenchOptions, drain: boolean) {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSec,
    // As every browser does: large cached answers are kept and sent gzip-compressed (src/server/lib/body-cache.ts).
    headers: { cookie, 'accept-encoding': 'gzip' },
    timeout: 30,
  });
  if (drain) await waitUntilIdle(new URL(url).origin);
  const failures = result.non2xx + result.errors;
  if (failures > 0)
    throw new Error(`${url}: ${failures} failed requests (${JSON.stringify(result.statusCodeStats)})`);
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
}

/** A database with a connected user, both demo organisations synced, and the caches topped up to the target sizes. */
export async function prepareDatabase(sandbox: Sandbox, dir: string, options: BenchOptions, url?: string) {
  const database = await openBenchDatabase(url ? { url } : { dir });
  const running = await startBenchApp({ database, sandboxUrl: sandbox.url, dataDir: dir });
  try {
    const client = new ApiClient(running.url);
    await signIn(client);
    const orgs = await connectXero(client, sandbox);
    await enableAllFeatures(client, orgs);
    const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
    if (!shop || !builders) throw new Error('demo organisations missing');
    await setActiveOrganization(client, shop);
    const [small, large] = options.invoiceSizes;
    for (const [org, size] of [
      [builders, small],
      [shop, large],
    ] as const) {
      const listed = await client.json<Invoice[]>('GET', `/api/xero/invoices?org=${org.organizationId}`);
      if (listed.length < size)
        await insertOutstandingInvoices(
          running.database.db,
          org.organizationId,
          size - listed.length,
          1 + org.organizationId * 1_000_000,
        );
      const after = await client.json<Invoice[]>('GET', `/api/xero/invoices?org=${org.organizationId}`);
      if (after.length !== size)
        throw new Error(`${org.tenantName}: ${after.length} outstanding invoices cached, wanted ${size}`);
    }
    const dailySales =
      sandboxOrg(sandbox, 'Demo Shop Ltd').contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? '';
    const today = getUkToday();
    const targets: Target[] = [
      {
        label: `GET /api/xero/invoices, ${small.toLocaleString('en-GB')} invoices cached`,
        path: `/api/xero/invoices?org=${builders.organizationId}`,
      },
      {
        label: `GET /api/xero/invoices, ${large.toLocaleString('en-GB')} invoices cached`,
        path: `/api/xero/invoices?org=${shop.organizationId}`,
      },
      { label: 'GET /api/xero/connection', path: '/api/xero/connection' },
      {
        label: 'GET /api/xero/sales, a year of weeks (Daily Sales)',
        path: `/api/xero/sales?customerId=${dailySales}&fromDate=${addDays(today, -364)}&toDate=${today}`,
      },
    ];
    return { cookie: client.cookie, targets };
  } finally {
    await running.close();
  }
}

interface Served {
  server: ChildServer;
  cookie: string;
  targets: Target[];
}

/** Prepares a database and starts the app on it in its own process. */
async function serveApp(
  sandbox: Sandbox,
  options: BenchOptions,
  dir: string,
  databaseUrl?: string,
): Promise<Served> {
  const { cookie, targets } = await prepareDatabase(sandbox, dir, options, databaseUrl);
  const server = await spawnServer([
    'app',
    JSON.stringify({ dataDir: dir, sandboxUrl: sandbox.url, ...(databaseUrl ? { databaseUrl } : {}) }),
  ]);
  return { server, cookie, targets };
}

async function measureTargets(
  sandbox: Sandbox,
  options: BenchOptions,
  log: (line: string) => void,
  pg: PostgresServer | null,
) {
  const dir = makeTempDir('server');
  const servers: ChildServer[] = [];
  try {
    log('server: preparing the database (connect, sync, top up the caches)');
    const lite = await serveApp(sandbox, options, dir);
    servers.push(lite.server);
    const idleLoadMb: { pglite: number | null; postgres: number | null } = {
      pglite: lite.server.memoryMb()?.rss ?? null,
      postgres: null,
    };
    let onPg: Served | null = null;
    if (pg) {
      const name = `ledgerlink_bench_load_${process.pid}`;
      pg.createDatabase(name);
      log('server: preparing the same data on PostgreSQL');
      onPg = await serveApp(sandbox, options, makeTempDir('server-pg'), pg.databaseUrl(name));
      servers.push(onPg.server);
      idleLoadMb.postgres = onPg.server.memoryMb()?.rss ?? null;
    }
    const client = new ApiClient(lite.server.url, lite.cookie);
    const live: Array<Target & { body: Buffer; contentType: string; pgPath: string | null }> = [];
    const missing: string[] = [];
    for (const [i, target] of lite.targets.entries()) {
      try {
        const res = await client.call('GET', target.path);
        const pgPath = onPg?.targets[i]?.path ?? null;
        if (onPg && pgPath) await new ApiClient(onPg.server.url, onPg.cookie).call('GET', pgPath);
        live.push({
          ...target,
          body: Buffer.from(res.text),
          contentType: res.headers.get('content-type') ?? 'application/json',
          pgPath,
        });
      } catch (error) {
        if (error instanceof RouteMissingError) missing.push(target.label);
        else throw error;
      }
    }
    const bodiesFile = path.join(dir, 'bodies.json');
    fs.writeFileSync(
      bodiesFile,
      JSON.stringify(live.map((t) => ({ contentType: t.contentType, base64: t.body.toString('base64') }))),
    );
    const bare = await spawnServer(['bare', bodiesFile]);
    servers.push(bare);
    sandbox.clearLedger();
    const samples = live.map(() => ({
      appRps: [] as number[],
      appP99: [] as number[],
      pgRps: [] as number[],
      pgP99: [] as number[],
      bareRps: [] as number[],
      bareP99: [] as number[],
    }));
    for (let run = 1; run <= options.loadRuns; run++) {
      for (const [i, target] of live.entries()) {
        log(`server: ${target.label} (run ${run} of ${options.loadRuns})`);
        const s = samples[i];
        if (!s) continue;
        const ours = await load(`${lite.server.url}${target.path}`, lite.cookie, options, true);
        s.appRps.push(ours.rps);
        s.appP99.push(ours.p99);
        if (onPg && target.pgPath) {
          const onPostgres = await load(`${onPg.server.url}${target.pgPath}`, onPg.cookie, options, true);
          s.pgRps.push(onPostgres.rps);
          s.pgP99.push(onPostgres.p99);
        }
        const plain = await load(`${bare.url}/bare/${i}`, lite.cookie, options, false);
        s.bareRps.push(plain.rps);
        s.bareP99.push(plain.p99);
      }
    }
    // Each app measurement against the bare one of the same round (they ran back to back).
    const ratios = (app: number[], bareRps: number[]) =>
      app.map((v, k) => (bareRps[k] ? v / (bareRps[k] ?? 1) : 0));
    const results: TargetResult[] = live.map((t, i) => {
      const s = samples[i] ?? { appRps: [], appP99: [], pgRps: [], pgP99: [], bareRps: [], bareP99: [] };
      return {
        label: t.label,
        bytes: t.body.length,
        app: { rps: summarize(s.appRps), p99: summarize(s.appP99) },
        bare: { rps: summarize(s.bareRps), p99: summarize(s.bareP99) },
        ratio: summarize(ratios(s.appRps, s.bareRps)),
        pg:
          s.pgRps.length > 0
            ? {
                rps: summarize(s.pgRps),
                p99: summarize(s.pgP99),
                ratio: summarize(ratios(s.pgRps, s.bareRps)),
              }
            : null,
      };
    });
    return { targets: results, missing, xeroCalls: sandbox.ledger().totals.all, idleLoadMb };
  } finally {
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak RSS of the server process with `memOrgs` × `memInvoices` outstanding invoices cached, each organisation's list requested under load. */
async function measureMemory(
  sandbox: Sandbox,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<Omit<MemoryResult, 'idleLoadMb'>> {
  const dir = makeTempDir('memory');
  try {
    log(`server: writing ${options.memOrgs} × ${options.memInvoices} cached invoices`);
    const seedStarted = performance.now();
    const database = await openBenchDatabase({ dir });
    const running = await startBenchApp({ database, sandboxUrl: sandbox.url, dataDir: dir });
    let cookie = '';
    const orgIds: number[] = [];
    try {
      const client = new ApiClient(running.url);
      await signIn(client);
      cookie = client.cookie;
      const user = await client.json<{ id: number }>('GET', '/api/user');
      for (let i = 1; i <= options.memOrgs; i++) {
        const id = await insertCachedOrganization(running.database.db, user.id, `Bench Organisation ${i}`);
        await insertOutstandingInvoices(running.database.db, id, options.memInvoices, i * 1_000_000);
        await markSalesOpenSynced(running.database.db, id);
        orgIds.push(id);
      }
    } finally {
      await running.close();
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const idle: number[] = [];
    const peak: number[] = [];
    const requests: number[] = [];
    const loadSeconds = options.durationSec * 2;
    for (let run = 1; run <= options.memRuns; run++) {
      log(`server: memory run ${run} of ${options.memRuns}`);
      const app = await spawnServer(['app', JSON.stringify({ dataDir: dir, sandboxUrl: sandbox.url })]);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const before = app.memoryMb();
        const result = await autocannon({
          url: app.url,
          connections: options.connections,
          duration: loadSeconds,
          headers: { cookie, 'accept-encoding': 'gzip' },
          timeout: 60,
          requests: orgIds.map((id) => ({ path: `/api/xero/invoices?org=${id}` })),
        });
        if (result.non2xx + result.errors > 0)
          throw new Error(
            `memory load: ${result.non2xx + result.errors} failed requests (${JSON.stringify(result.statusCodeStats)})`,
          );
        const after = app.memoryMb();
        if (before) idle.push(before.rss);
        if (after) peak.push(after.peak);
        requests.push(result.requests.total);
      } finally {
        await app.stop();
      }
    }
    return {
      orgs: options.memOrgs,
      invoicesPerOrg: options.memInvoices,
      database: 'PGlite on disk inside the server process',
      serverCommand: describeServerCommand(),
      seedSeconds,
      loadSeconds,
      idleMb: summarize(idle),
      peakMb: summarize(peak),
      requests: summarize(requests),
      note: peak.length === 0 ? 'RSS is read from /proc, which this system does not have.' : '',
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runServer(
  options: BenchOptions,
  log: (line: string) => void,
  pg: PostgresServer | null,
): Promise<ServerResult> {
  const sandbox = await startBenchSandbox({ scale: 1 });
  try {
    const measured = await measureTargets(sandbox, options, log, pg);
    const memory: MemoryResult = {
      ...(await measureMemory(sandbox, options, log)),
      idleLoadMb: measured.idleLoadMb,
    };
    return {
      connections: options.connections,
      durationSec: options.durationSec,
      runs: options.loadRuns,
      database: 'PGlite on disk (the default deployment)',
      postgres: pg ? pg.version : null,
      targets: measured.targets,
      missing: measured.missing,
      xeroCallsDuringLoad: measured.xeroCalls,
      memory,
    };
  } finally {
    await sandbox.close();
  }
}
