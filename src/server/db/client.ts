import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema/index';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Human description for the startup line, without credentials. */
  description: string;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The pg pool (PostgreSQL only), for code that needs a dedicated connection. */
  pool?: pg.Pool;
  /** The embedded database (PGlite only), for its in-process LISTEN. */
  pglite?: PGlite;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));
/** Any constant works; it only has to be the same for every instance of the app. */
const MIGRATION_LOCK_ID = 7_263_011;

export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

function describePostgres(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder for the embedded database; `null` keeps it in memory (tests). */
  dataDir?: string | null;
  /** A PGlite data dump to start from (tests clone a migrated template this way). */
  loadDataDir?: Blob | File;
}

/** Open PostgreSQL when a URL is given, otherwise the embedded PGlite under `<dataDir>/pglite`. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5000,
    });
    pool.on('error', () => {
      // An idle client lost its server: the pool replaces it; queries report their own errors.
    });
    try {
      const client = await pool.connect();
      client.release();
    } catch (error) {
      await pool.end().catch(() => undefined);
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new DatabaseUnavailableError(`cannot connect to the database (${reason || 'no answer'})`);
    }
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return {
      db,
      kind: 'postgres',
      description: describePostgres(options.databaseUrl),
      pool,
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    };
  }
  let dir: string | undefined;
  if (options.dataDir) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    dir = path.join(options.dataDir, 'pglite');
  }
  const client = await PGlite.create(dir, {
    // On the command line, so the data directory's own postgresql.conf is left as initdb wrote it.
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    description: dir ? `PGlite (embedded) at ${dir}` : 'PGlite (in memory)',
    pglite: client,
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

/**
 * PGlite runs PostgreSQL inside this process, and PostgreSQL's default 128 MB of shared buffers is memory the
 * WebAssembly heap takes at start and never gives back (issue 19: a 512 MB VPS). With 16 MB, opening a
 * database of 100,000 invoice-sized rows took 164 MB instead of 281 MB, and reading all of them three times
 * peaked at 322 MB instead of 440 MB; the pages not in the buffers come from the operating system's file
 * cache, and repeated reads are answered from the serialised-body cache (src/server/lib/body-cache.ts). 8 MB
 * took the memory bench's peak (10 organisations × 10,000 invoices, bench/memory-profile.ts) from 295–304 MB to
 * 280–289 MB, with the same requests answered under the load.
 */
const PGLITE_SHARED_BUFFERS = '8MB';

/**
 * Apply pending migrations. On PostgreSQL they run under an advisory lock held on one dedicated
 * connection, so two instances starting together apply them once, one after the other.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as unknown as Parameters<typeof migratePglite>[0], {
      migrationsFolder: MIGRATIONS_FOLDER,
    });
    return;
  }
  const pool = database.pool;
  if (!pool) throw new Error('PostgreSQL database without a pool');
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
}

/** True when the database answers. */
export async function isDatabaseReady(database: Database): Promise<boolean> {
  try {
    await database.db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
