/**
 * `npm run db:backup [-- <file>]` and `npm run db:restore -- <file>`: the database named by the configuration
 * (DATABASE_URL, else the embedded one under DATA_DIR). One line on success, one clear line on failure.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/env';
import { DataDirInUseError } from '../lib/data-dir-lock';
import { backupDatabase, BackupError, defaultBackupFile, restoreDatabase, type BackupTarget } from './backup';

function fail(message: string): never {
  process.stderr.write(`ledgerlink: ${message}\n`);
  process.exit(1);
}

async function main() {
  const [command, fileArg] = process.argv.slice(2);
  if (command !== 'backup' && command !== 'restore')
    fail('usage: backup-cli.ts backup [file] | restore <file>');
  let target: BackupTarget;
  try {
    const config = loadConfig();
    target = config.databaseUrl
      ? { kind: 'postgres', databaseUrl: config.databaseUrl }
      : { kind: 'pglite', dataDir: config.dataDir };
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const where =
    target.kind === 'pglite'
      ? `the embedded database under ${target.dataDir}`
      : 'the PostgreSQL database of DATABASE_URL';
  try {
    if (command === 'backup') {
      const file = path.resolve(fileArg ?? defaultBackupFile(target, path.resolve('backups')));
      const bytes = await backupDatabase(target, file);
      process.stdout.write(`Backed up ${where} to ${file} (${(bytes / 1024).toFixed(0)} KB)\n`);
      return;
    }
    if (!fileArg) fail('usage: npm run db:restore -- <backup file>');
    const file = path.resolve(fileArg);
    const { keptAside } = await restoreDatabase(target, file);
    process.stdout.write(
      `Restored ${where} from ${file}${keptAside ? `; the database it replaced is kept at ${keptAside}` : ''}\n`,
    );
  } catch (error) {
    if (error instanceof DataDirInUseError)
      fail(`cannot ${command} while a server uses it: ${error.message}`);
    if (error instanceof BackupError) fail(`${command} failed: ${error.message}`);
    throw error;
  }
}

void main().catch((error: unknown) =>
  fail(`failed: ${error instanceof Error ? error.message : String(error)}`),
);
