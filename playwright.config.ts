import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { startCommandFlags } from './src/server/test/start-command';

/** Set by scripts/e2e.mjs; defaults let `npx playwright test` work on its own too. */
const port = Number(process.env.E2E_PORT ?? 5100);
const sandboxPort = Number(process.env.E2E_SANDBOX_PORT ?? 5155);
const dataDir = process.env.E2E_DATA_DIR ?? path.join(os.tmpdir(), `ledgerlink-e2e-${port}`);
export const E2E_ADMIN = { username: 'e2e-admin', password: 'e2e-admin-password-9431' };

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI === 'true' ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.E2E_REPORT
    ? [['list'], ['json', { outputFile: process.env.E2E_REPORT }]]
    : [['list']],
  use: {
    baseURL: `http://localhost:${port}`,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    // A trace records every action's page and a screencast (with traces on, `ps` in CI showed Chromium's GPU
    // process at 28–30 % of a core; without, 8–10 %). In CI the first try runs without and a failing test's
    // retry records one; locally (no retries) a failure keeps its trace.
    trace: process.env.CI === 'true' ? 'on-first-retry' : 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // What `npm start` runs (its flags read from package.json): the server bundle scripts/e2e.mjs has just built.
    command: ['node', ...startCommandFlags(), 'dist/server/server.mjs'].join(' '),
    url: `http://localhost:${port}/readyz`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      NODE_ENV: 'production',
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      ADMIN_USERNAME: E2E_ADMIN.username,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      // The specs create about twenty accounts from 127.0.0.1 in one run (more with retries): past the
      // default 20 an hour, a late spec's sign-up was refused with 429.
      REGISTRATIONS_PER_HOUR: '500',
      // A revoke made in Xero is noticed by the server's watch within seconds rather than two minutes
      // (e2e/new-user.spec.ts, issue 45): each signed-in user's GET /connections every 4 s.
      XERO_CONNECTIONS_CHECK_SECONDS: '4',
      ...(process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : {}),
    },
  },
});
