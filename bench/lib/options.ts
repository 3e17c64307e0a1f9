/**
 * What `npm run bench` measures and how big, all from the environment so a developer can run a short
 * version while colleagues share the machine (BENCH_QUICK=1) and CI can pin the sizes. The defaults are the
 * sizes issue 12 sets its goals at, with short repetitions so the whole run stays well under 15 minutes on
 * a 2-core machine.
 */
export const BENCH_PARTS = ['calls', 'server', 'page', 'scale-out', 'practice'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

export interface BenchOptions {
  parts: BenchPart[];
  quick: boolean;
  /** Repetitions of the Xero-calls scenario (fresh sandbox and database each time). */
  callRuns: number;
  /** Sandbox SANDBOX_SCALE for the Xero-calls scenario: 25 seeds ≈5,000 outstanding sales invoices. */
  scale: number;
  /** Invoices paid, drafts approved and bills created in "a typical day". */
  day: { payInvoices: number; approveDrafts: number; bills: number; journals: number };
  /** autocannon: seconds per measurement, measurements per target, connections. */
  durationSec: number;
  loadRuns: number;
  connections: number;
  /** Cached invoices for the two /api/xero/invoices targets. */
  invoiceSizes: [number, number];
  /** Peak-memory scenario: organisations × invoices each. */
  memOrgs: number;
  memInvoices: number;
  /** Memory runs, each a fresh server process. */
  memRuns: number;
  /** Page loads timed in Chromium. */
  pageRuns: number;
  chromiumPath: string;
  /** The practice (issue 47): client organisations, the sandbox scale of each (25: 5,000 awaiting payment), Xero's latency. */
  practiceOrgs: number;
  practiceScale: number;
  practiceLatencyMs: number;
  /** The practice's warm rates with the load generator and the server on CPUs of their own (BENCH_PIN=1). */
  pin: boolean;
  /** Where PostgreSQL's binaries are (Debian's postgresql package). */
  pgBin: string;
  out: string;
}

function readInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be a whole number of at least ${min} (got "${raw}")`);
  return value;
}

/** Parts named on the command line (`npm run bench -- calls page`) or in BENCH_PARTS; all by default. */
function readParts(argv: string[]): BenchPart[] {
  const named =
    argv.length > 0
      ? argv
      : (process.env.BENCH_PARTS ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (named.length === 0) return [...BENCH_PARTS];
  for (const name of named) {
    if (!(BENCH_PARTS as readonly string[]).includes(name))
      throw new Error(`unknown part "${name}" (parts: ${BENCH_PARTS.join(', ')})`);
  }
  return BENCH_PARTS.filter((p) => named.includes(p));
}

export function readOptions(argv: string[]): BenchOptions {
  const quick = ['1', 'true', 'yes'].includes(process.env.BENCH_QUICK ?? '');
  return {
    parts: readParts(argv),
    quick,
    callRuns: readInt('BENCH_CALL_RUNS', quick ? 1 : 2),
    scale: readInt('BENCH_SCALE', quick ? 5 : 25),
    day: {
      payInvoices: readInt('BENCH_DAY_PAYMENTS', 30, 0),
      approveDrafts: readInt('BENCH_DAY_DRAFTS', 10, 0),
      bills: readInt('BENCH_DAY_BILLS', 5, 0),
      journals: readInt('BENCH_DAY_JOURNALS', 1, 0),
    },
    durationSec: readInt('BENCH_DURATION', quick ? 3 : 5),
    loadRuns: readInt('BENCH_LOAD_RUNS', quick ? 1 : 3),
    connections: readInt('BENCH_CONNECTIONS', 10),
    invoiceSizes: [
      readInt('BENCH_INVOICES_SMALL', quick ? 200 : 1000),
      readInt('BENCH_INVOICES_LARGE', quick ? 1000 : 5000),
    ],
    memOrgs: readInt('BENCH_MEM_ORGS', quick ? 2 : 10),
    memInvoices: readInt('BENCH_MEM_INVOICES', quick ? 2000 : 10_000),
    memRuns: readInt('BENCH_MEM_RUNS', quick ? 1 : 2),
    pageRuns: readInt('BENCH_PAGE_RUNS', quick ? 2 : 5),
    practiceOrgs: readInt('BENCH_PRACTICE_ORGS', quick ? 10 : 100),
    practiceScale: readInt('BENCH_PRACTICE_SCALE', quick ? 2 : 25),
    practiceLatencyMs: readInt('BENCH_PRACTICE_LATENCY_MS', 400, 0),
    pin: ['1', 'true', 'yes'].includes(process.env.BENCH_PIN ?? ''),
    chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    pgBin: process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin',
    out: process.env.BENCH_OUT ?? 'bench/results.md',
  };
}
