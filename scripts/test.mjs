#!/usr/bin/env node
// `npm test`: the whole suite — typecheck and lint side by side (each is one process), then unit + integration +
// contract (Vitest) side by side with end to end (Playwright in Chromium; it builds the app first). Two at once
// because each leaves a core idle much of the time (Vitest's default on two cores is one worker; e2e drives one
// browser), and a step at a time left CI's machine half idle for its longest twenty minutes (decision 033).
// The first step of a pair prints as it goes; the other's output is kept and printed whole after it. Stops after
// the first pair with a failing step and ends with one line "N passed, N failed, N skipped" counting every test
// that ran, followed by the step that failed and the steps that did not run, if any; above it, what was skipped
// for want of a browser or Xero's OpenAPI files.
import { spawn } from 'node:child_process';
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
  [
    'vitest',
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`],
  ],
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

// Where the contract tests look for Xero's OpenAPI files (src/sandbox/openapi-oracle.ts: OPENAPI_DIR).
const openapiDir = path.resolve(process.cwd(), '../shared/xero-openapi');
const openapiFiles = ['xero_accounting.yaml', 'xero-identity.yaml'];
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const notes = [];
// Which Node runs the suite: the one `npm install` put in node_modules/.bin (docs/decisions/030), or
// the machine's where that does not apply.
console.log(`Node ${process.version} (${process.execPath})`);
const selected = steps.filter(([name]) => !only || only.includes(name));
// The steps that run side by side; the test steps wait for the checks, which are quick and fail fast.
const pairs = [
  ['typecheck', 'lint'],
  ['vitest', 'e2e'],
];
const batches = [];
for (const step of selected) {
  const last = batches.at(-1);
  const pair = pairs.find((p) => p.includes(step[0]));
  if (last && pair?.includes(last[0][0])) last.push(step);
  else batches.push([step]);
}
/** Runs one step; its output goes straight through, or, in a batch of several, is kept and printed whole. */
function run([name, cmd, args], buffered) {
  return new Promise((resolve) => {
    const started = Date.now();
    const env = { ...process.env, E2E_REPORT: e2eReport };
    const child = spawn(cmd, args, { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) =>
      resolve({
        name,
        status: code ?? (signal ? 1 : 0),
        output,
        seconds: ((Date.now() - started) / 1000).toFixed(1),
      }),
    );
  });
}

const suiteStarted = Date.now();
let status = 0;
let failed;
const ran = [];
for (const batch of batches) {
  for (const [name] of batch) {
    ran.push(name);
    if (name === 'vitest' && openapiFiles.some((f) => !fs.existsSync(path.join(openapiDir, f)))) {
      notes.push(
        `contract tests SKIPPED: Xero's OpenAPI files were not found; expected ${openapiFiles.join(' and ')} in ${openapiDir}`,
      );
    }
    if (name === 'e2e' && !fs.existsSync(chromium) && process.env.CI !== 'true') {
      notes.push(
        `end-to-end tests SKIPPED: no Chromium at ${chromium} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
      );
    }
  }
  if (batch.length > 1)
    console.log(
      `\n── ${batch.map(([name]) => name).join(' and ')}, side by side (${batch
        .slice(1)
        .map(([name]) => name)
        .join(', ')} printed when ${batch[0][0]} is done) ──`,
    );
  console.log(`\n── ${batch[0][0]} ──`);
  const results = await Promise.all(batch.map((step, i) => run(step, i > 0)));
  count();
  for (const [i, result] of results.entries()) {
    if (i > 0) {
      console.log(`\n── ${result.name} ──`);
      process.stdout.write(Buffer.concat(result.output));
    }
    if (result.status !== 0) {
      console.log(`── ${result.name}: FAILED after ${result.seconds} s ──`);
      status = result.status;
      if (totals.failed === 0) totals.failed = 1;
      failed = failed ? `${failed} and ${result.name}` : result.name;
    } else console.log(`── ${result.name}: ok in ${result.seconds} s ──`);
  }
  if (failed) break;
}
fs.rmSync(reports, { recursive: true, force: true });
const seconds = Math.round((Date.now() - suiteStarted) / 1000);
const took = seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
console.log('');
for (const note of notes) console.log(`!! ${note}`);
const notRun = selected.map(([name]) => name).filter((name) => !ran.includes(name));
const outcome = failed
  ? ` · ${failed} FAILED; not run: ${notRun.length > 0 ? notRun.join(', ') : 'none'}`
  : '';
console.log(
  `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${outcome} (${took})`,
);
process.exit(status);
