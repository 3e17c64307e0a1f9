#!/usr/bin/env node
// End-to-end tests in Debian's Chromium against a freshly built app in demo mode.
// Without a browser they are skipped with a message, except in CI (CI=true), where that is a failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  if (process.env.CI === 'true') {
    console.error(`e2e: no Chromium at ${chromium} (set CHROMIUM_PATH); CI requires the end-to-end tests.`);
    process.exit(1);
  }
  console.log(`e2e: skipped: no Chromium at ${chromium} (install Debian's chromium or set CHROMIUM_PATH).`);
  process.exit(0);
}

const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

// The client, and the server bundle that `npm start` runs (playwright.config.ts starts it).
if (
  process.env.E2E_SKIP_BUILD !== 'true' &&
  (run('npx', ['vite', 'build', '--logLevel', 'warn']) !== 0 ||
    run(process.execPath, ['scripts/build-server.mjs']) !== 0)
)
  process.exit(1);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-e2e-'));
const status = run('npx', ['playwright', 'test', ...process.argv.slice(2)], {
  E2E_DATA_DIR: dataDir,
  CHROMIUM_PATH: chromium,
});
fs.rmSync(dataDir, { recursive: true, force: true });

// What the page showed when a test failed (Playwright's error-context.md: the page as an accessibility
// snapshot), printed so a failure seen only in CI's log, or a first try a retry then passed, can be read
// there: the screenshots and traces stay on the machine that ran them.
const results = 'test-results';
const contexts = fs.existsSync(results)
  ? fs
      .readdirSync(results, { recursive: true })
      .map(String)
      .filter((file) => path.basename(file) === 'error-context.md')
      .sort()
  : [];
for (const file of contexts) {
  const text = fs.readFileSync(path.join(results, file), 'utf8');
  const limit = 6000;
  console.log(`\n── e2e: what the page showed, ${path.dirname(file)} ──`);
  console.log(
    text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text,
  );
}
process.exit(status);
