/**
 * The Xero gate shared through PostgreSQL: several instances on one database keep Xero's limits together.
 * Runs on the PostgreSQL server of TEST_DATABASE_URL, or on a throwaway one started from Debian's
 * postgresql package (the suite fails, naming why, when neither is there: PGlite has one instance only).
 */
import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPostgres, type PostgresServer } from '../../../../bench/lib/postgres';
import { migrateDatabase, openDatabase, type Database } from '../../db/client';
import { xeroAccounts, xeroInvoices } from '../../db/schema/index';
import type { TestDatabase } from '../../test/database';
import { createTestApp, type TestApp } from '../../test/app';
import { createConnectedUser, createXeroTestApp, TEST_CLIENT, type XeroTestApp } from '../../test/xero';
import { createSharedGates, type SharedGates } from './shared-gate';

let server: PostgresServer | undefined;
let serverUrl = process.env.TEST_DATABASE_URL ?? '';

async function freshDatabase(): Promise<TestDatabase> {
  const name = `ll_gate_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  await migrateDatabase(database);
  return {
    ...database,
    async destroy() {
      await database.close();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

beforeAll(async () => {
  if (serverUrl) return;
  const started = await startPostgres(process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin');
  if ('unavailable' in started)
    throw new Error(
      `the shared Xero gate needs PostgreSQL: ${started.unavailable} (or set TEST_DATABASE_URL)`,
    );
  server = started;
  server.createDatabase('ledgerlink_gate');
  serverUrl = server.databaseUrl('ledgerlink_gate');
}, 60_000);
afterAll(() => server?.stop());

describe('the shared gate itself', () => {
  let database: TestDatabase;
  const open: Database[] = [];
  const gates: SharedGates[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    for (const g of gates) await g.close();
    for (const d of open) await d.close();
    await database.destroy();
  });
  /** Another instance: its own pool on the same database and its own gates. */
  async function instance(options: Parameters<typeof createSharedGates>[1] = {}) {
    const db = await openDatabase({
      databaseUrl: (database.pool?.options as { connectionString: string }).connectionString,
    });
    open.push(db);
    const shared = createSharedGates(db.pool as pg.Pool, options);
    gates.push(shared);
    return shared;
  }
  /** Waits until the gate rows of `tenant` in `state` number `count` (what the instances have written so far). */
  async function rows(tenant: string, state: string, count: number) {
    for (;;) {
      const { rows: found } = await (database.pool as pg.Pool).query<{ n: string }>(
        `select count(*) as n from xero_gate_calls where tenant_id = $1 and state = $2`,
        [tenant, state],
      );
      if (Number(found[0]?.n) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('grants waiting calls of one organisation in the order they queued, whichever instance queued them', async () => {
    const a = (await instance()).createGate('tenant-order');
    const b = (await instance()).createGate('tenant-order');
    // Five in flight on A fill the organisation's slots.
    await Promise.all(Array.from({ length: 5 }, () => a.acquire()));
    const granted: string[] = [];
    const queue = (gate: typeof a, label: string) => gate.acquire().then(() => granted.push(label));
    // Queued one after another (each waits for the one before to be written), so the order is the database's.
    const waiting: Array<Promise<number>> = [];
    const order: Array<[typeof a, string]> = [
      [a, 'a1'],
      [a, 'a2'],
      [b, 'b1'],
      [b, 'b2'],
      [a, 'a3'],
    ];
    for (const [gate, label] of order) {
      waiting.push(queue(gate, label));
      await rows('tenant-order', 'waiting', waiting.length);
    }
    expect(granted).toEqual([]);
    // One slot freed at a time, each grant seen before the next slot is freed: the order granted is then the
    // gate's own, not which instance heard of its grant first (B hears through the database's notices).
    for (let i = 0; i < 5; i++) {
      a.release();
      await vi.waitFor(() => expect(granted).toHaveLength(i + 1), { timeout: 30_000, interval: 20 });
    }
    await Promise.all(waiting);
    expect(granted).toEqual(['a1', 'a2', 'b1', 'b2', 'a3']);
    for (const g of [a, a, b, b, a]) g.release();
  });

  it("grants a waiting person's call before every waiting background read, whichever instance queued them (issue 47)", async () => {
    const a = (await instance()).createGate('tenant-priority');
    const b = (await instance()).createGate('tenant-priority');
    await Promise.all(Array.from({ length: 5 }, () => a.acquire()));
    const granted: string[] = [];
    const queue = (gate: typeof a, label: string, priority: 'person' | 'background') =>
      gate.acquire(priority).then(() => granted.push(label));
    const waiting = [queue(a, 'background a', 'background'), queue(b, 'background b', 'background')];
    await rows('tenant-priority', 'waiting', 2);
    waiting.push(queue(b, 'person b', 'person'));
    await rows('tenant-priority', 'waiting', 3);
    waiting.push(queue(a, 'person a', 'person'));
    await rows('tenant-priority', 'waiting', 4);
    for (let i = 0; i < 5; i++) a.release();
    await Promise.all(waiting);
    expect(granted.slice(0, 2)).toEqual(['person b', 'person a']);
    expect(granted.slice(2).sort()).toEqual(['background a', 'background b']);
    for (const g of [a, a, b, b]) g.release();
  });

  it('keeps one call in flight free of background reads for a person (issue 47)', async () => {
    const a = (await instance()).createGate('tenant-headroom');
    const b = (await instance()).createGate('tenant-headroom');
    await Promise.all(Array.from({ length: 4 }, () => a.acquire('background')));
    let fifth = false;
    void b.acquire('background').then(() => (fifth = true));
    await rows('tenant-headroom', 'waiting', 1);
    // The person's call is let through at once; the fifth background read still waits.
    await b.acquire('person');
    expect(fifth).toBe(false);
    b.release();
    a.release();
    await vi.waitFor(() => expect(fifth).toBe(true));
    for (let i = 0; i < 3; i++) a.release();
    b.release();
  });

  it('lets other instances go on when an instance dies holding calls in flight', async () => {
    const dying = await instance({ leaseMs: 1_500 });
    const held = dying.createGate('tenant-lease');
    await Promise.all(Array.from({ length: 5 }, () => held.acquire()));
    await dying.close(); // stops renewing its leases, as a killed process would
    const other = (await instance({ leaseMs: 1_500 })).createGate('tenant-lease');
    await other.acquire();
    other.release();
  });

  it('stops every instance for the rest of the day after a daily-limit answer on one of them', async () => {
    const a = (await instance()).createGate('tenant-day');
    const b = (await instance()).createGate('tenant-day');
    a.blockDay(60_000);
    for (;;) {
      const { rows: found } = await (database.pool as pg.Pool).query(
        `select 1 from xero_gate_tenants where tenant_id = 'tenant-day' and day_blocked_until > now()`,
      );
      if (found.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect(b.acquire()).rejects.toMatchObject({ code: 'XERO_RATE_LIMITED' });
  });

  it('keeps the day budget across instances', async () => {
    const a = (await instance({ perDay: 3 })).createGate('tenant-budget');
    const b = (await instance({ perDay: 3 })).createGate('tenant-budget');
    for (const gate of [a, b, a]) {
      await gate.acquire();
      gate.release();
    }
    await expect(b.acquire()).rejects.toMatchObject({ code: 'XERO_RATE_LIMITED' });
  });

  it('keeps the app-wide minute limit across organisations and instances', async () => {
    // The calls of the tests above count app-wide too: start this minute from none.
    await (database.pool as pg.Pool).query(`delete from xero_gate_calls`);
    const a = await instance({ appPerMinute: 4 });
    const b = await instance({ appPerMinute: 4 });
    const first = [
      a.createGate('app-1'),
      b.createGate('app-2'),
      a.createGate('app-3'),
      b.createGate('app-4'),
    ];
    for (const gate of first) {
      await gate.acquire();
      gate.release();
    }
    let fifth = false;
    void b
      .createGate('app-5')
      .acquire()
      .then(() => (fifth = true));
    // The fifth call queues and is asked about several times (every pollMs) without being let through.
    await rows('app-5', 'waiting', 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(fifth).toBe(false);
    await expect(
      (database.pool as pg.Pool)
        .query(`select state from xero_gate_calls where tenant_id = 'app-5'`)
        .then((r) => r.rows),
    ).resolves.toEqual([{ state: 'waiting' }]);
  });
});

describe('three instances writing for one organisation through the sandbox', () => {
  let first: XeroTestApp;
  const others: TestApp[] = [];
  let database: TestDatabase;
  let userId = 0;
  let tenantId = '';
  let invoiceId = '';
  let accountId = '';

  beforeAll(async () => {
    database = await freshDatabase();
    first = await createXeroTestApp({
      database,
      sandbox: { concurrentLimit: 2, minuteLimit: 20 },
      xeroGate: { maxInFlight: 2, perMinute: 20 },
    });
    const owner = await createConnectedUser(first, 'gate.owner', { tenants: ['Demo Shop Ltd'] });
    userId = owner.user.id;
    const shop = owner.orgs[0];
    tenantId = shop?.tenantId ?? '';
    const ctx = { organizationId: shop?.organizationId ?? 0, tenantId, userId };
    await first.parts.sync.syncInvoices(ctx, { key: 'sales-open' });
    await first.parts.sync.syncAccounts(ctx);
    const [invoice] = await database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, ctx.organizationId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const [bank] = await database.db
      .select()
      .from(xeroAccounts)
      .where(and(eq(xeroAccounts.organizationId, ctx.organizationId), eq(xeroAccounts.type, 'BANK')))
      .limit(1);
    invoiceId = invoice?.invoiceId ?? '';
    accountId = bank?.accountId ?? '';
    for (let i = 0; i < 2; i++) {
      others.push(
        await createTestApp({
          database,
          xero: {
            issuer: first.sandbox.url,
            apiUrl: first.sandbox.url,
            ...TEST_CLIENT,
            allowInsecureRequests: true,
          },
          xeroHttp: { backoffMs: () => 5 },
          xeroGate: { maxInFlight: 2, perMinute: 20 },
        }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    for (const t of others) await t.close();
    await first.close();
    await database.destroy();
  });

  it(
    'sends 30 payments from three instances with no limit broken, in at least the minute the limit asks for',
    { timeout: 180_000 },
    async () => {
      expect(invoiceId).not.toBe('');
      first.sandbox.clearLedger();
      first.sandbox.setFaults({ latencyMs: 100 });
      const apps = [first.parts, ...others.map((t) => t.parts)];
      const started = Date.now();
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          apps[i % 3]?.xeroHttp.send(userId, tenantId, {
            method: 'PUT',
            path: '/api.xro/2.0/Payments',
            idempotencyKey: crypto.randomUUID(),
            body: {
              Payments: [
                {
                  Invoice: { InvoiceID: invoiceId },
                  Account: { AccountID: accountId },
                  Amount: 0.01,
                  Date: '2026-11-20',
                },
              ],
            },
          }),
        ),
      );
      const elapsed = Date.now() - started;
      first.sandbox.clearFaults();
      const ledger = first.sandbox.ledger();
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(ledger.violations).toEqual({ minute: 0, concurrent: 0, day: 0, appMinute: 0 });
      expect(ledger.writes.filter((w) => w.kind === 'payment')).toHaveLength(30);
      // 20 a minute (the setup's reads among them): the last payments wait for the second minute.
      expect(elapsed).toBeGreaterThan(60_000);
    },
  );
});
