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
 * A migrated PGlite dump, built once per migration set and shared by every test worker through a file
 * (`loadDataDir` of a PGlite in memory, or of one under a DATA_DIR that does not exist yet):
 * opening a dump costs well under a second where migrating a new database costs several seconds
 * (docs/toolchain.md). A plain tar, not gzip: 42 MB on disk, but each of the suite's many opens then skips
 * unzipping it (0.73 s of CPU an open instead of 1.17 s, measured over five opens).
 */
export function pgliteTemplate(): Promise<Blob> {
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

/**
 * On PostgreSQL, the same idea: a migrated template database per migration set, `ll_template_<hash>` on the
 * server of TEST_DATABASE_URL, that each test database is cloned from (CREATE DATABASE … TEMPLATE): 0.2 s a
 * database instead of 0.8 s creating and migrating one (five of each, one after the other). Built under a
 * temporary name and renamed when complete, so a worker never clones a half-migrated one; nothing connects to
 * it afterwards, as cloning requires.
 */
const pgTemplates = new Map<string, Promise<string>>();
function postgresTemplate(serverUrl: string): Promise<string> {
  let template = pgTemplates.get(serverUrl);
  if (!template) {
    template = (async () => {
      const name = `ll_template_${migrationsHash()}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        const exists = async () =>
          (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
        if (await exists()) return name;
        const building = `${name}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        const url = new URL(serverUrl);
        url.pathname = `/${building}`;
        const database = await openDatabase({ databaseUrl: url.toString() });
        await migrateDatabase(database);
        await database.close();
        try {
          await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } catch (error) {
          // Another worker finished its template first: use that one.
          await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
          if (!(await exists())) throw error;
        }
        return name;
      } finally {
        await admin.end();
      }
    })();
    pgTemplates.set(serverUrl, template);
  }
  return template;
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
    const template = await postgresTemplate(serverUrl);
    const name = `ll_test_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString() });
    await migrateDatabase(database); // nothing to do on a clone of the template; kept as a check
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

/**
 * Takes the database's state now (every row of the app's tables and where each sequence stands) and returns
 * a function that puts it back: for a suite that starts many worlds, each on a database just as it was
 * created, without paying for a new one each time (an open from the PGlite template is ~0.7 s of CPU, a
 * clone of the PostgreSQL template ~0.2 s). Tables are emptied with TRUNCATE and their saved rows inserted
 * again, sequences set back; drizzle's record of the migrations is left as it is.
 */
export async function snapshotDatabase(database: Database): Promise<() => Promise<void>> {
  const rows = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    if (database.pglite) return (await database.pglite.query<T>(text, params)).rows;
    if (!database.pool) throw new Error('PostgreSQL database without a pool');
    return (await database.pool.query(text, params)).rows as T[];
  };
  const ident = (schema: string, name: string) =>
    `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
  const tables = (
    await rows<{ schemaname: string; tablename: string }>(
      `select schemaname, tablename from pg_tables where schemaname not in ('pg_catalog', 'information_schema', 'drizzle') order by 1, 2`,
    )
  ).map((t) => ident(t.schemaname, t.tablename));
  const saved: Array<{ table: string; json: string }> = [];
  for (const table of tables) {
    const [row] = await rows<{ json: string | null }>(`select json_agg(t)::text as json from ${table} t`);
    if (row?.json) saved.push({ table, json: row.json });
  }
  const sequences = await rows<{ name: string; value: string; called: boolean }>(
    `select format('%I.%I', schemaname, sequencename) as name, coalesce(last_value, start_value)::text as value,
            last_value is not null as called
       from pg_sequences where schemaname not in ('pg_catalog', 'information_schema', 'drizzle')`,
  );
  return async () => {
    if (tables.length > 0) await rows(`truncate ${tables.join(', ')} cascade`);
    for (const { table, json } of saved)
      await rows(
        `insert into ${table} overriding system value select * from json_populate_recordset(null::${table}, $1::json)`,
        [json],
      );
    for (const s of sequences)
      await rows('select setval($1::regclass, $2::bigint, $3)', [s.name, s.value, s.called]);
  };
}
