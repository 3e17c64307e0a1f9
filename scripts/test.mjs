#!/usr/bin/env node
// `npm test`: the whole suite in order — typecheck, lint, unit + integration + contract (Vitest),
// end to end (Playwright in Chromium). Stops at the first failing step and ends with one line
// "N passed, N failed, N skipped" counting every test that ran.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-test-report-'));
const vitestReport = path.join(reports, 'vitest.json');
const e2eReport = path.join(reports, 'e2e.json');
const only = process.env.TEST_STEPS?.split(',');

const steps = [
  ['typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['vitest', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`]],
  ['e2e', 'node', ['scripts/e2e.mjs']],
];

const totals = { passed: 0, failed: 0, skipped: 0 };
function count() {
  if (fs.existsSync(vitestReport)) {
    const r = JSON.parse(fs.readFileSync(vitestReport, 'utf8'));
    totals.passed += r.numPassedTests ?? 0;
    totals.failed += r.numFailedTests ?? 0;
    totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    fs.rmSync(vitestReport);
  }
  if (fs.existsSync(e2eReport)) {
    const s = JSON.parse(fs.readFileSync(e2eReport, 'utf8')).stats ?? {};
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
    totals.failed += s.unexpected ?? 0;
    totals.skipped += s.skipped ?? 0;
    fs.rmSync(e2eReport);
  }
}

let status = 0;
for (const [name, cmd, args] of steps) {
  if (only && !only.includes(name)) continue;
  const started = Date.now();
  console.log(`\n── ${name} ──`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, E2E_REPORT: e2eReport } });
  count();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.log(`── ${name}: FAILED after ${seconds} s ──`);
    status = result.status ?? 1;
    if (totals.failed === 0) totals.failed = 1;
    break;
  }
  console.log(`── ${name}: ok in ${seconds} s ──`);
}
fs.rmSync(reports, { recursive: true, force: true });
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(status);
