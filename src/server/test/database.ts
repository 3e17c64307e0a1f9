import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { MIGRATIONS_FOLDER, migrateDatabase, openDatabase, type Database } from '../db/client';

/** Fingerprint of the migrations, so a cached template is rebuilt when they change. */
function migrationsHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_FOLDER).sort()) {
    if (file.endsWith('.sql')) hash.update(fs.readFileSync(path.join(MIGRATIONS_FOLDER, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

let templatePromise: Promise<Blob> | undefined;

/**
 * A migrated PGlite dump, built once per migration set and shared by every test worker through a file:
 * opening a dump costs well under a second where migrating a new database costs several seconds
 * (docs/toolchain.md). A plain tar, not gzip: 42 MB on disk, but each of the suite's many opens then skips
 * unzipping it (0.73 s of CPU an open instead of 1.17 s, measured over five opens).
 */
function pgliteTemplate(): Promise<Blob> {
  templatePromise ??= (async () => {
    const file = path.join(os.tmpdir(), `ledgerlink-pglite-template-${migrationsHash()}.tar`);
    if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
    const database = await openDatabase({ dataDir: null });
    await migrateDatabase(database);
    const raw = (database as unknown as { db: { $client: PGlite } }).db.$client;
    const dump = await raw.dumpDataDir('none');
    await database.close();
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(tmp, file);
    return dump;
  })();
  return templatePromise;
}

export interface TestDatabase extends Database {
  /** PostgreSQL: the database's URL, for a second instance's own connections. */
  url?: string;
  /** Drops the database (PostgreSQL) or closes it (PGlite). */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the
 * PostgreSQL server named by TEST_DATABASE_URL (so the same suite runs on both).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const name = `ll_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
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
      url: url.toString(),
      async destroy() {
        await database.close();
        const dropper = new pg.Client({ connectionString: serverUrl });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  const database = await openDatabase({ dataDir: null, loadDataDir: await pgliteTemplate() });
  return { ...database, destroy: () => database.close() };
}
