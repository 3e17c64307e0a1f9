/**
 * `npm run db:migrate`: applies pending migrations to the configured database and stops (servers also do it
 * at start, under an advisory lock on PostgreSQL). The embedded database is migrated only with DATA_DIR's
 * lock, so never under a running server.
 */
import { ConfigError, loadConfig } from '../config/env';
import { DataDirInUseError, lockDataDir } from '../lib/data-dir-lock';
import { DatabaseUnavailableError, migrateDatabase, openDatabase } from './client';

function fail(message: string): never {
  process.stderr.write(`ledgerlink: ${message}\n`);
  process.exit(1);
}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  let lock: { release: () => void } | undefined;
  if (!config.databaseUrl) {
    try {
      lock = lockDataDir(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirInUseError) fail(`cannot migrate while a server uses it: ${error.message}`);
      throw error;
    }
  }
  try {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }).catch(
      (error: unknown) => {
        if (error instanceof DatabaseUnavailableError)
          fail(`Invalid configuration: DATABASE_URL ${error.message}`);
        throw error;
      },
    );
    await migrateDatabase(database);
    await database.close();
    process.stdout.write(`Migrated ${database.description}\n`);
  } finally {
    lock?.release();
  }
}

void main().catch((error: unknown) =>
  fail(`migration failed: ${error instanceof Error ? error.message : String(error)}`),
);
