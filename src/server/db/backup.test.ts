/**
 * npm run db:backup / db:restore: a round trip on each kind of database (back up, destroy, restore, same
 * rows, the app starts on it), and the refusal while a server holds DATA_DIR.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asc } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../../bench/lib/postgres';
import { LOCK_FILE } from '../lib/data-dir-lock';
import { createTestApp } from '../test/app';
import { pgliteTemplate } from '../test/database';
import { backupDatabase, defaultBackupFile, restoreDatabase } from './backup';
import { migrateDatabase, openDatabase, type Database } from './client';
import { createSyncState } from '../xero/sync/sync-state';
import { createWebhookHealth } from '../xero/webhooks/health';
import {
  ledgerRestores,
  organizations,
  users,
  xeroSyncState,
  xeroWebhookFeed,
  xeroWebhookHealth,
  xeroWebhookRanges,
} from './schema/index';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-backup-test-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function addUsers(database: Database, names: string[]) {
  await database.db
    .insert(users)
    .values(names.map((username) => ({ username, email: `${username}@example.com` })));
}
const usernames = async (database: Database) =>
  (await database.db.select({ username: users.username }).from(users).orderBy(asc(users.id))).map(
    (u) => u.username,
  );

/** The app starts on the database and says it is ready. */
async function appStartsOn(database: Database) {
  const t = await createTestApp({ database: { ...database, destroy: () => database.close() } });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
  } finally {
    await t.close();
  }
}

describe('embedded database (PGlite under DATA_DIR)', () => {
  const dataDir = path.join(root, 'data');

  it(
    'backs up, is destroyed, restores the same rows, and the app starts on it',
    { timeout: 120_000 },
    async () => {
      // A new DATA_DIR started from the migrated template (migrating it costs seconds), checked as npm start does.
      const before = await openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
      await migrateDatabase(before);
      await addUsers(before, ['ada', 'grace', 'edsger']);
      await before.close();

      const file = defaultBackupFile({ kind: 'pglite', dataDir }, path.join(root, 'backups'));
      const bytes = await backupDatabase({ kind: 'pglite', dataDir }, file);
      expect(bytes).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);

      fs.rmSync(path.join(dataDir, 'pglite'), { recursive: true, force: true });
      const restored = await restoreDatabase({ kind: 'pglite', dataDir }, file);
      expect(restored.keptAside).toBeUndefined();

      const after = await openDatabase({ dataDir });
      expect(await usernames(after)).toEqual(['ada', 'grace', 'edsger']);
      // The restore is on record, so the write ledger checks Xero before sending keys it does not know.
      const restores = await after.db.select().from(ledgerRestores);
      expect(restores.map((r) => r.backupFile)).toEqual([path.basename(file)]);
      await appStartsOn(after);
      await after.close();

      // A second restore over a live folder keeps the folder it replaces.
      const again = await restoreDatabase({ kind: 'pglite', dataDir }, file);
      expect(again.keptAside && fs.existsSync(again.keptAside)).toBe(true);
    },
  );

  it(
    'trusts no cached view as live after a restore until it is read from Xero again, and no read in flight at the backup holds a list',
    { timeout: 120_000 },
    async () => {
      // Webhooks were live when the backup was taken: a view read a minute ago may be answered from the cache.
      const liveDir = path.join(root, 'live');
      const before = await openDatabase({ dataDir: liveDir, loadDataDir: await pgliteTemplate() });
      await migrateDatabase(before);
      const tenantId = crypto.randomUUID();
      const hourAgo = new Date(Date.now() - 3_600_000);
      await before.db.insert(xeroWebhookFeed).values({ id: 1, firstDeliveryAt: hourAgo, sequenceDone: 40 });
      await before.db.insert(xeroWebhookHealth).values({ tenantId, lastDeliveryAt: new Date() });
      const [org] = await before.db.insert(organizations).values({ tenantId }).returning();
      const ctx = { organizationId: org?.id ?? 0, tenantId };
      // A read of a list was on its way when the backup was taken (an instance held its lease for 2 minutes).
      await before.db.insert(xeroSyncState).values({
        organizationId: ctx.organizationId,
        resource: 'invoices:bills-draft',
        highWater: hourAgo,
        lastSyncAt: hourAgo,
        leaseUntil: new Date(Date.now() + 120_000),
      });
      const readMinuteAgo = () => new Date(Date.now() - 60_000);
      expect(
        await createWebhookHealth({ db: before.db, keyConfigured: true }).mayUseCache(ctx, readMinuteAgo()),
      ).toBe(true);
      await before.close();

      const file = path.join(root, 'backups', 'live.backup');
      await backupDatabase({ kind: 'pglite', dataDir: liveDir }, file);
      await restoreDatabase({ kind: 'pglite', dataDir: liveDir }, file);

      // The deliveries since the backup (and the changes they named) are not in the restored database: the
      // same view is read from Xero once, and the stream starts again whole from the next delivery.
      const after = await openDatabase({ dataDir: liveDir });
      const health = createWebhookHealth({ db: after.db, keyConfigured: true });
      expect(await health.mayUseCache(ctx, readMinuteAgo())).toBe(false);
      expect(await health.mayUseCache(ctx, new Date(Date.now() + 1_000))).toBe(true);
      const [feed] = await after.db.select().from(xeroWebhookFeed);
      expect(feed?.sequenceDone).toBeNull();
      expect(await after.db.select().from(xeroWebhookRanges)).toEqual([]);
      // No instance runs during a restore: the read that held the list's lease is gone, and the first read
      // after the restore starts at once rather than waiting up to 2 minutes for a lease nobody holds.
      const lease = await createSyncState(after.db).acquireLease(ctx.organizationId, 'invoices:bills-draft');
      expect(lease).toMatchObject({ lastSyncAt: null });
      await after.close();
    },
  );

  it('refuses with one clear line while a server holds DATA_DIR', { timeout: 60_000 }, async () => {
    // A live node process holds the lock, as a running server does.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(
        path.join(dataDir, LOCK_FILE),
        JSON.stringify({ pid: holder.pid, startedAt: new Date().toISOString() }),
      );
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
      const cli = path.join(import.meta.dirname, 'backup-cli.ts');
      for (const args of [
        ['backup', path.join(root, 'refused.tar.gz')],
        ['restore', path.join(root, 'backups', fs.readdirSync(path.join(root, 'backups'))[0] ?? '')],
      ]) {
        const run = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { env, encoding: 'utf8' });
        expect(run.status).toBe(1);
        expect(run.stderr.trim()).toBe(
          `ledgerlink: cannot ${args[0]} while a server uses it: DATA_DIR ${dataDir} is in use by another Ledgerlink server (pid ${holder.pid}, started ${JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).startedAt}); stop it or set DATA_DIR to another folder`,
        );
      }
      expect(fs.existsSync(path.join(root, 'refused.tar.gz'))).toBe(false);
    } finally {
      holder.kill();
      fs.rmSync(path.join(dataDir, LOCK_FILE), { force: true });
    }
  });
});

describe('PostgreSQL (pg_dump / pg_restore)', () => {
  let server: PostgresServer | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL ?? '';
  let url = '';
  beforeAll(async () => {
    if (!serverUrl) {
      const started = await startPostgres(process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin');
      if ('unavailable' in started)
        throw new Error(
          `the PostgreSQL round trip needs PostgreSQL: ${started.unavailable} (or set TEST_DATABASE_URL)`,
        );
      server = started;
      server.createDatabase('ledgerlink_backup');
      serverUrl = server.databaseUrl('ledgerlink_backup');
    }
    const name = `ll_backup_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    url = u.toString();
  }, 60_000);
  afterAll(() => server?.stop());

  it(
    'backs up, is destroyed, restores the same rows, and the app starts on it',
    { timeout: 120_000 },
    async () => {
      const before = await openDatabase({ databaseUrl: url });
      await migrateDatabase(before);
      await addUsers(before, ['ada', 'grace', 'edsger']);

      const file = path.join(root, 'pg.pgdump');
      await backupDatabase({ kind: 'postgres', databaseUrl: url }, file);
      // With an instance connected, restore refuses.
      await expect(restoreDatabase({ kind: 'postgres', databaseUrl: url }, file)).rejects.toThrow(
        /stop every Ledgerlink instance before restoring/,
      );
      // Destroyed: every table gone.
      await before.pool?.query(
        'drop schema public cascade; create schema public; drop schema if exists drizzle cascade',
      );
      await before.close();

      await restoreDatabase({ kind: 'postgres', databaseUrl: url }, file);
      const after = await openDatabase({ databaseUrl: url });
      expect(await usernames(after)).toEqual(['ada', 'grace', 'edsger']);
      await migrateDatabase(after); // nothing left to apply: the migration journal came back too
      await appStartsOn(after);
      await after.close();
    },
  );
});
