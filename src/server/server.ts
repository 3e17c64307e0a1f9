import { buildApp } from './app';
import type { XeroEndpoints } from './xero/endpoints';
import { ConfigError, loadConfig, type ServerConfig } from './config/env';
import { DatabaseUnavailableError, migrateDatabase, openDatabase, type Database } from './db/client';
import { prepareDemo, readDemoSetup, startDemoSandbox, writeDemoSetup } from './demo';
import { startDemoHmrcSandbox, type DemoHmrcSandbox } from './hmrc-demo';
import { DataDirInUseError, lockDataDir } from './lib/data-dir-lock';
import { createPrettyStream, requestsAtDebug } from './lib/logger';
import { createUsersRepository } from './modules/auth/auth.repository';
import { ensureBootstrapAdmin } from './modules/auth/auth.service';

function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'http:' &&
    (hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname))
  );
}

/** Print one clear line and stop: a bad configuration never ends in a stack trace. */
function fail(message: string): never {
  process.stderr.write(`ledgerlink: ${message}\n`);
  process.exit(1);
}

async function main() {
  let config: ServerConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }

  // The embedded database and the demo's sandbox live in DATA_DIR: one server per folder.
  if (!config.databaseUrl || config.xeroMode === 'demo') {
    try {
      lockDataDir(config.dataDir);
    } catch (error) {
      if (error instanceof DataDirInUseError) fail(error.message);
      fail(
        `cannot use DATA_DIR ${config.dataDir} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof DatabaseUnavailableError)
      fail(`Invalid configuration: DATABASE_URL ${error.message}`);
    fail(
      `cannot open the embedded database under DATA_DIR (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  await migrateDatabase(database);

  let xero: XeroEndpoints;
  let sandbox: Awaited<ReturnType<typeof startDemoSandbox>> | undefined;
  let hmrcSandbox: DemoHmrcSandbox | undefined;
  if (config.xeroMode === 'live') {
    xero = {
      issuer: config.xero.issuer,
      apiUrl: config.xero.apiUrl,
      clientId: config.xero.clientId ?? '',
      clientSecret: config.xero.clientSecret ?? '',
      scopes: config.xero.scopes,
      // Plain http only to this machine (the sandbox run on its own by `npm run sandbox`); Xero itself is https.
      allowInsecureRequests: isLoopbackHttp(config.xero.issuer),
    };
  } else {
    try {
      sandbox = await startDemoSandbox(config);
    } catch (error) {
      fail(
        `cannot start the built-in Xero sandbox on port ${config.sandbox.port} (SANDBOX_PORT): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    xero = sandbox.endpoints;
  }
  // Demo mode files with the built-in HMRC unless HMRC_ENDPOINT names another (issue 43).
  if (config.hmrc.endpoint === 'sandbox') {
    try {
      hmrcSandbox = await startDemoHmrcSandbox(config);
    } catch (error) {
      fail(
        `cannot start the built-in HMRC sandbox on port ${config.hmrc.sandboxPort} (HMRC_SANDBOX_PORT): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  // Printed only once the server listens: a start that fails on a taken port shows no password.
  const created: string[] = [];
  const demoCredentials = await ensureBootstrapAdmin({
    users: createUsersRepository(database.db),
    admin: config.admin,
    demo: config.xeroMode === 'demo',
    dataDir: config.dataDir,
    print: (line) => created.push(line),
  });
  if (sandbox && demoCredentials && created.length > 0) writeDemoSetup(config.dataDir, 'pending');
  const setup = sandbox && demoCredentials ? readDemoSetup(config.dataDir) : undefined;

  const app = await buildApp({
    config,
    database,
    xero,
    hmrc: hmrcSandbox ? { submissionUrl: hmrcSandbox.submissionUrl, kind: 'sandbox' } : undefined,
    demoCredentials,
    logger: {
      // Demo mode: the terminal keeps the ready line and the password; LOG_LEVEL=debug shows each request.
      ...(config.xeroMode === 'demo' ? { hooks: requestsAtDebug } : {}),
      // A person at a terminal reads lines; a pipe or a file keeps pino's JSON.
      ...(process.stdout.isTTY ? { stream: createPrettyStream(process.stdout) } : {}),
    },
  });

  // Demo mode's first start: both organisations connected, every feature on and the Settings defaults chosen,
  // through the app's own routes.
  let demoLine: string | undefined;
  if (sandbox && demoCredentials && setup?.state === 'pending') {
    try {
      const names = await prepareDemo({
        app,
        sandbox,
        credentials: demoCredentials,
        appUrl: config.appUrl,
        dataDir: config.dataDir,
        hmrc: hmrcSandbox,
      });
      demoLine = `Demo ready: ${names.join(' and ')} connected, every feature switched on, Settings defaults chosen`;
    } catch (error) {
      demoLine = `Demo not prepared (${error instanceof Error ? error.message : String(error)}): connect the organisations from the Organizations page switch the features on under Settings → Admin and choose the defaults in Settings`;
    }
  } else if (setup?.state === 'connected') {
    // Prepared by a start that then could not listen: say so now.
    demoLine = `Demo ready: ${setup.organizations.join(' and ')} connected, every feature switched on, Settings defaults chosen`;
  }

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    fail(
      `cannot listen on ${config.host}:${config.port} (PORT/HOST): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // Demo mode: the sandbox now sends its webhooks to this app, as Xero would (intent to receive first).
  sandbox?.startWebhooks();
  const xeroLine = sandbox ? `demo (built-in sandbox at ${sandbox.url})` : `live (${config.xero.issuer})`;
  process.stdout.write(
    `Ledgerlink ready on ${config.appUrl} · database: ${database.description} · Xero: ${xeroLine}\n`,
  );
  if (demoLine) process.stdout.write(`${demoLine}\n`);
  if (demoCredentials && setup && setup.state !== 'ready') {
    process.stdout.write(
      `Demo administrator: username "${demoCredentials.username}", password "${demoCredentials.password}" (shown once; the sign-in page's "Try the demo" button signs in with it)\n`,
    );
    writeDemoSetup(config.dataDir, 'ready');
  }

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
      await hmrcSandbox?.close();
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
