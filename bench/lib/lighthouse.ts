/**
 * Lighthouse's performance audit against the app on loopback, with Debian's Chromium: no network needed.
 * Chromium is started here with a DevTools port (Lighthouse drives it over that port), once per audit so
 * every run starts with an empty HTTP cache.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { summarize, type Spread } from './stats';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The metrics Lighthouse scores performance on (v10+ weights), in the order the report lists them. */
const METRICS = [
  ['first-contentful-paint', 'First Contentful Paint', 'ms'],
  ['largest-contentful-paint', 'Largest Contentful Paint', 'ms'],
  ['total-blocking-time', 'Total Blocking Time', 'ms'],
  ['cumulative-layout-shift', 'Cumulative Layout Shift', ''],
  ['speed-index', 'Speed Index', 'ms'],
] as const;

export interface LighthouseTarget {
  /** What the row says, e.g. "/auth, mobile (Lighthouse's simulated slow 4G, 4× CPU slowdown)". */
  label: string;
  url: string;
  preset: 'mobile' | 'desktop';
  /** Sent with every request, e.g. a session cookie for a signed-in page. */
  headers?: Record<string, string>;
}

export interface LighthouseRow {
  label: string;
  runs: number;
  score: Spread | null;
  metrics: Array<{ name: string; unit: string; value: Spread | null }>;
  /** Lighthouse's own warnings or a failed run's message, once each. */
  warnings: string[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitForDevTools(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Chromium exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/version`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('Chromium did not open its DevTools port within 20 s');
}

async function auditOnce(target: LighthouseTarget, chromiumPath: string, profileRoot: string) {
  const port = await freePort();
  const profile = fs.mkdtempSync(path.join(profileRoot, 'lighthouse-'));
  const child = spawn(
    chromiumPath,
    [...CHROMIUM_ARGS, `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: 'ignore' },
  );
  try {
    await waitForDevTools(port, child);
    const result = await lighthouse(
      target.url,
      {
        port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
        ...(target.headers ? { extraHeaders: target.headers } : {}),
      },
      target.preset === 'desktop' ? desktopConfig : undefined,
    );
    if (!result) throw new Error('Lighthouse returned no result');
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    return {
      score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      metrics: METRICS.map(([id]) => lhr.audits[id]?.numericValue ?? null),
      warnings: lhr.runWarnings,
    };
  } finally {
    // Chromium's helper processes may still be writing the profile: wait for the browser to go, then clean up.
    const exited =
      child.exitCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 300));
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

/** Runs each target `runs` times (a fresh browser each time) and reports the median with min and max. */
export async function runLighthouse(
  targets: LighthouseTarget[],
  options: { runs: number; chromiumPath: string; tmpDir: string; log: (m: string) => void },
): Promise<LighthouseRow[]> {
  const rows: LighthouseRow[] = [];
  for (const target of targets) {
    const scores: number[] = [];
    const values: number[][] = METRICS.map(() => []);
    const warnings = new Set<string>();
    for (let run = 0; run < options.runs; run += 1) {
      try {
        const audit = await auditOnce(target, options.chromiumPath, options.tmpDir);
        scores.push(audit.score);
        audit.metrics.forEach((v, i) => v !== null && values[i]?.push(v));
        for (const w of audit.warnings) warnings.add(w);
      } catch (error) {
        warnings.add(`run ${run + 1} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      options.log(
        `lighthouse ${target.label}: run ${run + 1}/${options.runs}${scores.length > 0 ? `, score ${scores.at(-1)}` : ''}`,
      );
    }
    rows.push({
      label: target.label,
      runs: scores.length,
      score: summarize(scores),
      metrics: METRICS.map(([, name, unit], i) => ({ name, unit, value: summarize(values[i] ?? []) })),
      warnings: [...warnings],
    });
  }
  return rows;
}
