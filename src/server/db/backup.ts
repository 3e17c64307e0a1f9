/**
 * Backup and restore of Ledgerlink's database (docs/operations.md "Backups"): `npm run db:backup` and `npm run db:restore`.
 *
 * - Embedded PGlite (no DATABASE_URL): a gzip'd tar of the data folder from PGlite's dumpDataDir, taken with
 *   DATA_DIR's lock held, so it refuses while a server uses the folder (two PGlite instances on one folder
 *   overwrite each other). Restore never deletes: the folder it replaces is kept beside it.
 * - PostgreSQL (DATABASE_URL): pg_dump's custom format and pg_restore, from Debian's postgresql package;
 *   restore refuses while other sessions are connected to the database (stop every instance first).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { lockDataDir } from '../lib/data-dir-lock';
import { migrateDatabase, openDatabase } from './client';
import {
  ledgerRestores,
  xeroSyncState,
  xeroWebhookFeed,
  xeroWebhookHealth,
  xeroWebhookRanges,
} from './schema/index';

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export type BackupTarget = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; databaseUrl: string };

/** `ledgerlink-<kind>-20261124T053000Z.<ext>` under `dir`. */
export function defaultBackupFile(target: BackupTarget, dir: string, at = new Date()): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return path.join(
    dir,
    `ledgerlink-${target.kind}-${stamp}.${target.kind === 'pglite' ? 'tar.gz' : 'pgdump'}`,
  );
}

const pgliteDir = (dataDir: string) => path.join(dataDir, 'pglite');

/** Runs `work` with DATA_DIR's lock, the one a server takes at start (src/server/lib/data-dir-lock.ts). */
async function withDataDirLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const lock = lockDataDir(dataDir);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** The newest PostgreSQL client tool of that name: on PATH, or in Debian's /usr/lib/postgresql/<n>/bin. */
export function findPgTool(name: 'pg_dump' | 'pg_restore'): string {
  const onPath = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (onPath.status === 0) return name;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const first = versions[0];
  if (!first)
    throw new BackupError(
      `${name} is not installed: install Debian's postgresql-client package (apt-get install -y postgresql-client), at least the server's version`,
    );
  return path.join(root, first, 'bin', name);
}

function runTool(tool: string, args: string[]): void {
  const result = spawnSync(tool, args, { encoding: 'utf8' });
  if (result.error) throw new BackupError(`${path.basename(tool)} could not run: ${result.error.message}`);
  if (result.status !== 0) {
    // Their messages can quote the connection string: keep only the lines without a password in them.
    const detail = (result.stderr || result.stdout || '')
      .split('\n')
      .filter((l) => l.trim() && !/password|postgres(ql)?:\/\//i.test(l))
      .slice(-3)
      .join('; ');
    throw new BackupError(`${path.basename(tool)} failed${detail ? `: ${detail}` : ''}`);
  }
}

/** Writes a backup of `target` to `file` (its folder is created); returns the file's size in bytes. */
export async function backupDatabase(target: BackupTarget, file: string): Promise<number> {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const partial = `${file}.partial`;
  if (target.kind === 'pglite') {
    const dir = pgliteDir(target.dataDir);
    if (!fs.existsSync(dir))
      throw new BackupError(
        `there is no embedded database under DATA_DIR ${target.dataDir} (nothing to back up)`,
      );
    await withDataDirLock(target.dataDir, async () => {
      const db = await PGlite.create(dir);
      try {
        const dump = await db.dumpDataDir('gzip');
        fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      } finally {
        await db.close();
      }
    });
  } else {
    runTool(findPgTool('pg_dump'), [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--file=${partial}`,
      `--dbname=${target.databaseUrl}`,
    ]);
  }
  fs.renameSync(partial, file);
  return fs.statSync(file).size;
}

/**
 * Notes in the restored database that it was restored (table ledger_restores, issue 28 item 4): it does not
 * know the writes made after the backup was taken, so for a while the write ledger looks a caller's unknown
 * key up in Xero before sending it. Nor does it hold the webhook deliveries since the backup: live updates start
 * again from the restore, so no cached view is trusted as live until it has been read from Xero once. Migrates first (an older backup may predate the table), as a start would.
 */
async function recordRestore(target: BackupTarget, file: string): Promise<void> {
  const work = async () => {
    const database = await openDatabase(
      target.kind === 'pglite' ? { dataDir: target.dataDir } : { databaseUrl: target.databaseUrl },
    );
    try {
      await migrateDatabase(database);
      await database.db.transaction(async (tx) => {
        await tx.insert(ledgerRestores).values({ backupFile: path.basename(file) });
        // The webhook deliveries that came after the backup are not in it, nor are the changes they named: the
        // stream starts again whole from the restore, and every cached view is read from Xero once before the
        // cache is trusted as live again (as when a gap is given up: docs/decisions/018-webhooks.md).
        await tx.delete(xeroWebhookRanges);
        await tx.delete(xeroWebhookHealth);
        await tx.update(xeroWebhookFeed).set({ firstDeliveryAt: new Date(), sequenceDone: null });
        // Nor does it hold what Xero changed since the backup, the app's own writes included (drafts approved,
        // bills approved or deleted): every cached view is asked once what changed since its high-water mark
        // (kept) before it answers again, so no screen lists a document as Xero held it at the backup. No
        // instance runs during a restore: a read that held a view's lease at the backup is gone, and the first
        // read after the restore does not wait for its lease to run out.
        await tx.update(xeroSyncState).set({ lastSyncAt: null, leaseUntil: null });
      });
    } finally {
      await database.close();
    }
  };
  if (target.kind === 'pglite') await withDataDirLock(target.dataDir, work);
  else await work();
}

/**
 * Replaces the database of `target` with the backup in `file`, and records the restore in it. PGlite: the
 * current folder is moved to `pglite.before-restore-<time>` (returned) and kept. PostgreSQL: objects are
 * dropped and recreated from the dump in one transaction.
 */
export async function restoreDatabase(target: BackupTarget, file: string): Promise<{ keptAside?: string }> {
  const restored = await replaceDatabase(target, file);
  await recordRestore(target, file);
  return restored;
}

async function replaceDatabase(target: BackupTarget, file: string): Promise<{ keptAside?: string }> {
  if (!fs.existsSync(file)) throw new BackupError(`no backup file at ${file}`);
  if (target.kind === 'pglite') {
    return withDataDirLock(target.dataDir, async () => {
      const dir = pgliteDir(target.dataDir);
      let keptAside: string | undefined;
      if (fs.existsSync(dir)) {
        keptAside = `${dir}.before-restore-${new Date()
          .toISOString()
          .replace(/[-:]/g, '')
          .replace(/\.\d+Z$/, 'Z')}`;
        fs.renameSync(dir, keptAside);
      }
      try {
        const db = await PGlite.create(dir, { loadDataDir: new Blob([fs.readFileSync(file)]) });
        try {
          await db.query('select 1');
        } finally {
          await db.close();
        }
      } catch (error) {
        // Not a PGlite backup (or damaged): put the old folder back as it was.
        fs.rmSync(dir, { recursive: true, force: true });
        if (keptAside) fs.renameSync(keptAside, dir);
        throw new BackupError(
          `${file} is not a usable Ledgerlink embedded-database backup (${error instanceof Error ? error.message : String(error)})`,
        );
      }
      return keptAside ? { keptAside } : {};
    });
  }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  try {
    await client.connect();
  } catch (error) {
    throw new BackupError(
      `cannot connect to the database (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  }
  try {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    const others = Number(rows[0]?.n ?? 0);
    if (others > 0)
      throw new BackupError(
        `${others} other session(s) are connected to this database: stop every Ledgerlink instance before restoring`,
      );
  } finally {
    await client.end();
  }
  runTool(findPgTool('pg_restore'), [
    '--clean',
    '--if-exists',
    '--no-owner',
    '--no-privileges',
    '--single-transaction',
    '--exit-on-error',
    `--dbname=${target.databaseUrl}`,
    file,
  ]);
  return {};
}
