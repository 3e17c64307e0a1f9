/**
 * Where a cached read's time goes: the server part's data (bench/parts/server.ts), the app in its own process
 * under `node --cpu-prof`, one process per target loaded with autocannon, then each profile's self time by
 * function and by area (database driver, PGlite, Fastify, zod, JSON, our code).
 *
 *   node --import tsx bench/profile-server.ts [seconds]          PGlite on disk
 *   BENCH_PG_URL=postgres://… node --import tsx bench/profile-server.ts     PostgreSQL (an empty database)
 *   BENCH_PROFILE_TARGETS=0,2 … only some targets (0: 1,000 invoices, 1: 5,000, 2: connection, 3: sales)
 *   BENCH_PROFILE_BARE=1 …      each target's bytes on a bare Fastify route too, profiled the same way (what the
 *                               bench divides by), so the two per-request costs can be compared line by line
 *
 * Profiles are kept under bench/.tmp/profile-<time>/ for Chrome DevTools; the summary goes to stdout.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { makeTempDir, startBenchSandbox } from './lib/harness';
import { readOptions } from './lib/options';
import { summarizeProfile } from './lib/cpu-profile';
import { prepareDatabase } from './parts/server';

async function spawnProfiled(
  serveArgs: string[],
  profileDir: string,
): Promise<{ url: string; listeningAtUs: number; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', 'bench/serve.ts', ...serveArgs],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  let listeningAtUs = 0;
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const at = /^LISTENING_AT_US (\d+)$/.exec(line.trim());
      if (at) listeningAtUs = Number(at[1]);
      const match = /^READY (\d+)$/.exec(line.trim());
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    listeningAtUs,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const seconds = Number(process.argv[2] ?? 5);
const options = readOptions([]);
const pgUrl = process.env.BENCH_PG_URL;
const bareToo = process.env.BENCH_PROFILE_BARE === '1';
const only = (process.env.BENCH_PROFILE_TARGETS ?? '').split(',').filter(Boolean).map(Number);
const sandbox = await startBenchSandbox({ scale: 1 });
const dir = makeTempDir('profile-data');
const outDir = path.resolve(`bench/.tmp/profile-${Date.now()}`);
fs.mkdirSync(outDir, { recursive: true });

/**
 * One profiled server process under load (a 1 s warm-up so JIT and caches settle, then the measured load; gzip
 * asked for as browsers and the bench do), its summary printed; with `keepAnswer`, the answer's bytes as the
 * bare route takes them.
 */
async function profileRun(
  label: string,
  name: string,
  serveArgs: string[],
  { path: urlPath, cookie, keepAnswer }: { path: string; cookie: string; keepAnswer: boolean },
): Promise<{ contentType: string; base64: string } | null> {
  const profileDir = path.join(outDir, name);
  const server = await spawnProfiled(serveArgs, profileDir);
  const url = `${server.url}${urlPath}`;
  const headers = { cookie: cookie, 'accept-encoding': 'gzip' };
  const warm = await autocannon({ url, connections: options.connections, duration: 1, headers });
  const result = await autocannon({ url, connections: options.connections, duration: seconds, headers });
  let answer: { contentType: string; base64: string } | null = null;
  if (keepAnswer) {
    const res = await fetch(url, { headers: { cookie: cookie } });
    answer = {
      contentType: res.headers.get('content-type') ?? 'application/json',
      base64: Buffer.from(await res.arrayBuffer()).toString('base64'),
    };
  }
  await server.stop();
  console.log(
    `\n${label}: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`,
  );
  const file = fs.readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (file)
    console.log(
      summarizeProfile(path.join(profileDir, file), warm.requests.total + result.requests.total, {
        fromUs: server.listeningAtUs,
      }),
    );
  return answer;
}

try {
  const { cookie, targets } = await prepareDatabase(sandbox, dir, options, pgUrl);
  for (const [i, target] of targets.entries()) {
    if (only.length > 0 && !only.includes(i)) continue;
    const appSpec = { dataDir: dir, sandboxUrl: sandbox.url, ...(pgUrl ? { databaseUrl: pgUrl } : {}) };
    const answer = await profileRun(target.label, `target-${i}-app`, ['app', JSON.stringify(appSpec)], {
      path: target.path,
      cookie,
      keepAnswer: bareToo,
    });
    // The bare route (BENCH_PROFILE_BARE=1) serves the very bytes the app answered.
    if (answer) {
      const bodiesFile = path.join(outDir, `bodies-${i}.json`);
      fs.writeFileSync(bodiesFile, JSON.stringify([answer]));
      await profileRun(
        `${target.label} — the same bytes on a bare route`,
        `target-${i}-bare`,
        ['bare', bodiesFile],
        {
          path: '/bare/0',
          cookie,
          keepAnswer: false,
        },
      );
    }
  }
  console.log(`\nprofiles: ${outDir}`);
} finally {
  await sandbox.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
