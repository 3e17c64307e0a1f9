/**
 * Where a first visit's time goes (issue 32, "first invoice in ≤ 2 s"): one first visit of /invoices as
 * `npm run bench -- page` times it (the app in its own process as `npm start` runs it, a fresh database, the
 * sandbox adding 400 ms to every Xero call, Demo Shop at the bench's size), printed as a waterfall of what the
 * browser asked the app (sent → first byte → last byte, from the browser's Resource Timing), what the app asked
 * Xero (from the sandbox), and when the first invoice was on screen, all in milliseconds from the navigation.
 *
 *   node --import tsx bench/first-visit-waterfall.ts
 *
 * WATERFALL_RUNS (1), BENCH_SCALE (25), WATERFALL_LATENCY_MS (400), CHROMIUM_PATH (/usr/bin/chromium).
 * WATERFALL_PROFILE=1 runs the app under `--cpu-prof` and adds, per 100 ms of the visit, what the app's thread
 * was busy with (the nearest function of ours on each sample's stack). The client is built into bench/.tmp
 * (dist/ is left alone); profiles stay under bench/.tmp/waterfall-profile-*.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { spawnServer } from './lib/child';
import { sliceProfile, summarizeProfile } from './lib/cpu-profile';
import { ApiClient, makeTempDir, openDemoShop, startBenchSandbox } from './lib/harness';
import { BROWSER_ARGS, signInContext } from './parts/page';

const RUNS = Number(process.env.WATERFALL_RUNS ?? 1);
const SCALE = Number(process.env.BENCH_SCALE ?? 25);
const LATENCY_MS = Number(process.env.WATERFALL_LATENCY_MS ?? 400);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FIRST_SHOWN = '[aria-label^="Invoice 1 of"]';
const PROFILE = process.env.WATERFALL_PROFILE === '1';

/** Wall-clock ms (Date.now, the browser's timeOrigin) to the monotonic µs CPU profiles are stamped with. */
const clockPair = { wallMs: Date.now(), monoUs: Number(process.hrtime.bigint() / 1000n) };
const toMonoUs = (wallMs: number) => clockPair.monoUs + (wallMs - clockPair.wallMs) * 1000;

interface Span {
  who: 'xero';
  what: string;
  start: number;
  end: number;
}

/** Records every request a Node HTTP server answers, with wall-clock start and end. */
function recordRequests(server: import('node:http').Server, who: Span['who'], into: Span[]) {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const start = Date.now();
    res.on('finish', () =>
      into.push({ who, what: `${req.method} ${req.url ?? ''} ${res.statusCode}`, start, end: Date.now() }),
    );
  });
}

function shorten(what: string): string {
  return what.slice(0, 160);
}

async function main() {
  const outDir = makeTempDir('waterfall-client');
  const vite = path.resolve('node_modules/vite/bin/vite.js');
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'],
    {
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}`);
  const sandbox = await startBenchSandbox({ scale: SCALE });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: BROWSER_ARGS,
  });
  try {
    for (let run = 0; run < RUNS; run++) {
      const dataDir = makeTempDir('waterfall');
      const profileDir = PROFILE ? makeTempDir('waterfall-profile') : null;
      const app = await spawnServer(
        ['app', JSON.stringify({ dataDir, sandboxUrl: sandbox.url, clientDir: outDir })],
        profileDir ? { extraNodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
      );
      let visit: { t0: number; shownAt: number } | null = null;
      const spans: Span[] = [];
      const context = await browser.newContext({ baseURL: app.url });
      try {
        const client = new ApiClient(app.url);
        await openDemoShop(client, sandbox);
        await signInContext(context, app.url, client.cookie);
        const page = await context.newPage();
        recordRequests(sandbox.app.server, 'xero', spans);
        sandbox.setFaults({ latencyMs: LATENCY_MS });
        try {
          await page.goto('/invoices', { waitUntil: 'commit' });
          const shown = await page.waitForFunction(
            (selector) => (document.querySelector(selector) ? performance.now() : false),
            FIRST_SHOWN,
            { polling: 'raf', timeout: 30_000 },
          );
          const shownAt = Number(await shown.jsonValue());
          const browserView = await page.evaluate(() => ({
            origin: performance.timeOrigin,
            resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({
              name: r.name.replace(location.origin, ''),
              start: r.startTime,
              firstByte: r.responseStart,
              end: r.responseEnd,
            })),
            nav: (() => {
              const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
              return { responseEnd: n.responseEnd, dcl: n.domContentLoadedEventEnd };
            })(),
          }));
          const t0 = browserView.origin;
          const lines: Array<[number, number, string]> = [];
          lines.push([0, browserView.nav.responseEnd, 'browser  document /invoices']);
          for (const r of browserView.resources)
            lines.push([
              r.start,
              r.end,
              `browser  ${r.name.slice(0, 80)} (first byte ${Math.round(r.firstByte)})`,
            ]);
          for (const s of spans) {
            if (s.end < t0) continue;
            lines.push([s.start - t0, s.end - t0, `${s.who.padEnd(8)} ${shorten(s.what)}`]);
          }
          lines.push([browserView.nav.dcl, browserView.nav.dcl, 'browser  DOMContentLoaded']);
          lines.push([shownAt, shownAt, 'browser  FIRST INVOICE ON SCREEN']);
          lines.sort((a, b) => a[0] - b[0]);
          visit = { t0, shownAt };
          console.log(`\nrun ${run + 1}: first invoice at ${Math.round(shownAt)} ms`);
          for (const [start, end, what] of lines) {
            if (start > shownAt + 50) continue;
            console.log(
              `${String(Math.round(start)).padStart(6)} → ${String(Math.round(end)).padStart(6)}  ${what}`,
            );
          }
        } finally {
          sandbox.clearFaults();
        }
      } finally {
        await context.close();
        await app.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
      const profile = profileDir && fs.readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (profileDir && profile && visit) {
        const file = path.join(profileDir, profile);
        const window = { fromUs: toMonoUs(visit.t0), toUs: toMonoUs(visit.t0 + visit.shownAt) };
        console.log(`\nthe app's thread, navigation to first invoice (profile: ${file}):`);
        console.log(sliceProfile(file, window, 100));
        console.log(summarizeProfile(file, 1, window));
      }
    }
  } finally {
    await browser.close();
    await sandbox.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
