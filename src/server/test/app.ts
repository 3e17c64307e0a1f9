import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { assembleApp, type AppParts, type BuildAppOptions } from '../app';
import type { XeroEndpoints } from '../xero/endpoints';
import { loadConfig, type ServerConfig } from '../config/env';
import { createTestDatabase, type TestDatabase } from './database';

export const TEST_ORIGIN = 'http://localhost:5000';

export interface TestAppOptions {
  env?: Record<string, string>;
  xero?: Partial<XeroEndpoints>;
  clientDir?: string;
  database?: TestDatabase;
  demoCredentials?: { username: string; password: string };
  xeroHttp?: BuildAppOptions['xeroHttp'];
  xeroGate?: BuildAppOptions['xeroGate'];
  /** Pino options (e.g. a `stream` to capture log lines); silent by default. */
  logger?: Record<string, unknown>;
  /** How long a request waits for HMRC's answer (issue 43). */
  hmrcWaitMs?: BuildAppOptions['hmrcWaitMs'];
  /** false: requests do not wait for the database's change notices first (tests over HTTP; see buildApp). */
  settleNoticesFirst?: boolean;
}

export interface TestApp {
  app: FastifyInstance;
  /** What a route cannot show: run a reconcile pass or a sync now, send a raw Xero call, read a token. */
  parts: AppParts;
  config: ServerConfig;
  database: TestDatabase;
  close(): Promise<void>;
}

/** buildApp on a fresh test database, the way server.ts builds it (docs/code-style.md §7). */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    APP_URL: TEST_ORIGIN,
    // One key for every instance in a test, as instances sharing a database must share it.
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    // The connections watch (issue 45) reads Xero only when a test asks: `parts.watchConnections()`, or a
    // shorter period in `env`. Its background reads would otherwise move the counts a test compares.
    XERO_CONNECTIONS_CHECK_SECONDS: '86400',
    ...options.env,
  });
  const database = options.database ?? (await createTestDatabase());
  const { app, parts } = await assembleApp({
    config,
    database,
    logger: options.logger ?? false,
    clientDir: options.clientDir ?? path.join(dataDir, 'no-client'),
    demoCredentials: options.demoCredentials,
    settleNoticesFirst: options.settleNoticesFirst ?? true,
    ...(options.xeroHttp ? { xeroHttp: options.xeroHttp } : {}),
    ...(options.xeroGate ? { xeroGate: options.xeroGate } : {}),
    ...(options.hmrcWaitMs ? { hmrcWaitMs: options.hmrcWaitMs } : {}),
    xero: {
      issuer: 'http://127.0.0.1:9',
      apiUrl: 'http://127.0.0.1:9',
      clientId: 'test-client',
      clientSecret: 'test-secret',
      scopes: config.xero.scopes,
      allowInsecureRequests: true,
      ...options.xero,
    },
  });
  await app.ready();
  return {
    app,
    parts,
    config,
    database,
    async close() {
      await app.close();
      if (!options.database) await database.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
