/** `npm run sandbox`: the Xero sandbox on its own (SANDBOX_PORT, DATA_DIR/sandbox, SANDBOX_SCALE, SANDBOX_SEED). */
import path from 'node:path';
import { startSandbox } from './sandbox.ts';

const env = process.env;
const sandbox = await startSandbox({
  host: env.SANDBOX_HOST ?? '127.0.0.1',
  port: Number(env.SANDBOX_PORT ?? 5055),
  dataDir: path.join(env.DATA_DIR ?? './data', 'sandbox'),
  scale: Number(env.SANDBOX_SCALE ?? 1),
  seed: Number(env.SANDBOX_SEED ?? 1),
  clients: [
    {
      clientId: 'ledgerlink-demo',
      clientSecret: env.SANDBOX_CLIENT_SECRET ?? 'demo-secret',
      redirectUris: (env.SANDBOX_REDIRECT_URIS ?? 'http://localhost:5000/api/xero/callback,http://localhost:5000/api/auth/xero/callback')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    },
  ],
});

const info = sandbox.info();
console.log(`Xero sandbox listening on ${sandbox.url} (issuer; discovery at ${sandbox.url}/.well-known/openid-configuration)`);
console.log(`Client: ledgerlink-demo. Organisations: ${info.orgs.map((o) => `${o.name} (${o.tenantId})`).join(', ')}`);
console.log(`Users: ${info.users.map((u) => u.email).join(', ')}`);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
