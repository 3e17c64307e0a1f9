/**
 * Part 4: two app instances (each its own buildApp, port, Xero client, in-memory caches and timers) sharing
 * one PostgreSQL and one sandbox, as N instances behind a load balancer would. Checks that nothing one
 * instance needs lives only in the other: sessions, OAuth state, token rotation, sync leases, the write
 * ledger, and migrations at start.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Sandbox } from '../../src/sandbox/sandbox';
import { xeroTokens } from '../../src/server/db/schema/index';
import type { Database } from '../../src/server/db/client';
import { getUkToday } from '../../src/shared/dates';
import { findInvoicesToPay, type BankAccountsResponse, type Invoice } from '../../src/shared/pay-invoices';
import { fromPence, roundPoundsToPence } from '../../src/shared/money';
import {
  ApiClient,
  countTenantCalls,
  connectXero,
  enableAllFeatures,
  makeTempDir,
  openBenchDatabase,
  RouteMissingError,
  setActiveOrganization,
  signIn,
  startBenchApp,
  startBenchSandbox,
  type RunningApp,
} from '../lib/harness';
import type { BenchOptions } from '../lib/options';
import type { PostgresServer } from '../lib/postgres';
import { runGateScaleOut, type GateRun } from './gate';

export interface Check {
  label: string;
  passed: boolean;
  detail: string;
  expected: string;
}

export interface ScaleOutResult {
  postgres: string;
  runs: number;
  checks: Check[];
  /** The shared Xero gate: one instance, then three, sending the same payments for one organisation. */
  gate: GateRun[];
}

type Outcome = { passed: boolean; detail: string };

interface Pair {
  a: RunningApp;
  b: RunningApp;
  sandbox: Sandbox;
}

async function startPair(
  pg: PostgresServer,
  name: string,
  sandbox: Sandbox,
  dir: string,
): Promise<{ pair: Pair; startTogether: Outcome }> {
  pg.createDatabase(name);
  const url = pg.databaseUrl(name);
  // Both instances open, migrate and bootstrap the administrator at the same moment, as after a deploy.
  const opened = await Promise.allSettled([openBenchDatabase({ url }), openBenchDatabase({ url })]);
  const databases = opened
    .filter((o): o is PromiseFulfilledResult<Database> => o.status === 'fulfilled')
    .map((o) => o.value);
  const startErrors: string[] = opened
    .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
    .map((o) => String(o.reason));
  while (databases.length < 2) databases.push(await openBenchDatabase({ url }));
  const [dbA, dbB] = databases as [Database, Database];
  const started = await Promise.allSettled([
    startBenchApp({ database: dbA, sandboxUrl: sandbox.url, dataDir: dir, paced: true }),
    startBenchApp({ database: dbB, sandboxUrl: sandbox.url, dataDir: dir, paced: true }),
  ]);
  const apps = started.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    startErrors.push(String(s.reason instanceof Error ? s.reason.message : s.reason));
    return i;
  });
  const [a, b] = await Promise.all(
    apps.map((app, i) =>
      typeof app === 'number'
        ? startBenchApp({ database: i === 0 ? dbA : dbB, sandboxUrl: sandbox.url, dataDir: dir, paced: true })
        : app,
    ),
  );
  if (!a || !b) throw new Error('instances did not start');
  return {
    pair: { a, b, sandbox },
    startTogether:
      startErrors.length === 0
        ? { passed: true, detail: 'both migrated and started' }
        : { passed: false, detail: `failed on the first try: ${startErrors.join('; ').slice(0, 300)}` },
  };
}

async function checkSessions(pair: Pair): Promise<Outcome> {
  const onA = new ApiClient(pair.a.url);
  await signIn(onA);
  const onB = onA.on(pair.b.url);
  const me = await onB.send('GET', '/api/user');
  const seenOnB = me.status === 200 && me.json<{ username: string }>().username !== undefined;
  await onB.call('POST', '/api/logout');
  const afterLogout = await onA.on(pair.a.url).send('GET', '/api/user');
  const passed = seenOnB && afterLogout.status === 401;
  return {
    passed,
    detail: `signed in on A → B answers ${me.status}; signed out on B → A answers ${afterLogout.status}`,
  };
}

async function checkRefresh(
  pair: Pair,
  client: ApiClient,
  database: Database,
  rotations: number,
): Promise<Outcome> {
  const before = pair.sandbox.ledger().refreshCount;
  const statuses: string[] = [];
  for (let r = 0; r < rotations; r++) {
    // Every instance now sees a token inside its refresh margin; 10 requests spread over both race to refresh it.
    await database.db.update(xeroTokens).set({ expiresAt: new Date(Date.now() + 30_000) });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.on(i % 2 === 0 ? pair.a.url : pair.b.url).send('GET', '/api/xero/connection'),
      ),
    );
    const bad = answers.filter(
      (res) =>
        res.status !== 200 ||
        res.json<{ connected: boolean; error?: string }>().connected !== true ||
        res.json<{ error?: string }>().error,
    );
    statuses.push(
      bad.length === 0
        ? 'all 10 connected'
        : `${bad.length} of 10 not connected: ${bad[0]?.text.slice(0, 120)}`,
    );
  }
  const refreshes = pair.sandbox.ledger().refreshCount - before;
  const passed = refreshes === rotations && statuses.every((s) => s === 'all 10 connected');
  return {
    passed,
    detail: `${rotations} rotation(s), 10 concurrent requests each over A and B → ${refreshes} refresh(es); ${statuses.join('; ')}`,
  };
}

async function countInvoiceReads(
  pair: Pair,
  tenantId: string,
  work: () => Promise<unknown>,
): Promise<number> {
  pair.sandbox.clearLedger();
  // Each sandbox answer takes 300 ms, so the two requests are surely in flight together.
  pair.sandbox.setFaults({ latencyMs: 300 });
  try {
    await work();
  } finally {
    pair.sandbox.clearFaults();
  }
  return countTenantCalls(pair.sandbox, tenantId).byEndpoint['GET /Invoices'] ?? 0;
}

/**
 * Both instances open Pay Invoices for the first time at once, for each organisation: the sync lease must
 * let one of them read Xero and the other wait for its result.
 */
async function checkFirstOpen(
  pair: Pair,
  client: ApiClient,
  orgs: Array<{ organizationId: number; tenantId: string }>,
): Promise<Outcome> {
  const reads: number[] = [];
  const lengths: string[] = [];
  for (const org of orgs) {
    const path = `/api/xero/invoices?org=${org.organizationId}`;
    reads.push(
      await countInvoiceReads(pair, org.tenantId, async () => {
        const answers = await Promise.all([
          client.on(pair.a.url).json<Invoice[]>('GET', path),
          client.on(pair.b.url).json<Invoice[]>('GET', path),
        ]);
        lengths.push(answers.map((a) => a.length).join('/'));
      }),
    );
  }
  return {
    passed: reads.every((r) => r === 1),
    detail: `GET /Invoices per simultaneous pair: ${reads.join(', ')} (invoices answered by A/B: ${lengths.join(', ')})`,
  };
}

/** Standard refresh on both instances at once, several times: every pair must cost one If-Modified-Since call. */
async function checkRefreshSync(
  pair: Pair,
  client: ApiClient,
  tenantId: string,
  trials: number,
): Promise<Outcome> {
  const reads: number[] = [];
  for (let i = 0; i < trials; i++) {
    reads.push(
      await countInvoiceReads(pair, tenantId, () =>
        Promise.all([
          client.on(pair.a.url).call('GET', '/api/xero/invoices?refresh=true'),
          client.on(pair.b.url).call('GET', '/api/xero/invoices?refresh=true'),
        ]),
      ),
    );
  }
  const extra = reads.filter((r) => r > 1).length;
  return {
    passed: extra === 0,
    detail: `GET /Invoices per simultaneous pair: ${reads.join(', ')}${extra > 0 ? ` (${extra} of ${trials} pairs read Xero twice)` : ''}`,
  };
}

async function checkPaymentRetry(pair: Pair, client: ApiClient, tenantId: string): Promise<Outcome> {
  const invoices = await client.on(pair.a.url).json<Invoice[]>('GET', '/api/xero/invoices');
  const bank = await client.on(pair.a.url).json<BankAccountsResponse>('GET', '/api/xero/bank-accounts');
  const invoice = findInvoicesToPay(invoices, { today: getUkToday() }).find(
    (i) => roundPoundsToPence(i.amountDue) >= 2,
  );
  const account = bank.creditCardAccounts[0]?.accountId;
  if (!invoice || !account) return { passed: false, detail: 'no invoice or card account to pay with' };
  const body = {
    invoiceId: invoice.invoiceId,
    invoiceNumber: invoice.invoiceNumber,
    accountId: account,
    amount: fromPence(1),
    reference: `Card payment for ${invoice.invoiceNumber}`,
    isCard: true,
    date: getUkToday(),
  };
  const headers = { 'idempotency-key': randomUUID() };
  pair.sandbox.clearLedger();
  const first = await client.on(pair.a.url).send('POST', '/api/xero/payments', body, headers);
  const retry = await client.on(pair.b.url).send('POST', '/api/xero/payments', body, headers);
  const puts = countTenantCalls(pair.sandbox, tenantId).byEndpoint['PUT /Payments'] ?? 0;
  const payments = pair.sandbox.ledger().writes.filter((w) => w.kind === 'payment').length;
  const samePayment =
    first.status === 200 &&
    retry.status === 200 &&
    first.json<{ paymentId: string }>().paymentId === retry.json<{ paymentId: string }>().paymentId;
  return {
    passed: payments === 1 && samePayment,
    detail: `sent on A (${first.status}), retried on B with the same Idempotency-Key (${retry.status}) → ${puts} PUT /Payments, ${payments} payment(s) in Xero${samePayment ? ', same payment answered' : ''}`,
  };
}

/** Runs one check; a missing route or an exception is a failed check, not a failed benchmark. */
async function attempt(work: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RouteMissingError) return { passed: false, detail: error.message };
    return {
      passed: false,
      detail: `error: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`,
    };
  }
}

const CHECKS = [
  {
    key: 'start',
    label: 'Both instances start together on an empty database (migrations, bootstrap administrator)',
    expected: 'both start',
  },
  {
    key: 'sessions',
    label: 'Sessions work on both (sign in on A, call B; sign out on B, call A)',
    expected: '200, then 401',
  },
  { key: 'oauth', label: 'Connect Xero: started on A, callback answered by B', expected: 'connected' },
  {
    key: 'refresh',
    label: 'One token refresh per rotation (sandbox refreshCount)',
    expected: '1 refresh per rotation, every request connected',
  },
  {
    key: 'first-open',
    label: 'First open of Pay Invoices on A and B at once (each organisation)',
    expected: '1 GET /Invoices per pair',
  },
  {
    key: 'refresh-sync',
    label: 'Standard refresh on A and B at once (5 pairs)',
    expected: '1 GET /Invoices per pair',
  },
  { key: 'payment', label: 'A payment retried on the other instance', expected: '1 payment in Xero' },
] as const;

export async function runScaleOut(
  options: BenchOptions,
  pg: PostgresServer,
  log: (line: string) => void,
): Promise<ScaleOutResult> {
  const runs = options.quick ? 1 : 2;
  const outcomes = new Map<string, Outcome[]>();
  const record = (key: string, outcome: Outcome) =>
    outcomes.set(key, [...(outcomes.get(key) ?? []), outcome]);
  for (let run = 1; run <= runs; run++) {
    log(`scale-out: run ${run} of ${runs}`);
    const dir = makeTempDir('scale-out');
    const sandbox = await startBenchSandbox({ scale: 1, paced: true });
    let pair: Pair | null = null;
    try {
      const started = await startPair(
        pg,
        `ledgerlink_bench_${process.pid}_${run}_${Date.now()}`,
        sandbox,
        dir,
      );
      pair = started.pair;
      const p = pair;
      record('start', started.startTogether);
      record('sessions', await attempt(() => checkSessions(p)));
      const client = new ApiClient(p.a.url);
      await signIn(client);
      let orgs: Awaited<ReturnType<typeof connectXero>> = [];
      record(
        'oauth',
        await attempt(async () => {
          orgs = await connectXero(client, sandbox, { callbackClient: client.on(p.b.url) });
          return { passed: orgs.length === 2, detail: `${orgs.length} organisations connected through B` };
        }),
      );
      const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
      const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
      if (!shop || !builders) throw new Error('the demo organisations were not connected');
      await enableAllFeatures(client, orgs);
      await setActiveOrganization(client, shop);
      record('refresh', await attempt(() => checkRefresh(p, client, p.a.database, 2)));
      record('first-open', await attempt(() => checkFirstOpen(p, client, [builders, shop])));
      record('refresh-sync', await attempt(() => checkRefreshSync(p, client, shop.tenantId, 5)));
      record('payment', await attempt(() => checkPaymentRetry(p, client, shop.tenantId)));
    } finally {
      if (pair) {
        await pair.a.close();
        await pair.b.close();
      }
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const checks: Check[] = CHECKS.map((c) => {
    const list = outcomes.get(c.key) ?? [];
    const passed = list.length === runs && list.every((o) => o.passed);
    const details = [...new Set(list.map((o) => o.detail))];
    return {
      label: c.label,
      expected: c.expected,
      passed,
      detail: `${passed ? 'pass' : 'FAIL'}: ${details.join(' / ')}`,
    };
  });
  const writes = Number(process.env.BENCH_GATE_WRITES ?? (options.quick ? 60 : 300));
  const gate: GateRun[] = [];
  for (const instances of [1, 3]) gate.push(await runGateScaleOut(pg, instances, writes, log));
  return { postgres: pg.version, runs, checks, gate };
}
