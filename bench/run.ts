/**
 * `npm run bench`: every benchmark against the built-in sandbox on loopback, bounded in time, results in
 * bench/results.md. Parts: calls (Xero calls per action), server (load and memory), page (bundle and
 * Chromium timings), scale-out (two instances on one PostgreSQL), practice (the Today page at 100 organisations,
 * issue 47). Sizes and repetitions: bench/README.md.
 *
 *   npm run bench                    every part at the goal sizes
 *   npm run bench -- calls page      some parts only
 *   BENCH_QUICK=1 npm run bench      reduced sizes, for a check while the machine is shared
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeCommand, describeMachine } from './lib/machine';
import { readOptions } from './lib/options';
import { startPostgres, type PostgresServer } from './lib/postgres';
import { keepUnselectedSections, renderResults, type BenchResults, type PartOutcome } from './lib/report';
import { runPage } from './parts/page';
import { runPractice } from './parts/practice';
import { runScaleOut } from './parts/scale-out';
import { runServer } from './parts/server';
import { runXeroCalls } from './parts/xero-calls';

const argv = process.argv.slice(2);
const options = readOptions(argv);
const started = performance.now();
const log = (line: string) =>
  console.log(`[bench ${Math.round((performance.now() - started) / 1000)}s] ${line}`);

async function runPart<T>(name: string, work: () => Promise<T>): Promise<PartOutcome<T>> {
  const partStarted = performance.now();
  try {
    const value = await work();
    log(`${name}: done in ${Math.round((performance.now() - partStarted) / 1000)} s`);
    return { kind: 'ok', value };
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`[bench] ${name} failed: ${message}`);
    return {
      kind: 'failed',
      error: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error',
    };
  }
}

const results: BenchResults = {
  machine: describeMachine(),
  command: describeCommand(argv),
  startedAt: new Date(),
  seconds: 0,
  quick: options.quick,
};
log(`parts: ${options.parts.join(', ')}${options.quick ? ' (BENCH_QUICK)' : ''}`);

// One PostgreSQL for the parts that use it (load on PostgreSQL beside PGlite; scale-out), when one can start.
const needsPg =
  options.parts.includes('server') ||
  options.parts.includes('scale-out') ||
  options.parts.includes('practice');
const pgStart = needsPg ? await startPostgres(options.pgBin) : null;
const pg: PostgresServer | null = pgStart && !('unavailable' in pgStart) ? pgStart : null;
const pgMissing = pgStart && 'unavailable' in pgStart ? pgStart.unavailable : null;
if (pgMissing) log(`PostgreSQL: ${pgMissing}`);
try {
  if (options.parts.includes('calls'))
    results.calls = await runPart('calls', () => runXeroCalls(options, log));
  if (options.parts.includes('server'))
    results.server = await runPart('server', () => runServer(options, log, pg));
  if (options.parts.includes('page')) results.page = await runPart('page', () => runPage(options, log));
  if (options.parts.includes('scale-out')) {
    const server = pg;
    results.scaleOut = server
      ? await runPart('scale-out', () => runScaleOut(options, server, log))
      : { kind: 'skipped', reason: pgMissing ?? 'no PostgreSQL' };
  }
  if (options.parts.includes('practice'))
    results.practice = await runPart('practice', () => runPractice(options, log, pg, pgMissing));
} finally {
  pg?.stop();
}

results.seconds = (performance.now() - started) / 1000;
fs.mkdirSync(path.dirname(options.out), { recursive: true });
const previous = fs.existsSync(options.out) ? fs.readFileSync(options.out, 'utf8') : null;
fs.writeFileSync(options.out, keepUnselectedSections(renderResults(results), previous));
log(`wrote ${options.out}`);
// Pools, sockets and timers of the parts are closed; exit anyway so a stray handle cannot hold the run.
process.exit(0);
