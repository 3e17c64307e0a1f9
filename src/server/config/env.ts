import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable Ledgerlink reads, parsed once at start. `.env.example` documents each one;
 * a bad value stops the process with one line naming the variable (see `formatConfigError`).
 */
const booleanish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a whole number from 0 to 65535' })
    .int('must be a whole number from 0 to 65535')
    .min(0, 'must be a whole number from 0 to 65535')
    .max(65535, 'must be a whole number from 0 to 65535')
    .default(fallback);

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a positive whole number' })
    .int('must be a positive whole number')
    .positive('must be a positive whole number')
    .default(fallback);

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const DEFAULT_XERO_SCOPES =
  'openid profile email offline_access accounting.invoices accounting.payments accounting.manualjournals accounting.settings accounting.contacts accounting.attachments';

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port(5000),
    HOST: z.string().min(1).default('localhost'),
    APP_URL: optionalText.pipe(
      z.url({ error: 'must be a URL such as https://ledgerlink.example.com' }).optional(),
    ),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: optionalText.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
        .optional(),
    ),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: booleanish.default(false),
    BODY_LIMIT_BYTES: positiveInt(1_048_576),
    SESSION_IDLE_TIMEOUT_MINUTES: positiveInt(120),
    SESSION_ABSOLUTE_TIMEOUT_HOURS: positiveInt(12),
    TOKEN_ENCRYPTION_KEY: optionalText.pipe(
      z
        .string()
        .refine(
          (v) => Buffer.from(v, 'base64').length === 32,
          'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
        )
        .optional(),
    ),
    ADMIN_USERNAME: optionalText,
    ADMIN_PASSWORD: optionalText,
    REQUIRE_MFA_FOR_ADMINS: booleanish.default(false),
    // New accounts one address may create in an hour (POST /api/register; README "Configuration").
    REGISTRATIONS_PER_HOUR: positiveInt(20),
    // How often each signed-in user's Xero connections are read, so a revoke or a disconnect made in Xero shows
    // without anyone acting (issue 45; README "Configuration").
    XERO_CONNECTIONS_CHECK_SECONDS: positiveInt(120),
    XERO_CLIENT_ID: optionalText,
    XERO_CLIENT_SECRET: optionalText,
    XERO_SCOPES: z.string().min(1).default(DEFAULT_XERO_SCOPES),
    XERO_ISSUER: z.url().default('https://identity.xero.com'),
    XERO_API_URL: z.url().default('https://api.xero.com'),
    // The signing key of the app's webhook in Xero's developer portal (docs/decisions/018-webhooks.md).
    XERO_WEBHOOK_KEY: optionalText.pipe(
      z.string().min(16, "must be the webhook key shown in Xero's developer portal").optional(),
    ),
    SANDBOX_PORT: port(5055),
    SANDBOX_SCALE: positiveInt(1),
    SANDBOX_SEED: positiveInt(1),
    // Demo mode: client organisations for the demo's owner beside the two demo ones, a practice's book (issue 47).
    SANDBOX_CLIENTS: z.coerce
      .number({ error: 'must be a whole number from 0 to 1000' })
      .int('must be a whole number from 0 to 1000')
      .min(0, 'must be a whole number from 0 to 1000')
      .max(1000, 'must be a whole number from 0 to 1000')
      .default(0),
    // Attachment bytes kept in the database, in MB (decimals allowed); 0 = none kept, every view downloads.
    ATTACHMENT_STORE_MB: z
      .string()
      .trim()
      .refine(
        (v) => /^[0-9.]+$/.test(v) && Number(v) >= 0 && Number(v) <= 1_000_000,
        'must be a number of megabytes from 0 (the attachment store off) to 1000000',
      )
      .default('256')
      .transform(Number),
    // Filing with HMRC (issue 43, docs/hmrc.md): HMRC's Transaction Engine, `test`, `live` or a URL (a sandbox);
    // unset: the built-in HMRC sandbox in demo mode, no filing in live mode.
    HMRC_ENDPOINT: optionalText.pipe(
      z
        .string()
        .refine(
          (v) => v === 'test' || v === 'live' || /^https?:\/\/[^\s]+$/.test(v),
          'must be test, live or the URL of a Transaction Engine (https://…/submission)',
        )
        .optional(),
    ),
    // The software's vendor ID from HMRC's Software Developer Support Team (4 digits).
    HMRC_VENDOR_ID: optionalText.pipe(
      z
        .string()
        .regex(/^[0-9]{4}$/, 'must be the 4-digit vendor ID HMRC issued')
        .optional(),
    ),
    // Test submissions (GatewayTest 1): validated and answered by HMRC, never processed. Default: on except live.
    HMRC_GATEWAY_TEST: booleanish.optional(),
    // Demo mode's built-in HMRC sandbox; 0 = a free port.
    HMRC_SANDBOX_PORT: port(0),
    // Statements and reminders by email (issue 43): smtp://user:password@host:587 or smtps://…:465; unset: demo
    // mode keeps mail in its outbox (/outbox), live mode sends none.
    SMTP_URL: optionalText.pipe(
      z
        .string()
        .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
        .optional(),
    ),
    MAIL_FROM: optionalText,
    // Operations (docs/operations.md "Metrics"): GET /metrics, off by default, behind a bearer token when on.
    METRICS_ENABLED: booleanish.default(false),
    METRICS_TOKEN: optionalText.pipe(
      z.string().min(16, 'must be at least 16 characters (openssl rand -hex 24)').optional(),
    ),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.XERO_CLIENT_ID) !== Boolean(env.XERO_CLIENT_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.XERO_CLIENT_ID ? 'XERO_CLIENT_SECRET' : 'XERO_CLIENT_ID'],
        message: `is not set, but ${env.XERO_CLIENT_ID ? 'XERO_CLIENT_ID' : 'XERO_CLIENT_SECRET'} is: set both for live Xero, or neither for demo mode`,
      });
    }
    if (env.XERO_CLIENT_ID && !env.TOKEN_ENCRYPTION_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['TOKEN_ENCRYPTION_KEY'],
        message: 'is required with live Xero keys (openssl rand -base64 32)',
      });
    }
    // A sandbox on this machine takes any vendor ID; HMRC's own endpoints need the one it issued.
    if (
      env.HMRC_ENDPOINT &&
      !env.HMRC_VENDOR_ID &&
      !/^http:\/\/(127\.|localhost|\[::1\])/.test(env.HMRC_ENDPOINT)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['HMRC_VENDOR_ID'],
        message:
          "is required with HMRC_ENDPOINT: the 4-digit vendor ID HMRC's Software Developer Support Team issued",
      });
    }
    if (env.METRICS_ENABLED && !env.METRICS_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_TOKEN'],
        message:
          'is required with METRICS_ENABLED=true, so the metrics are not public (openssl rand -hex 24)',
      });
    }
    if (Boolean(env.ADMIN_USERNAME) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.ADMIN_USERNAME ? 'ADMIN_PASSWORD' : 'ADMIN_USERNAME'],
        message: `is not set, but ${env.ADMIN_USERNAME ? 'ADMIN_USERNAME' : 'ADMIN_PASSWORD'} is: set both to create the first administrator, or neither`,
      });
    }
  });

export type RawEnv = z.infer<typeof envSchema>;

export interface ServerConfig {
  env: RawEnv['NODE_ENV'];
  port: number;
  host: string;
  /** The origin users reach the app on; used for OAuth redirect URIs and the same-origin check. */
  appUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  logLevel: RawEnv['LOG_LEVEL'];
  trustProxy: boolean;
  bodyLimitBytes: number;
  session: { idleTimeoutMs: number; absoluteTimeoutMs: number; secureCookie: boolean };
  tokenEncryptionKey: string | undefined;
  admin: { username: string; password: string } | undefined;
  requireMfaForAdmins: boolean;
  /** New accounts one address may create per hour, answered 429 past it. */
  registrationsPerHour: number;
  /** 'demo' starts the built-in sandbox and points the Xero client at it; 'live' talks to Xero. */
  xeroMode: 'demo' | 'live';
  xero: {
    clientId: string | undefined;
    clientSecret: string | undefined;
    scopes: string;
    issuer: string;
    apiUrl: string;
    /** Signs Xero's webhook deliveries; unset = no webhooks, screens refresh with If-Modified-Since as before. */
    webhookKey: string | undefined;
    /** Each signed-in user's GET /connections is read at most this often by the connections watch (issue 45). */
    connectionsCheckMs: number;
  };
  sandbox: { port: number; scale: number; seed: number; clients: number };
  /** Attachments fetched from Xero kept in the database (issue 19): the size budget, 0 = none kept. */
  attachmentStore: { maxBytes: number };
  /** GET /metrics (Prometheus): served only when enabled, to `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token: string | undefined };
  /**
   * Filing with HMRC (issue 43): where submissions go (`sandbox`: demo mode's built-in one; null: no filing), the
   * software's vendor ID and whether submissions are test ones (GatewayTest).
   */
  hmrc: { endpoint: string | null; vendorId: string; gatewayTest: boolean; sandboxPort: number };
  /** Email (statements, reminders): SMTP_URL, or the demo outbox; `from` is every message's sender. */
  mail: { smtpUrl: string | undefined; from: string };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`Invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

/** The first issue of a failed parse as a ConfigError naming the variable (secret values are never echoed). */
function configError(error: z.ZodError, source: NodeJS.ProcessEnv): ConfigError {
  const issue = error.issues[0];
  const variable = String(issue?.path[0] ?? 'environment');
  const raw = source[variable];
  const got = raw === undefined ? '' : ` (got "${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}")`;
  const secret = /SECRET|PASSWORD|KEY|TOKEN|DATABASE_URL|SMTP_URL/.test(variable);
  return new ConfigError(variable, `${issue?.message ?? 'is invalid'}${secret ? '' : got}`);
}

/** Parse the environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): ServerConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) throw configError(parsed.error, source);
  const env = parsed.data;
  const appUrl = (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    appUrl,
    dataDir: path.resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    session: {
      idleTimeoutMs: env.SESSION_IDLE_TIMEOUT_MINUTES * 60_000,
      absoluteTimeoutMs: env.SESSION_ABSOLUTE_TIMEOUT_HOURS * 3_600_000,
      secureCookie: appUrl.startsWith('https://'),
    },
    tokenEncryptionKey: env.TOKEN_ENCRYPTION_KEY,
    admin:
      env.ADMIN_USERNAME && env.ADMIN_PASSWORD
        ? { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD }
        : undefined,
    requireMfaForAdmins: env.REQUIRE_MFA_FOR_ADMINS,
    registrationsPerHour: env.REGISTRATIONS_PER_HOUR,
    xeroMode: env.XERO_CLIENT_ID ? 'live' : 'demo',
    xero: {
      clientId: env.XERO_CLIENT_ID,
      clientSecret: env.XERO_CLIENT_SECRET,
      scopes: env.XERO_SCOPES,
      issuer: env.XERO_ISSUER.replace(/\/$/, ''),
      apiUrl: env.XERO_API_URL.replace(/\/$/, ''),
      webhookKey: env.XERO_WEBHOOK_KEY,
      connectionsCheckMs: env.XERO_CONNECTIONS_CHECK_SECONDS * 1000,
    },
    sandbox: {
      port: env.SANDBOX_PORT,
      scale: env.SANDBOX_SCALE,
      seed: env.SANDBOX_SEED,
      clients: env.SANDBOX_CLIENTS,
    },
    attachmentStore: { maxBytes: Math.floor(env.ATTACHMENT_STORE_MB * 1024 * 1024) },
    metrics: { enabled: env.METRICS_ENABLED, token: env.METRICS_TOKEN },
    hmrc: {
      endpoint: env.HMRC_ENDPOINT ?? (env.XERO_CLIENT_ID ? null : 'sandbox'),
      vendorId: env.HMRC_VENDOR_ID ?? '0000',
      gatewayTest: env.HMRC_GATEWAY_TEST ?? env.HMRC_ENDPOINT !== 'live',
      sandboxPort: env.HMRC_SANDBOX_PORT,
    },
    mail: {
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM ?? `Ledgerlink <no-reply@${new URL(appUrl).hostname}>`,
    },
  };
}
