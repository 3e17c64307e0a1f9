/**
 * Part 4b: the Xero gate shared through PostgreSQL (docs/decisions/020-shared-xero-gate.md). N instances
 * (each its own buildApp, pool and gates) on one PostgreSQL send `writes` payments for one organisation
 * at once, spread evenly over the instances, against a sandbox keeping Xero's real limits (60 a minute,
 * 5 in flight). The sandbox counts every call that broke a limit; the time is against one instance.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { and, desc, eq } from 'drizzle-orm';
import { users, xeroAccounts, xeroInvoices } from '../../src/server/db/schema/index';
import {
  ApiClient,
  BENCH_ADMIN,
  connectXero,
  makeTempDir,
  openBenchDatabase,
  signIn,
  startBenchApp,
  startBenchSandbox,
  type RunningApp,
} from '../lib/harness';
import type { PostgresServer } from '../lib/postgres';

export interface GateRun {
  instances: number;
  writes: number;
  seconds: number;
  payments: number;
  failed: number;
  violations: { minute: number; concurrent: number; day: number; appMinute: number };
}

export async function runGateScaleOut(
  pg: PostgresServer,
  instances: number,
  writes: number,
  log: (line: string) => void,
): Promise<GateRun> {
  const dir = makeTempDir('gate');
  const sandbox = await startBenchSandbox({ scale: 1, paced: true });
  const name = `ledgerlink_gate_${process.pid}_${instances}_${Date.now()}`;
  pg.createDatabase(name);
  const apps: RunningApp[] = [];
  try {
    for (let i = 0; i < instances; i++) {
      apps.push(
        await startBenchApp({
          database: await openBenchDatabase({ url: pg.databaseUrl(name) }),
          sandboxUrl: sandbox.url,
          dataDir: dir,
          paced: true,
        }),
      );
    }
    const first = apps[0];
    if (!first) throw new Error('no instance');
    const client = new ApiClient(first.url);
    await signIn(client);
    const orgs = await connectXero(client, sandbox);
    const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('Demo Shop Ltd was not connected');
    const db = first.database.db;
    const [admin] = await db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.username, BENCH_ADMIN.username));
    const ctx = { organizationId: shop.organizationId, tenantId: shop.tenantId, userId: admin?.id ?? 0 };
    await first.parts.sync.syncInvoices(ctx, { key: 'sales-open' });
    await first.parts.sync.syncAccounts(ctx);
    const [invoice] = await db
      .select({ id: xeroInvoices.invoiceId })
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, ctx.organizationId), eq(xeroInvoices.status, 'AUTHORISED')))
      .orderBy(desc(xeroInvoices.amountDuePence))
      .limit(1);
    const [bank] = await db
      .select({ id: xeroAccounts.accountId })
      .from(xeroAccounts)
      .where(and(eq(xeroAccounts.organizationId, ctx.organizationId), eq(xeroAccounts.type, 'BANK')))
      .limit(1);
    if (!invoice || !bank) throw new Error('no invoice or bank account to pay with');
    sandbox.clearLedger();
    log(`scale-out gate: ${instances} instance(s), ${writes} payments for one organisation`);
    const started = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: writes }, (_, i) =>
        apps[i % instances]?.parts.xeroHttp.send(ctx.userId, ctx.tenantId, {
          method: 'PUT',
          path: '/api.xro/2.0/Payments',
          idempotencyKey: randomUUID(),
          body: {
            Payments: [
              {
                Invoice: { InvoiceID: invoice.id },
                Account: { AccountID: bank.id },
                Amount: 0.01,
                Date: new Date().toISOString().slice(0, 10),
              },
            ],
          },
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const ledger = sandbox.ledger();
    return {
      instances,
      writes,
      seconds,
      payments: ledger.writes.filter((w) => w.kind === 'payment').length,
      failed: results.filter((r) => r.status === 'rejected').length,
      violations: ledger.violations,
    };
  } finally {
    for (const app of apps) await app.close();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
