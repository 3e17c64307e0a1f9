/**
 * Stock Journal: server time to build the weekly periods from a large invoice cache (issue #10 measure).
 *
 *   node --import tsx bench/stock-journal.ts            # 100,000 cached invoices of one customer
 *   SJ_BENCH_INVOICES=20000 SJ_BENCH_RUNS=3 node --import tsx bench/stock-journal.ts
 *   SJ_BENCH_PG=1 node --import tsx bench/stock-journal.ts   # on PostgreSQL (Debian's, BENCH_PG_BIN) instead of PGlite
 *
 * The rows are written straight into `xero_invoices` (PGlite in memory, migrated schema) for one customer
 * over two years, then the server's own path is timed: the repository query the sales endpoint runs, the
 * shared weekly grouping (pence sums, per-date caching), and the JSON the route sends (beside it, what a zod
 * check of the answer would add).
 * The reference is a plain in-memory grouping of the very same rows (a Map per week and day, integer sums),
 * with no database and no DTO shaping. Each figure is the median of the runs, with min and max.
 */
import { randomUUID } from 'node:crypto';
import { addDays, getUkToday, getWeekStart } from '../src/shared/dates';
import { salesResponseSchema } from '../src/shared/stock-journal';
import { organizations, xeroInvoices } from '../src/server/db/schema/index';
import {
  createStockJournalRepository,
  type SalesInvoiceRow,
} from '../src/server/modules/stock-journal/stock-journal.repository';
import { buildSalesPeriods } from '../src/server/modules/stock-journal/stock-journal.service';
import { createTestDatabase } from '../src/server/test/database';
import { startPostgres, type PostgresServer } from './lib/postgres';

const COUNT = Number(process.env.SJ_BENCH_INVOICES ?? 100_000);
const RUNS = Number(process.env.SJ_BENCH_RUNS ?? 5);
const DAYS = 730;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)] ?? 0,
    min: sorted[0] ?? 0,
    max: sorted[sorted.length - 1] ?? 0,
  };
}

const fmt = (s: ReturnType<typeof stats>) =>
  `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;

/** The reference: what a hand-written grouping of rows already in memory costs. */
function groupPlain(rows: readonly SalesInvoiceRow[]) {
  const weeks = new Map<
    string,
    { gross: number; vat: number; net: number; count: number; days: Map<string, SalesInvoiceRow[]> }
  >();
  for (const row of rows) {
    const key = getWeekStart(row.date);
    let week = weeks.get(key);
    if (!week) {
      week = { gross: 0, vat: 0, net: 0, count: 0, days: new Map() };
      weeks.set(key, week);
    }
    week.gross += row.totalPence;
    week.vat += row.totalTaxPence;
    week.net += row.subTotalPence;
    week.count += 1;
    const day = week.days.get(row.date);
    if (day) day.push(row);
    else week.days.set(row.date, [row]);
  }
  return [...weeks.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

async function main() {
  let pg: PostgresServer | null = null;
  if (process.env.SJ_BENCH_PG === '1') {
    const started = await startPostgres(process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin');
    if ('unavailable' in started) throw new Error(started.unavailable);
    pg = started;
    process.env.TEST_DATABASE_URL = pg.databaseUrl('postgres');
  }
  const engine = pg ? pg.version : 'PGlite (in memory)';
  const database = await createTestDatabase();
  const db = database.db;
  const [org] = await db
    .insert(organizations)
    .values({ tenantId: randomUUID(), tenantName: 'Bench Shop', featureStockJournal: true })
    .returning({ id: organizations.id });
  if (!org) throw new Error('no organisation');
  const contactId = randomUUID();
  const today = getUkToday();
  const from = addDays(today, -DAYS);

  const insertStarted = performance.now();
  for (let start = 0; start < COUNT; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, COUNT - start) }, (_, i) => {
      const n = start + i;
      const net = 20_00 + ((n * 7919) % 900_00);
      const vat = Math.round(net / 5);
      return {
        organizationId: org.id,
        invoiceId: randomUUID(),
        type: 'ACCREC',
        invoiceNumber: `INV-${String(n).padStart(6, '0')}`,
        contactId,
        contactName: 'Daily Sales',
        status: n % 4 === 0 ? 'AUTHORISED' : 'PAID',
        date: addDays(from, n % (DAYS + 1)),
        subTotalPence: net,
        totalTaxPence: vat,
        totalPence: net + vat,
        amountDuePence: 0,
        amountPaidPence: net + vat,
      };
    });
    await db.insert(xeroInvoices).values(rows);
  }
  const insertMs = performance.now() - insertStarted;

  const repo = createStockJournalRepository(db);
  const query: number[] = [];
  const group: number[] = [];
  const serialise: number[] = [];
  const stringify: number[] = [];
  const plain: number[] = [];
  let weeks = 0;
  let lines = 0;
  let bytes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    let t = performance.now();
    const rows = await repo.listSalesInvoices(org.id, contactId, getWeekStart(from), today);
    query.push(performance.now() - t);
    t = performance.now();
    const periods = buildSalesPeriods(rows);
    group.push(performance.now() - t);
    t = performance.now();
    const body = JSON.stringify(salesResponseSchema.parse(periods));
    serialise.push(performance.now() - t);
    t = performance.now();
    JSON.stringify(periods);
    stringify.push(performance.now() - t);
    t = performance.now();
    const reference = groupPlain(rows);
    plain.push(performance.now() - t);
    weeks = periods.length;
    lines = rows.length;
    bytes = body.length;
    if (reference.length !== periods.length)
      throw new Error(`grouping disagrees: ${reference.length} vs ${periods.length} weeks`);
  }
  await database.destroy();
  pg?.stop();

  const total = query.map((q, i) => q + (group[i] ?? 0) + (stringify[i] ?? 0));
  const report = [
    `Stock Journal weekly periods on ${engine} from ${COUNT.toLocaleString('en-GB')} cached invoices (${lines.toLocaleString('en-GB')} in range, ${weeks} weeks, ${(bytes / 1e6).toFixed(1)} MB of JSON); ${RUNS} runs, median (min–max)`,
    `  rows written straight into xero_invoices: ${insertMs.toFixed(0)} ms`,
    `  server: repository query             ${fmt(stats(query))}`,
    `  server: weekly grouping (shared)     ${fmt(stats(group))}`,
    `  server: JSON answer (as the route sends it) ${fmt(stats(stringify))}`,
    `  (zod response check + JSON, not done by the route) ${fmt(stats(serialise))}`,
    `  server: total                        ${fmt(stats(total))}`,
    `  reference: plain in-memory grouping  ${fmt(stats(plain))}`,
    `  grouping ÷ plain: ${(stats(group).median / Math.max(stats(plain).median, 0.001)).toFixed(1)}×`,
  ].join('\n');
  process.stdout.write(`${report}\n`);
}

await main();
