/**
 * Part 6 (issue 47): a practice. One user keeps `practiceOrgs` client organisations of `200 × practiceScale`
 * sales invoices awaiting payment each (100 × 5,000 at the goal sizes), on one instance run as the start command
 * runs it, on PGlite and on PostgreSQL, side by side:
 *
 * - a cold first open of the Today page: every organisation read once in the background, against a sandbox with
 *   Xero's own limits (60 calls a minute and 5 at once per organisation, 10,000 a minute for the app) and Xero's
 *   latency; the calls the sandbox counted over a limit (goal 0), the time to complete, and the time to the first
 *   row with figures (goal ≤ 2 s);
 * - the warm page under 10 connections: its latency (goal ≤ 50 ms) and its rate against a bare route answering the
 *   same bytes (goal ≥ 0.5), and the Xero calls it made (goal 0);
 * - the server process's peak memory over both (goal ≤ 400 MB).
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { eq, inArray } from 'drizzle-orm';
import type { Sandbox } from '../../src/sandbox/sandbox';
import type { TodayRow } from '../../src/shared/practice';
import { organizations } from '../../src/server/db/schema/index';
import { describeServerCommand, spawnServer, type ChildServer } from '../lib/child';
import {
  ApiClient,
  connectXero,
  makeTempDir,
  openBenchDatabase,
  signIn,
  startBenchApp,
  startBenchSandbox,
} from '../lib/harness';
import type { BenchOptions } from '../lib/options';
import { pinApart, processCpuMs } from '../lib/pin';
import type { PostgresServer } from '../lib/postgres';
import { summarize, type Spread } from '../lib/stats';

export interface PracticeRun {
  database: string;
  organizations: number;
  /** Sales invoices awaiting payment, per organisation, as the rows counted them once read. */
  invoicesPerOrg: Spread | null;
  cold: {
    /** From the first GET /api/practice/today to the first answer with a row holding figures. */
    firstRowMs: number | null;
    /** To the first row read whole. */
    firstReadyMs: number | null;
    /** To every row read whole. */
    completeMs: number | null;
    calls: number;
    violations: { minute: number; concurrent: number; day: number; appMinute: number };
    failedRows: number;
  };
  warm: {
    bytes: number;
    p50: Spread | null;
    p99: Spread | null;
    rps: Spread | null;
    bareRps: Spread | null;
    ratio: Spread | null;
    /** The server process's CPU per request (every thread, µs), the app's and the bare route's. */
    cpuUs: Spread | null;
    bareCpuUs: Spread | null;
    /** The bare route's CPU per request ÷ the app's: the rate ratio were each server alone on a CPU. */
    cpuRatio: Spread | null;
    /** Whether the load generator and the server ran on CPUs of their own (BENCH_PIN=1, bench/lib/pin.ts). */
    pinned: boolean;
    xeroCalls: number;
  };
  idleMb: number | null;
  peakMb: number | null;
}

export interface PracticeResult {
  organizations: number;
  scale: number;
  latencyMs: number;
  connections: number;
  durationSec: number;
  runs: number;
  serverCommand: string;
  runsByDatabase: PracticeRun[];
  postgresMissing: string | null;
}

const COLD_TIMEOUT_MS = 20 * 60_000;
const POLL_MS = 100;

/** Connects the clients (not the two demo organisations), switches every feature on and chooses each client's defaults. */
async function prepare(
  sandbox: Sandbox,
  dir: string,
  clientNames: string[],
  url?: string,
): Promise<{ cookie: string }> {
  const database = await openBenchDatabase(url ? { url } : { dir });
  const running = await startBenchApp({ database, sandboxUrl: sandbox.url, dataDir: dir });
  try {
    const client = new ApiClient(running.url);
    await signIn(client);
    const orgs = await connectXero(client, sandbox, { tenants: clientNames });
    if (orgs.length !== clientNames.length)
      throw new Error(`${orgs.length} organisations connected, wanted ${clientNames.length}`);
    const db = running.database.db;
    await db
      .update(organizations)
      .set({
        featurePayInvoices: true,
        featureAddInvoices: true,
        featureCisBills: true,
        featureStockJournal: true,
      })
      .where(
        inArray(
          organizations.id,
          orgs.map((o) => o.organizationId),
        ),
      );
    // What a person chooses in Settings: a shop's stock-journal customer, a contractor's CIS group.
    for (const org of sandbox.state.orgs) {
      const id = orgs.find(
        (o) => o.tenantId.toLowerCase() === org.OrganisationID.toLowerCase(),
      )?.organizationId;
      if (!id) continue;
      if (org.practiceKind === 'shop') {
        const daily = org.contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? null;
        await db
          .update(organizations)
          .set({ defaultStockJournalContactId: daily })
          .where(eq(organizations.id, id));
      }
      if (org.practiceKind === 'contractor') {
        const group = org.contactGroups.find((g) => g.Name === 'CIS Subcontractors')?.ContactGroupID ?? null;
        await db
          .update(organizations)
          .set({ defaultCisSubcontractorsGroupId: group })
          .where(eq(organizations.id, id));
      }
    }
    return { cookie: client.cookie };
  } finally {
    await running.close();
  }
}

/** The measured process: the start command's flags, Xero's own limits in its gate, a fresh process (nothing in memory). */
function serve(sandbox: Sandbox, dir: string, databaseUrl?: string): Promise<ChildServer> {
  return spawnServer([
    'app',
    JSON.stringify({
      dataDir: dir,
      sandboxUrl: sandbox.url,
      paced: true,
      ...(databaseUrl ? { databaseUrl } : {}),
    }),
  ]);
}

async function coldOpen(app: ChildServer, cookie: string, log: (line: string) => void) {
  const client = new ApiClient(app.url, cookie);
  const started = performance.now();
  let firstRowMs: number | null = null;
  let firstReadyMs: number | null = null;
  let completeMs: number | null = null;
  let rows: TodayRow[] = [];
  let lastLog = 0;
  while (performance.now() - started < COLD_TIMEOUT_MS) {
    rows = await client.json<TodayRow[]>('GET', '/api/practice/today');
    const at = performance.now() - started;
    const withFigures = rows.some(
      (r) => (r.status === 'ready' || r.status === 'reading') && r.invoicesAwaiting !== null,
    );
    if (withFigures) firstRowMs ??= at;
    if (rows.some((r) => r.status === 'ready')) firstReadyMs ??= at;
    const done = rows.filter((r) => r.status === 'ready' || r.status === 'failed').length;
    if (at - lastLog > 15_000) {
      lastLog = at;
      log(`practice: reading ${done} of ${rows.length} organisations (${Math.round(at / 1000)} s)`);
    }
    if (rows.length > 0 && done === rows.length) {
      completeMs = at;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { firstRowMs, firstReadyMs, completeMs, rows };
}

/** Until the server answers promptly again: what it still owed (the cold open's last writes) is not timed. */
async function waitUntilIdle(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/readyz`).catch(() => null);
    await res?.arrayBuffer();
    if (res?.ok && performance.now() - started < 50) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function load(url: string, cookie: string, options: Pick<BenchOptions, 'connections' | 'durationSec'>) {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationSec,
    headers: { cookie, 'accept-encoding': 'gzip' },
    timeout: 30,
  });
  const failures = result.non2xx + result.errors;
  if (failures > 0)
    throw new Error(`${url}: ${failures} failed requests (${JSON.stringify(result.statusCodeStats)})`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

/** One load of `url` and the CPU the server process `pid` spent on it, per request (µs; null off Linux). */
async function loadWithCpu(
  url: string,
  pid: number,
  cookie: string,
  options: Pick<BenchOptions, 'connections' | 'durationSec'>,
) {
  const before = processCpuMs(pid);
  const result = await load(url, cookie, options);
  const after = processCpuMs(pid);
  const cpuUs =
    before === null || after === null || result.requests === 0
      ? null
      : ((after - before) * 1000) / result.requests;
  return { ...result, cpuUs };
}

async function measure(
  sandbox: Sandbox,
  options: BenchOptions,
  clientNames: string[],
  database: { label: string; url?: string },
  log: (line: string) => void,
): Promise<PracticeRun> {
  const dir = makeTempDir('practice');
  const servers: ChildServer[] = [];
  try {
    log(`practice (${database.label}): connecting ${clientNames.length} organisations`);
    const { cookie } = await prepare(sandbox, dir, clientNames, database.url);
    sandbox.clearLedger();
    sandbox.setFaults({ latencyMs: options.practiceLatencyMs });
    const app = await serve(sandbox, dir, database.url);
    servers.push(app);
    const idleMb = app.memoryMb()?.rss ?? null;
    log(`practice (${database.label}): cold first open`);
    const cold = await coldOpen(app, cookie, log);
    sandbox.clearFaults();
    const ledger = sandbox.ledger();
    const invoices = cold.rows
      .map((r) => r.invoicesAwaiting?.count)
      .filter((n): n is number => typeof n === 'number');

    log(`practice (${database.label}): the warm page under ${options.connections} connections`);
    const client = new ApiClient(app.url, cookie);
    const body = Buffer.from((await client.call('GET', '/api/practice/today')).text);
    const bodiesFile = path.join(dir, 'bodies.json');
    fs.writeFileSync(
      bodiesFile,
      JSON.stringify([{ contentType: 'application/json; charset=utf-8', base64: body.toString('base64') }]),
    );
    const bare = await spawnServer(['bare', bodiesFile]);
    servers.push(bare);
    // The cold open's last writes settled (PGlite's thread idle again), and one untimed measurement first, as the
    // other parts' first round warms the code it runs.
    await waitUntilIdle(app.url);
    await load(`${app.url}/api/practice/today`, cookie, { ...options, durationSec: 2 });
    await load(`${bare.url}/bare/0`, cookie, { ...options, durationSec: 2 });
    sandbox.clearLedger();
    const samples = {
      p50: [] as number[],
      p99: [] as number[],
      rps: [] as number[],
      bare: [] as number[],
      cpu: [] as number[],
      bareCpu: [] as number[],
    };
    const unpin = options.pin ? pinApart([app.pid, bare.pid]) : null;
    try {
      for (let run = 1; run <= options.loadRuns; run++) {
        // Each round measures both; which goes first alternates, so a drift of the machine's load falls on both.
        const appFirst = run % 2 === 1;
        const first = appFirst
          ? await loadWithCpu(`${app.url}/api/practice/today`, app.pid, cookie, options)
          : await loadWithCpu(`${bare.url}/bare/0`, bare.pid, cookie, options);
        const second = appFirst
          ? await loadWithCpu(`${bare.url}/bare/0`, bare.pid, cookie, options)
          : await loadWithCpu(`${app.url}/api/practice/today`, app.pid, cookie, options);
        const ours = appFirst ? first : second;
        const plain = appFirst ? second : first;
        samples.p50.push(ours.p50);
        samples.p99.push(ours.p99);
        samples.rps.push(ours.rps);
        samples.bare.push(plain.rps);
        if (ours.cpuUs !== null && plain.cpuUs !== null) {
          samples.cpu.push(ours.cpuUs);
          samples.bareCpu.push(plain.cpuUs);
        }
      }
    } finally {
      unpin?.();
    }
    const warmCalls = sandbox.ledger().totals.all;
    return {
      database: database.label,
      organizations: cold.rows.length,
      invoicesPerOrg: summarize(invoices),
      cold: {
        firstRowMs: cold.firstRowMs,
        firstReadyMs: cold.firstReadyMs,
        completeMs: cold.completeMs,
        calls: ledger.totals.all,
        violations: ledger.violations,
        failedRows: cold.rows.filter((r) => r.status === 'failed').length,
      },
      warm: {
        bytes: body.length,
        p50: summarize(samples.p50),
        p99: summarize(samples.p99),
        rps: summarize(samples.rps),
        bareRps: summarize(samples.bare),
        ratio: summarize(samples.rps.map((v, i) => v / (samples.bare[i] || 1))),
        cpuUs: summarize(samples.cpu),
        bareCpuUs: summarize(samples.bareCpu),
        cpuRatio: summarize(samples.cpu.map((v, i) => (samples.bareCpu[i] ?? 0) / (v || 1))),
        pinned: unpin !== null,
        xeroCalls: warmCalls,
      },
      idleMb,
      peakMb: app.memoryMb()?.peak ?? null,
    };
  } finally {
    sandbox.clearFaults();
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runPractice(
  options: BenchOptions,
  log: (line: string) => void,
  pg: PostgresServer | null,
  pgMissing: string | null,
): Promise<PracticeResult> {
  log(
    `practice: seeding ${options.practiceOrgs} organisations at scale ${options.practiceScale} in the sandbox (Xero's limits)`,
  );
  const sandbox = await startBenchSandbox({
    scale: options.practiceScale,
    paced: true,
    practiceClients: options.practiceOrgs,
  });
  try {
    const clientNames = sandbox
      .info()
      .orgs.filter((o) => o.kind)
      .map((o) => o.name);
    const runsByDatabase = [await measure(sandbox, options, clientNames, { label: 'PGlite on disk' }, log)];
    if (pg) {
      const name = `ledgerlink_bench_practice_${process.pid}`;
      pg.createDatabase(name);
      runsByDatabase.push(
        await measure(sandbox, options, clientNames, { label: 'PostgreSQL', url: pg.databaseUrl(name) }, log),
      );
    }
    return {
      organizations: options.practiceOrgs,
      scale: options.practiceScale,
      latencyMs: options.practiceLatencyMs,
      connections: options.connections,
      durationSec: options.durationSec,
      runs: options.loadRuns,
      serverCommand: describeServerCommand(),
      runsByDatabase,
      postgresMissing: pg ? null : (pgMissing ?? 'no PostgreSQL'),
    };
  } finally {
    await sandbox.close();
  }
}
