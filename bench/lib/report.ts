/**
 * bench/results.md: one table per part, each figure as "median (min–max)" over the runs, the goal beside
 * it, and what a missed goal means.
 */
import type { CallsResult, CallsRow, LiveUpdatesResult } from '../parts/xero-calls';
import type { PageResult } from '../parts/page';
import type { PracticeResult } from '../parts/practice';
import type { ScaleOutResult } from '../parts/scale-out';
import type { ServerResult } from '../parts/server';
import type { MachineInfo } from './machine';
import { formatBytes, formatNumber, formatSpread, type Spread } from './stats';

export type PartOutcome<T> =
  { kind: 'ok'; value: T } | { kind: 'skipped'; reason: string } | { kind: 'failed'; error: string };

export interface BenchResults {
  machine: MachineInfo;
  command: string;
  startedAt: Date;
  seconds: number;
  quick: boolean;
  calls?: PartOutcome<CallsResult>;
  server?: PartOutcome<ServerResult>;
  page?: PartOutcome<PageResult>;
  scaleOut?: PartOutcome<ScaleOutResult>;
  practice?: PartOutcome<PracticeResult>;
}

const mark = (met: boolean) => (met ? 'met' : '**missed**');

function outcomeBlock<T>(outcome: PartOutcome<T> | undefined, render: (value: T) => string[]): string[] {
  if (!outcome) return ['Not run (not selected).', ''];
  if (outcome.kind === 'skipped') return [`Skipped: ${outcome.reason}`, ''];
  if (outcome.kind === 'failed') return [`**Failed:** ${outcome.error}`, ''];
  return render(outcome.value);
}

function ratioText(row: CallsRow): string {
  if (row.status !== 'ok' || !row.goal) return '—';
  if (!row.ratio) return row.calls?.median === 0 ? '∞ (no calls)' : '—';
  return formatSpread(row.ratio, 1, '×');
}

/** The typical day of Demo Shop downloads under 2 MB (issue 19). */
const DAY_BYTES_GOAL = 2_000_000;
/** Working days in a month, for the month's estimate. */
const WORKING_DAYS = 22;

function goalText(row: CallsRow): string {
  if (!row.goal) return '—';
  if (row.status !== 'ok' || !row.calls) return '—';
  const ratio = row.calls.median === 0 ? Infinity : (row.naive?.median ?? 0) / row.calls.median;
  const bytes = row.bytes?.median ?? 0;
  const bytesRatio = bytes === 0 ? Infinity : (row.naiveBytes?.median ?? 0) / bytes;
  const callsNote = row.callsGoalNote
    ? ` (${row.callsGoalNote}: ${mark((row.naive?.median ?? 0) >= row.calls.median)})`
    : '';
  const fiveTimes = `≥ 5× calls: ${mark(ratio >= 5)}${callsNote}; ≥ 5× bytes: ${bytesGoalText(bytesRatio, bytes, row.floorBytes?.median ?? 0, row.floorModel)}`;
  const dayBytes = row.key === 'day-shop' ? `; < 2 MB: ${mark(bytes < DAY_BYTES_GOAL)}` : '';
  if (row.key.includes('day')) {
    const dayCalls = row.dayCallsGoal ?? mark(row.calls.median < 100);
    return `< 100 calls: ${dayCalls}; ${fiveTimes}${dayBytes}`;
  }
  return fiveTimes;
}

/** Bytes the reads may add to Xero's answers to the writes and still count as at the floor. */
const FLOOR_SLACK = 0.05;

/**
 * The bytes goal (issue 32): ≥ 5× below naive, or at the floor Xero imposes — where Xero answers a write with
 * the whole document, its answers to the writes are the least it sends; where a screen must read (every
 * outstanding invoice on a first visit), the least Xero can send for that read (`floorModel` says what it is
 * made of). The bytes may exceed the floor by FLOOR_SLACK and still count as at it.
 */
export function bytesGoalText(
  bytesRatio: number,
  bytes: number,
  floorBytes: number,
  floorModel?: string,
): string {
  if (bytesRatio >= 5) return mark(true);
  if (floorBytes <= 0) return mark(false);
  const over = Math.max(0, bytes - floorBytes);
  const share = floorModel
    ? `floor ${formatBytes(floorBytes)}: ${floorModel}`
    : `${formatBytes(floorBytes)} of ${formatBytes(bytes)} are Xero's answers to the writes`;
  if (over <= floorBytes * FLOOR_SLACK) return `met, at floor (${share})`;
  return floorModel
    ? `${mark(false)} (${share}; ${formatBytes(over)} over it)`
    : `${mark(false)} (floor ${formatBytes(floorBytes)}: ${share})`;
}

function bytesRatioText(row: CallsRow): string {
  if (row.status !== 'ok' || !row.goal) return '—';
  if (!row.bytesRatio) return row.bytes?.median === 0 ? '∞ (nothing)' : '—';
  return formatSpread(row.bytesRatio, 1, '×');
}

/** A month of typical days for both organisations, ours beside the naive client's, against Xero's tiers. */
function monthEstimate(rows: CallsRow[]): string[] {
  const day = rows.filter((r) => (r.key === 'day-shop' || r.key === 'day-builders') && r.status === 'ok');
  if (day.length !== 2) return [];
  const ours = WORKING_DAYS * day.reduce((sum, r) => sum + (r.bytes?.median ?? 0), 0);
  const naive = WORKING_DAYS * day.reduce((sum, r) => sum + (r.naiveBytes?.median ?? 0), 0);
  const perTier = (tier: number) => formatNumber(Math.floor(tier / Math.max(ours, 1)));
  return [
    '',
    `A month of typical days (${WORKING_DAYS} working days, Demo Shop Ltd and Demo Builders Ltd): **${formatBytes(ours)}** downloaded by Ledgerlink, ${formatBytes(naive)} by the naive client (${(naive / Math.max(ours, 1)).toFixed(1)}×). Xero's Core tier includes 10 GB a month for all of an app's connections, Plus 50 GB: at this rate about ${perTier(10e9)} such pairs of organisations fit in Core (${formatNumber(Math.floor(10e9 / Math.max(naive, 1)))} for the naive client), ${perTier(50e9)} in Plus.`,
  ];
}

function callsCell(row: CallsRow): string {
  if (row.status === 'not-built') return 'endpoint not built yet';
  if (row.status === 'failed') return '**failed**';
  return formatSpread(row.calls);
}

/** "GET /Invoices ×6 (4.1 MB)": each endpoint's calls and the bytes Xero answered them with, most calls first. */
export function endpointsText(endpoints: Record<string, number>, bytes: Record<string, number> = {}): string {
  const parts = Object.entries(endpoints)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ×${v}${bytes[k] !== undefined ? ` (${formatBytes(bytes[k])})` : ''}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

function renderLiveUpdates(live: LiveUpdatesResult): string[] {
  const met = (spread: Spread | null, ok: (median: number) => boolean) =>
    spread ? mark(ok(spread.median) && ok(spread.max)) : '—';
  return [
    '### Live updates (Xero webhooks, issue 18)',
    '',
    `The app with a webhook key, the sandbox sending signed webhooks to it as Xero does (events gathered for 250 ms into one delivery, as in demo mode), ${live.screens} screens open on GET /api/events. Changes are payments made in the sandbox as a person in Xero's web app; calls are counted in the sandbox's ledger for the organisation.`,
    '',
    '| Measure | Figure | Goal |',
    '|---|---|---|',
    `| A change in Xero reaches every open screen: Xero calls per batch of changes (${live.changesPerBatch} changes a batch, ${live.batches} batches) | ${formatSpread(live.callsPerBatch, 1)} | ≤ 1: ${met(live.callsPerBatch, (v) => v <= 1)} |`,
    `| Standard refresh, nothing changed, webhooks healthy: Xero calls | ${formatSpread(live.refreshCalls)} | 0: ${met(live.refreshCalls, (v) => v === 0)} |`,
    `| Time from a change to the screen (median, loopback; ${live.timings} changes) | ${formatSpread(live.changeToScreenMs, 0, ' ms')} | — (the e2e ceiling is 2 s) |`,
    '',
    ...(live.error ? [`**Failed in a run:** ${live.error}`, ''] : []),
  ];
}

function renderCalls(result: CallsResult): string[] {
  const lines = [
    `Sandbox scale ${result.scale}: ${formatNumber(result.outstanding)} outstanding sales invoices and ${formatNumber(result.drafts)} draft sales invoices in Demo Shop Ltd at the start of each run; ${result.runs} run(s), each on a freshly seeded sandbox and fresh databases (${formatNumber(result.seconds)} s in all).`,
    "Counted: Accounting API calls the sandbox received for the organisation (what Xero's 60/minute and daily limits count), and the bytes of their answers (what Xero's egress pricing counts; median of the runs); token refreshes go to the identity service and are listed in the notes.",
    '',
    '| Action | Xero calls | Naive | Naive ÷ ours | Downloaded (egress) | Naive downloads | Naive ÷ ours (bytes) | Goal | Time (ms) | Calls in the last run (bytes) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of result.rows) {
    lines.push(
      `| ${row.label} | ${callsCell(row)} | ${formatSpread(row.naive)} | ${ratioText(row)} | ${row.status === 'ok' && row.bytes ? formatBytes(row.bytes.median) : '—'} | ${row.goal && row.naiveBytes ? formatBytes(row.naiveBytes.median) : '—'} | ${bytesRatioText(row)} | ${goalText(row)} | ${row.status === 'ok' ? formatSpread(row.ms) : '—'} | ${row.status === 'ok' ? endpointsText(row.endpoints, row.endpointBytes) : row.notes.join('; ')} |`,
    );
  }
  lines.push(
    '',
    "Naive model (same screen flow, computed from the sandbox's data in the same run): lists at Xero's default 100 a page with every field (no summaryOnly), no cache and no If-Modified-Since, one call per item written; its bytes are what the sandbox's own serialisers would send for those calls (bench/lib/naive-cost.ts).",
    ...monthEstimate(result.rows),
    '',
  );
  for (const row of result.rows) {
    if (row.naiveModel !== '—') lines.push(`- ${row.label}: ${row.naiveModel}.`);
  }
  const notes = result.rows.filter((r) => r.notes.length > 0 && r.status === 'ok');
  if (notes.length > 0) {
    lines.push('', 'Notes:', '');
    for (const row of notes) lines.push(`- ${row.label}: ${row.notes.join('; ')}.`);
  }
  lines.push('');
  if (result.live) lines.push(...renderLiveUpdates(result.live));
  return lines;
}

function spreadOr(spread: Spread | null, decimals = 0, unit = ''): string {
  return formatSpread(spread, decimals, unit);
}

function renderServer(result: ServerResult): string[] {
  const pg = result.postgres !== null && result.targets.some((t) => t.pg);
  const lines = [
    `autocannon on loopback, ${result.connections} connections, ${result.durationSec} s per measurement, ${result.runs} measurement(s) per target, app${pg ? ', app on PostgreSQL' : ''} and bare route back to back in each round. The app runs in its own process on ${result.database}${pg ? ` and, beside it, on ${result.postgres} (same data)` : ''}, signed in, every read served from its cache (Xero calls during the load: ${result.xeroCallsDuringLoad}).`,
    "Requests ask for gzip, as browsers do. The bare route is a plain Fastify route in another process answering the very same bytes (gzip-compressed once from 1 KB, as the app's cache keeps them), so the ratio is what the app's session, tenancy, database read and serialisation cost. Goal: app ÷ bare ≥ 0.5.",
    '',
    pg
      ? '| Target | Bytes | App (PGlite) req/s | p99 ms | App (PostgreSQL) req/s | p99 ms | Bare req/s | p99 ms | ÷ bare, PGlite | ÷ bare, PostgreSQL |'
      : '| Target | Bytes | App req/s | p99 ms | Bare req/s | p99 ms | App ÷ bare |',
    pg ? '|---|---|---|---|---|---|---|---|---|---|' : '|---|---|---|---|---|---|---|',
  ];
  const ratioCell = (r: Spread | null) =>
    r ? `${formatSpread(r, 3)} ${r.median >= 0.5 ? '(met)' : '(**missed**)'}` : '—';
  for (const t of result.targets) {
    const base = `| ${t.label} | ${formatBytes(t.bytes)} | ${spreadOr(t.app.rps)} | ${spreadOr(t.app.p99)} |`;
    lines.push(
      pg
        ? `${base} ${spreadOr(t.pg?.rps ?? null)} | ${spreadOr(t.pg?.p99 ?? null)} | ${spreadOr(t.bare.rps)} | ${spreadOr(t.bare.p99)} | ${ratioCell(t.ratio)} | ${ratioCell(t.pg?.ratio ?? null)} |`
        : `${base} ${spreadOr(t.bare.rps)} | ${spreadOr(t.bare.p99)} | ${ratioCell(t.ratio)} |`,
    );
  }
  for (const t of result.missing) lines.push(`| ${t} | endpoint not built yet |${' |'.repeat(pg ? 8 : 5)}`);
  lines.push('');
  if (result.memory) {
    const m = result.memory;
    lines.push(
      `Memory, ${formatNumber(m.orgs)} organisations × ${formatNumber(m.invoicesPerOrg)} outstanding invoices cached (${formatNumber(m.orgs * m.invoicesPerOrg)} rows written straight into \`xero_invoices\` through Drizzle, ${m.database}; ${formatNumber(m.seedSeconds, 1)} s to write), then every organisation's /api/xero/invoices requested with ${result.connections} connections for ${m.loadSeconds} s, a fresh server process per run${m.serverCommand ? ` (${m.serverCommand})` : ''}:`,
      '',
      '| Server process | RSS |',
      '|---|---|',
      `| After start, idle | ${spreadOr(m.idleMb, 0, ' MB')} |`,
      `| Peak (VmHWM) after the load | ${spreadOr(m.peakMb, 0, ' MB')} |`,
      `| Requests answered during the load | ${spreadOr(m.requests)} |`,
      '',
      `For comparison, the load test's app processes just after start (2 organisations cached): ${m.idleLoadMb.pglite === null ? 'n/a' : `${formatNumber(m.idleLoadMb.pglite)} MB`} with PGlite inside, ${m.idleLoadMb.postgres === null ? 'n/a (no PostgreSQL)' : `${formatNumber(m.idleLoadMb.postgres)} MB`} on PostgreSQL (the database's memory is then in its own processes).`,
      '',
    );
    if (m.note) lines.push(m.note, '');
  }
  return lines;
}

function renderPage(result: PageResult): string[] {
  const lines = [
    `Client built with Vite into a scratch folder (${formatNumber(result.buildSeconds, 1)} s, with the .br/.gz files the app serves). First screen = the entry chunk, the chunks it imports statically and its CSS: the shell (header, router, page spinner); every page, sign-in and the organisations list included, is a lazy chunk.`,
    '',
    '| First screen | Files | Raw | gzip | Goal < 150 KB gzip |',
    '|---|---|---|---|---|',
    `| JavaScript | ${result.js.files} | ${formatBytes(result.js.raw)} | ${formatBytes(result.js.gzip)} | |`,
    `| CSS | ${result.css.files} | ${formatBytes(result.css.raw)} | ${formatBytes(result.css.gzip)} | |`,
    `| Total | ${result.js.files + result.css.files} | ${formatBytes(result.js.raw + result.css.raw)} | ${formatBytes(result.js.gzip + result.css.gzip)} | ${mark(result.js.gzip + result.css.gzip < 150 * 1024)} |`,
    '',
    ...(result.composition.length > 0
      ? [
          "Largest parts of the first screen (gzip of each package's share of the chunks, from the source maps):",
          '',
          `${result.composition.map((c) => `${c.name} ${formatBytes(c.gzip)}`).join(' · ')}`,
          '',
        ]
      : []),
    'Pages (must be lazy):',
    '',
    '| Route module | Lazy | Own chunk gzip |',
    '|---|---|---|',
  ];
  for (const r of result.routes)
    lines.push(
      `| ${r.module} | ${r.lazy ? 'yes' : '**no: in the first screen**'} | ${r.gzip === null ? '—' : formatBytes(r.gzip)} |`,
    );
  const sent = formatBytes(result.wire?.bytes ?? result.js.raw + result.css.raw);
  const how = result.wire ? ` (${result.wire.encodings.join(', ')})` : '';
  lines.push(
    '',
    result.servedCompressed
      ? `Served compressed by the app: yes: the first screen goes over the wire as ${sent}${how}, to a browser that accepts Brotli and gzip (files compressed at build time).`
      : `Served compressed by the app: **no**: the first screen goes over the wire as ${sent}, not the gzip figure above, and API answers are uncompressed too.`,
    '',
  );
  if (result.browser.kind === 'ok') {
    const b = result.browser.value;
    lines.push(
      `Headless Chromium on loopback, ${b.runs} page loads, a new browser context each (empty HTTP cache), server cache warm with ${formatNumber(b.invoices)} outstanding invoices:`,
      '',
      '| Page | Median (min–max) |',
      '|---|---|',
      `| /invoices: navigation to the first invoice shown | ${spreadOr(b.firstInvoiceMs, 0, ' ms')} |`,
      `| /invoices: DOMContentLoaded | ${spreadOr(b.domContentLoadedMs, 0, ' ms')} |`,
      `| /organizations: navigation to the first organisation card | ${spreadOr(b.organisationsMs, 0, ' ms')} |`,
      `| /invoices: bytes transferred (all requests) | ${spreadOr(b.transferredKb, 0, ' KB')} |`,
      '',
    );
    const f = b.firstVisit;
    if (f.kind === 'ok') {
      const v = f.value;
      const firstMs = v.firstInvoiceMs?.median ?? null;
      lines.push(
        `First visit, empty cache (issues 19 and 32): the app in a process of its own, run as \`npm start\` runs it, on a new database in its data folder each run, the sandbox (in the bench's process) adding ${formatNumber(v.latencyMs)} ms to every Xero call, Xero's pages at their real size, ${formatNumber(v.invoices)} outstanding invoices; ${v.runs} run(s). The first page (250 invoices) is answered at once, the rest is read on the server in the background in pages of 1,000 under a progress bar:`,
        '',
        '| Page | Median (min–max) | Goal |',
        '|---|---|---|',
        `| /invoices: time to first invoice, first visit, empty cache | ${spreadOr(v.firstInvoiceMs, 0, ' ms')} | ≤ 2 s ${firstMs === null ? '' : mark(firstMs <= 2000)} |`,
        `| /invoices: until the whole list is read and shown (progress bar gone) | ${spreadOr(v.syncedMs, 0, ' ms')} | |`,
        '',
      );
    } else if (f.kind === 'skipped') {
      lines.push(`First visit, empty cache: skipped: ${f.reason}`, '');
    } else {
      lines.push(`**First visit, empty cache: failed:** ${f.error}`, '');
    }
  } else if (result.browser.kind === 'skipped') {
    lines.push(`Browser timings skipped: ${result.browser.reason}`, '');
  } else {
    lines.push(`**Browser timings failed:** ${result.browser.error}`, '');
  }
  if (typeof result.lighthouse === 'string') {
    lines.push(`Lighthouse: ${result.lighthouse}`, '');
  } else {
    const rows = result.lighthouse;
    const names = rows[0]?.metrics.map((m) => m.name) ?? [];
    lines.push(
      "Lighthouse performance audit (Lighthouse's own Chromium session on loopback, a fresh browser per run; median (min–max)):",
      '',
      `| Target | Runs | Score | ${names.join(' | ')} |`,
      `|---|---|---|${names.map(() => '---').join('|')}|`,
      ...rows.map(
        (r) =>
          `| ${r.label} | ${r.runs} | ${spreadOr(r.score)} | ${r.metrics.map((m) => (m.unit === 'ms' ? spreadOr(m.value, 0, ' ms') : spreadOr(m.value, 3))).join(' | ')} |`,
      ),
      '',
    );
    const warnings = rows.flatMap((r) => r.warnings.map((w) => `${r.label}: ${w}`));
    if (warnings.length > 0) lines.push('Lighthouse warnings:', '', ...warnings.map((w) => `- ${w}`), '');
  }
  return lines;
}

function renderScaleOut(result: ScaleOutResult): string[] {
  const lines = [
    `Two app instances (buildApp, each on its own loopback port, own Xero client and caches) sharing one PostgreSQL ${result.postgres} and one sandbox; ${result.runs} run(s).`,
    '',
    '| Check | Result | Expected |',
    '|---|---|---|',
  ];
  for (const c of result.checks)
    lines.push(`| ${c.label} | ${c.passed ? c.detail : `**${c.detail}**`} | ${c.expected} |`);
  lines.push('');
  if (result.gate.length > 0) {
    const one = result.gate.find((g) => g.instances === 1);
    lines.push(
      `Shared Xero gate: each row sends the same payments for one organisation at once, spread over the instances, against a sandbox with Xero's limits (60 a minute, 5 in flight); violations are the calls the sandbox counted over a limit. Goal: 0 with three instances.`,
      '',
      '| Instances | Payments sent | Failed | Violations (minute / in flight / day / app) | Time | vs one instance |',
      '|---|---|---|---|---|---|',
    );
    for (const g of result.gate) {
      const v = g.violations;
      const total = v.minute + v.concurrent + v.day + v.appMinute;
      const violations = `${v.minute} / ${v.concurrent} / ${v.day} / ${v.appMinute}`;
      lines.push(
        `| ${g.instances} | ${g.payments} of ${g.writes} | ${g.failed} | ${total === 0 ? violations : `**${violations}**`} | ${formatNumber(g.seconds)} s | ${one ? `${(g.seconds / one.seconds).toFixed(2)}×` : ''} |`,
      );
    }
    lines.push('');
  }
  return lines;
}

/** Issue 47's goals. */
const PRACTICE_GOALS = { peakMb: 400, warmMs: 50, ratio: 0.5, firstRowMs: 2_000 };

export function renderPractice(result: PracticeResult): string[] {
  const runs = result.runsByDatabase;
  const cell = (render: (r: PracticeResult['runsByDatabase'][number]) => string) =>
    runs.map((r) => render(r)).join(' | ');
  const ms = (v: number | null) => (v === null ? 'did not happen' : `${formatNumber(v)} ms`);
  const seconds = (v: number | null) => (v === null ? 'did not finish' : `${formatNumber(v / 1000, 1)} s`);
  const goal = (met: boolean | null, text: string) => (met === null ? `${text}: —` : `${text}: ${mark(met)}`);
  const all = (test: (r: (typeof runs)[number]) => boolean | null) => {
    const seen = runs.map(test);
    return seen.some((v) => v === null) ? null : seen.every(Boolean);
  };
  const violations = (r: (typeof runs)[number]) =>
    r.cold.violations.minute +
    r.cold.violations.concurrent +
    r.cold.violations.day +
    r.cold.violations.appMinute;
  return [
    `One user keeps ${formatNumber(result.organizations)} client organisations of the sandbox (\`SANDBOX_CLIENTS\`, each at scale ${result.scale}: ${formatNumber(200 * result.scale)} sales invoices awaiting payment, drafts, bills, a shop's stock journals or a contractor's CIS subcontractors, every feature on). One instance in its own process (${result.serverCommand}) on each database in turn, fresh, with Xero's own limits in its gate and in the sandbox (60 calls a minute and 5 at once per organisation, 10,000 a minute for the app) and ${result.latencyMs} ms added to every Xero answer. The cold first open asks for GET /api/practice/today every 100 ms until every row is read; the warm page is autocannon, ${result.connections} connections, ${result.durationSec} s a measurement, ${result.runs} measurement(s), beside a bare Fastify route answering the same bytes (gzip), as in §2.${result.postgresMissing ? ` PostgreSQL: ${result.postgresMissing}.` : ''}`,
    '',
    `| Measure | ${runs.map((r) => r.database).join(' | ')} | Goal |`,
    `|---|${runs.map(() => '---').join('|')}|---|`,
    `| Organisations (rows) | ${cell((r) => formatNumber(r.organizations))} | — |`,
    `| Invoices awaiting payment per organisation | ${cell((r) => formatSpread(r.invoicesPerOrg))} | — |`,
    `| Cold first open: first row with figures | ${cell((r) => ms(r.cold.firstRowMs))} | ${goal(
      all((r) => (r.cold.firstRowMs === null ? false : r.cold.firstRowMs <= PRACTICE_GOALS.firstRowMs)),
      '≤ 2 s',
    )} |`,
    `| Cold first open: first row read whole | ${cell((r) => ms(r.cold.firstReadyMs))} | — |`,
    `| Cold first open: every row read (time to complete) | ${cell((r) => seconds(r.cold.completeMs))} | — |`,
    `| Cold first open: Xero calls (per organisation) | ${cell((r) => `${formatNumber(r.cold.calls)} (${formatNumber(r.cold.calls / Math.max(1, r.organizations), 1)})`)} | — |`,
    `| Cold first open: calls over a Xero limit (minute / at once / day / app minute) | ${cell((r) => `${violations(r)} (${r.cold.violations.minute} / ${r.cold.violations.concurrent} / ${r.cold.violations.day} / ${r.cold.violations.appMinute})`)} | ${goal(
      all((r) => violations(r) === 0),
      '0',
    )} |`,
    `| Cold first open: rows that failed | ${cell((r) => formatNumber(r.cold.failedRows))} | — |`,
    `| Warm page: bytes | ${cell((r) => formatBytes(r.warm.bytes))} | — |`,
    `| Warm page: latency p50 / p99 | ${cell((r) => `${formatSpread(r.warm.p50, 0, ' ms')} / ${formatSpread(r.warm.p99, 0, ' ms')}`)} | ${goal(
      all((r) => (r.warm.p99 ? r.warm.p99.median <= PRACTICE_GOALS.warmMs : null)),
      'p99 ≤ 50 ms',
    )} |`,
    `| Warm page: requests a second (bare route) | ${cell((r) => `${formatSpread(r.warm.rps)} (${formatSpread(r.warm.bareRps)})`)} | — |`,
    `| Warm page: ÷ bare | ${cell((r) => formatSpread(r.warm.ratio, 3))} | ${goal(
      all((r) => (r.warm.ratio ? r.warm.ratio.median >= PRACTICE_GOALS.ratio : null)),
      '≥ 0.5',
    )} |`,
    `| Warm page: server CPU per request, app (bare route) | ${cell((r) => `${formatSpread(r.warm.cpuUs, 0, ' µs')} (${formatSpread(r.warm.bareCpuUs, 0, ' µs')})`)} | — |`,
    `| Warm page: bare route's CPU ÷ app's${runs.some((r) => r.warm.pinned) ? ' (load generator and server pinned apart)' : ''} | ${cell((r) => formatSpread(r.warm.cpuRatio, 3))} | — |`,
    `| Warm page: Xero calls during the load | ${cell((r) => formatNumber(r.warm.xeroCalls))} | ${goal(
      all((r) => r.warm.xeroCalls === 0),
      '0',
    )} |`,
    `| Server process: RSS after start / peak (VmHWM) | ${cell((r) => `${r.idleMb === null ? 'n/a' : `${formatNumber(r.idleMb)} MB`} / ${r.peakMb === null ? 'n/a' : `${formatNumber(r.peakMb)} MB`}`)} | ${goal(
      all((r) => (r.peakMb === null ? null : r.peakMb <= PRACTICE_GOALS.peakMb)),
      '≤ 400 MB',
    )} |`,
    '',
  ];
}

export function renderResults(results: BenchResults): string {
  const m = results.machine;
  const lines = [
    '# Benchmark results',
    '',
    `Produced by \`${results.command}\` on ${results.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC in ${formatNumber(results.seconds)} s${results.quick ? ' (BENCH_QUICK: reduced sizes, not the goal sizes)' : ''}.`,
    `Machine: ${m.cores} cores (${m.cpuModel}), ${m.memoryGb} GB memory, Node ${m.node}, ${m.os}; load average at start ${m.loadAtStart.join(' / ')} (the machine is shared: timings are noisy, call counts are not).`,
    'Each figure is the median of the runs, with the smallest and largest in brackets. How to run and what each figure means: bench/README.md.',
    '',
    '## 1. Xero calls per action',
    '',
    ...outcomeBlock(results.calls, renderCalls),
    '## 2. Server: cached reads under load, and memory',
    '',
    ...outcomeBlock(results.server, renderServer),
    '## 3. Page: first screen and time to first invoice',
    '',
    ...outcomeBlock(results.page, renderPage),
    '## 4. Scale-out: two instances, one PostgreSQL',
    '',
    ...outcomeBlock(results.scaleOut, renderScaleOut),
    '## 6. Practice: every organisation at a glance (issue 47)',
    '',
    ...outcomeBlock(results.practice, renderPractice),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * A run of some parts only (`npm run bench -- calls`) keeps the other parts' sections from the results file it
 * replaces, each marked with the run that produced it, instead of wiping them.
 */
export function keepUnselectedSections(fresh: string, previous: string | null): string {
  if (!previous) return fresh;
  const produced = /^Produced by .*$/m
    .exec(previous)?.[0]
    .replace(/^Produced by /, '')
    .replace(/\.$/, '');
  const sections = (text: string) => {
    const out = new Map<string, string>();
    const parts = text.split(/^(?=## \d+\. )/m);
    for (const part of parts.slice(1)) out.set(part.split('\n', 1)[0] ?? '', part);
    return out;
  };
  /** The `### ` subsections of a section, by heading. */
  const subsections = (section: string) => {
    const out = new Map<string, string>();
    for (const part of section.split(/^(?=### )/m).slice(1)) out.set(part.split('\n', 1)[0] ?? '', part);
    return out;
  };
  const old = sections(previous);
  const freshTitles = new Set(sections(fresh).keys());
  const [head = '', ...freshSections] = fresh.split(/^(?=## \d+\. )/m);
  const merged = freshSections.map((part) => {
    const title = part.split('\n', 1)[0] ?? '';
    const kept = old.get(title);
    if (!title.startsWith('## ') || !kept) return part;
    if (!part.includes('Not run (not selected).') || kept.includes('Not run (not selected).')) {
      // A section measured again: the notes written under the earlier figures (`### ` subsections the run
      // does not produce, e.g. the history of an issue's changes) stay, after the new figures.
      const own = subsections(part);
      const notes = [...subsections(kept)].filter(([heading]) => !own.has(heading)).map(([, text]) => text);
      return notes.length === 0
        ? part
        : `${part.trimEnd()}\n\n${notes.map((n) => n.trimEnd()).join('\n\n')}\n\n`;
    }
    let body = kept.slice(title.length).replace(/^\n+/, '');
    // A section already kept names the run that measured it; keep that name.
    const earlier = /^\(Kept from an earlier run: (.*)\.\)\n\n/.exec(body);
    if (earlier) body = body.slice(earlier[0].length);
    // A section that says which run it came from ("(From `npm run bench -- page` on …") needs no other name.
    if (!earlier && body.startsWith('(From `')) return `${title}\n\n${body.trimEnd()}\n\n`;
    return `${title}\n\n(Kept from an earlier run: ${earlier?.[1] ?? produced ?? 'an earlier run'}.)\n\n${body.trimEnd()}\n\n`;
  });
  // Sections no part of `npm run bench` writes (the soak's, `npm run soak`) are kept as they are, in their place by
  // number (§5 the soak's, between the parts' §4 and §6).
  const others = [...old].filter(([title]) => !freshTitles.has(title)).map(([, text]) => text);
  const numberOf = (section: string) => Number(/^## (\d+)\. /.exec(section)?.[1] ?? Number.MAX_SAFE_INTEGER);
  const sectionsInOrder = [...merged, ...others].sort((a, b) => numberOf(a) - numberOf(b));
  return [head, ...sectionsInOrder]
    .map((part) => part.trimEnd())
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\s*$/, '\n');
}
