import path from 'node:path';
import { z } from 'zod';

/** `npm run sandbox`'s variables. A bad value stops it with one line naming the variable, as the server does. */
const WHOLE_PORT = 'must be a whole number from 0 to 65535';
const POSITIVE = 'must be a positive whole number';
const CLIENTS = 'must be a whole number from 0 to 1000';

const schema = z.object({
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_PORT: z.coerce
    .number({ error: WHOLE_PORT })
    .int(WHOLE_PORT)
    .min(0, WHOLE_PORT)
    .max(65535, WHOLE_PORT)
    .default(5055),
  SANDBOX_SCALE: z.coerce.number({ error: POSITIVE }).int(POSITIVE).positive(POSITIVE).default(1),
  SANDBOX_SEED: z.coerce.number({ error: POSITIVE }).int(POSITIVE).positive(POSITIVE).default(1),
  SANDBOX_CLIENTS: z.coerce
    .number({ error: CLIENTS })
    .int(CLIENTS)
    .min(0, CLIENTS)
    .max(1000, CLIENTS)
    .default(0),
  DATA_DIR: z.string().min(1).default('./data'),
  SANDBOX_CLIENT_SECRET: z.string().min(1).default('demo-secret'),
  SANDBOX_REDIRECT_URIS: z
    .string()
    .default('http://localhost:5000/api/xero/callback,http://localhost:5000/api/auth/xero/callback'),
});

export class SandboxConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`Invalid configuration: ${variable} ${reason}`);
    this.name = 'SandboxConfigError';
  }
}

export function loadSandboxConfig(source: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const raw = source[variable];
    const got =
      raw === undefined || variable === 'SANDBOX_CLIENT_SECRET'
        ? ''
        : ` (got "${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}")`;
    throw new SandboxConfigError(variable, `${issue?.message ?? 'is invalid'}${got}`);
  }
  const env = parsed.data;
  return {
    host: env.SANDBOX_HOST,
    port: env.SANDBOX_PORT,
    scale: env.SANDBOX_SCALE,
    seed: env.SANDBOX_SEED,
    practiceClients: env.SANDBOX_CLIENTS,
    dataDir: path.resolve(env.DATA_DIR),
    clientSecret: env.SANDBOX_CLIENT_SECRET,
    redirectUris: env.SANDBOX_REDIRECT_URIS.split(',')
      .map((u) => u.trim())
      .filter(Boolean),
  };
}
