/**
 * `npm run sandbox`: the Xero sandbox on its own (SANDBOX_PORT, DATA_DIR/sandbox, SANDBOX_SCALE, SANDBOX_SEED,
 * SANDBOX_CLIENTS).
 */
import path from 'node:path';
import { loadSandboxConfig, SandboxConfigError } from './config';
import { startSandbox } from './sandbox';

/** One clear line and stop, as the server does: a bad setting or a taken port never ends in a stack trace. */
function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n`);
  process.exit(1);
}

let config: ReturnType<typeof loadSandboxConfig>;
try {
  config = loadSandboxConfig();
} catch (error) {
  if (error instanceof SandboxConfigError) fail(error.message);
  throw error;
}

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
try {
  sandbox = await startSandbox({
    host: config.host,
    port: config.port,
    dataDir: path.join(config.dataDir, 'sandbox'),
    scale: config.scale,
    seed: config.seed,
    practiceClients: config.practiceClients,
    clients: [
      { clientId: 'ledgerlink-demo', clientSecret: config.clientSecret, redirectUris: config.redirectUris },
    ],
  });
} catch (error) {
  fail(
    `cannot start on ${config.host}:${config.port} (SANDBOX_HOST/SANDBOX_PORT): ${error instanceof Error ? error.message : String(error)}`,
  );
}

const info = sandbox.info();
console.log(
  `Xero sandbox listening on ${sandbox.url} (issuer; discovery at ${sandbox.url}/.well-known/openid-configuration)`,
);
console.log(
  `Client: ledgerlink-demo. Organisations: ${info.orgs.map((o) => `${o.name} (${o.tenantId})`).join(', ')}`,
);
console.log(`Users: ${info.users.map((u) => u.email).join(', ')}`);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
