/**
 * Restores cannot double a write (issue 28 item 4). `db:backup`, pay £4.44 with key K, `db:restore` the backup
 * and, once Xero's idempotency window (6 minutes in the sandbox) has passed, send K again: the restored
 * database does not know K, and Xero no longer replays it. The payment's mark (in its Reference) is what Xero
 * kept: the ledger finds it and answers the first payment; nothing is sent again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../shared/pay-invoices';
import { migrateDatabase, openDatabase } from '../db/client';
import { backupDatabase, restoreDatabase } from '../db/backup';
import { startSandbox, type Sandbox } from '../../sandbox/sandbox';
import { TEST_ORIGIN } from '../test/app';
import type { TestDatabase } from '../test/database';
import { as } from '../test/session';
import {
  createConnectedUser,
  createXeroTestApp,
  enableFeatures,
  TEST_CLIENT,
  type XeroTestApp,
} from '../test/xero';

describe('a restore, then a resend', { timeout: 240_000 }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-restore-'));
  const dataDir = path.join(root, 'data');
  let sandbox: Sandbox;
  afterAll(async () => {
    await sandbox?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** The app on the embedded database under DATA_DIR, as `npm start` runs it; closing it closes the database. */
  async function start(): Promise<XeroTestApp> {
    const database = await openDatabase({ dataDir });
    await migrateDatabase(database);
    const t = await createXeroTestApp({
      database: { ...database, destroy: () => database.close() } as TestDatabase,
      sandboxInstance: sandbox,
    });
    return {
      ...t,
      async close() {
        await t.close();
        await database.close();
      },
    };
  }

  it('pays once: the resend after the idempotency window is answered with the first payment', async () => {
    sandbox = await startSandbox({
      port: 0,
      dataDir: null,
      clients: [
        {
          ...TEST_CLIENT,
          redirectUris: [`${TEST_ORIGIN}/api/xero/callback`, `${TEST_ORIGIN}/api/auth/xero/callback`],
        },
      ],
    });

    // Connected, with Pay Invoices on, then backed up (the server stopped, as a PGlite backup needs).
    let t = await start();
    const owner = await createConnectedUser(t, 'owner');
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('no shop');
    await enableFeatures(t, shop.organizationId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shop.organizationId });
    const invoices = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    const invoice = invoices.find((i) => i.amountDue > 10 && i.status !== 'PARTIAL');
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      cashAccounts: Array<{ accountId: string }>;
    };
    const cash = accounts.cashAccounts[0]?.accountId;
    if (!invoice || !cash) throw new Error('the seed has no invoice to pay or no cash account');
    await t.close();
    const backup = path.join(root, 'backup.tar.gz');
    await backupDatabase({ kind: 'pglite', dataDir }, backup);

    // Pay £4.44 with key K.
    const key = crypto.randomUUID();
    const payment = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: cash,
      amount: 4.44,
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
      date: '2026-01-01',
    };
    const pay = (app: XeroTestApp) =>
      app.app.inject({
        method: 'POST',
        url: '/api/xero/payments',
        headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
        payload: payment,
      });
    t = await start();
    const first = await pay(t);
    expect(first.statusCode, first.body).toBe(200);
    const paymentId = (first.json() as { paymentId: string }).paymentId;
    await t.close();

    // The backup comes back; Xero's 6-minute idempotency window passes.
    await restoreDatabase({ kind: 'pglite', dataDir }, backup);
    sandbox.advanceClock(7 * 60);

    t = await start();
    const again = await pay(t);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as { paymentId: string }).paymentId).toBe(paymentId);
    const paid = sandbox
      .ledger()
      .writes.filter(
        (w) => w.kind === 'payment' && w.action === 'create' && w.summary.invoiceId === invoice.invoiceId,
      );
    expect(paid).toHaveLength(1);
    // The invoice on screen has £4.44 off, once.
    const view = await as(t.app, owner.cookie)('GET', `/api/xero/invoices/${invoice.invoiceId}?refresh=true`);
    expect(Math.round((view.json() as { invoice: Invoice }).invoice.amountDue * 100)).toBe(
      Math.round(invoice.amountDue * 100) - 444,
    );
    await t.close();
  });
});
