import { buildApp, type XeroEndpoints } from './app';
import { ConfigError, loadConfig, type AppConfig } from './config/env';
import { DatabaseUnavailableError, migrateDatabase, openDatabase, type Database } from './db/client';
import { startDemoSandbox } from './demo';
import { createUsersRepository } from './modules/auth/auth.repository';
import { ensureBootstrapAdmin } from './modules/auth/auth.service';

/** Print one clear line and stop: a bad configuration never ends in a stack trace. */
function fail(message: string): never {
  process.stderr.write(`ledgerlink: ${message}\n`);
  process.exit(1);
}

async function main() {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }

  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) fail(`Invalid configuration: DATABASE_URL ${error.message}`);
    fail(`cannot open the embedded database under DATA_DIR (${error instanceof Error ? error.message : String(error)})`);
  }
  await migrateDatabase(database);

  let xero: XeroEndpoints;
  let sandbox: Awaited<ReturnType<typeof startDemoSandbox>> | undefined;
  if (config.xeroMode === 'live') {
    xero = {
      issuer: config.xero.issuer,
      apiUrl: config.xero.apiUrl,
      clientId: config.xero.clientId ?? '',
      clientSecret: config.xero.clientSecret ?? '',
      scopes: config.xero.scopes,
      allowInsecureRequests: false,
    };
  } else {
    try {
      sandbox = await startDemoSandbox(config);
    } catch (error) {
      fail(`cannot start the built-in Xero sandbox on port ${config.sandbox.port} (SANDBOX_PORT): ${error instanceof Error ? error.message : String(error)}`);
    }
    xero = sandbox.endpoints;
  }

  const demoCredentials = await ensureBootstrapAdmin({
    users: createUsersRepository(database.db),
    admin: config.admin,
    demo: config.xeroMode === 'demo',
    dataDir: config.dataDir,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  const app = await buildApp({ config, database, xero, demoCredentials });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    fail(`cannot listen on ${config.host}:${config.port} (PORT/HOST): ${error instanceof Error ? error.message : String(error)}`);
  }
  const xeroLine = sandbox ? `demo (built-in sandbox at ${sandbox.url})` : `live (${config.xero.issuer})`;
  process.stdout.write(`Ledgerlink ready on ${config.appUrl} · database: ${database.description} · Xero: ${xeroLine}\n`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    try {
      await app.close();
      await sandbox?.close();
      await database.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

void main().catch((error: unknown) => {
  fail(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
});
