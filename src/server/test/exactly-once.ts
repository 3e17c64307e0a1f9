/**
 * The world the exactly-once property drives (issue 11, "money writes survive every fault exactly once"):
 * a fresh Ledgerlink on a fresh database against a freshly reset sandbox, one connected user, the four
 * money-writing actions sent the way the browser sends them (one Idempotency-Key per action, the same
 * request again with the same key after a 5xx, up to twice), faults aimed at Xero on a schedule the
 * property chooses, crashes left in the write ledger as a stopped server would leave them, a restarted
 * instance that reconciles, and the check that Xero holds exactly what the users were told.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { getUkToday } from '../../shared/dates';
import { fromPence } from '../../shared/money';
import {
  getStockJournalKey,
  getStockJournalReference,
  splitSalesPeriod,
  type JournalPeriod,
  type SalesPeriod,
} from '../../shared/stock-journal';
import { SEED_NAMES, startSandbox, type LedgerWrite, type Sandbox } from '../../sandbox/sandbox';
import { amountDue } from '../../sandbox/invoice-math';
import type { OrgRec } from '../../sandbox/state';
import {
  auditLog,
  cisContractorSettings,
  organizations,
  stockJournalEntries,
  xeroWrites,
} from '../db/schema/index';
import { TEST_ORIGIN } from './app';
import { createTestDatabase, snapshotDatabase, type TestDatabase } from './database';
import {
  createConnectedUser,
  createXeroTestApp,
  enableFeatures,
  TEST_CLIENT,
  type XeroTestApp,
} from './xero';
import {
  fingerprintOf,
  withoutWriteMark,
  withWriteMark,
  type WriteAudit,
  type WriteRow,
} from '../ledger/index';
import { buildPaymentBody } from '../xero/xero-http/pay-invoices';
import { buildManualJournalBody } from '../xero/xero-http/stock-journal';

export type Owner = Awaited<ReturnType<typeof createConnectedUser>>;

/** Where a fault is aimed: at the action's write endpoint only, or at every Accounting API call. */
export type FaultAim = 'write' | 'all';

/** One action's fault schedule (src/sandbox/faults.ts), set just before the action is sent. */
export interface FaultPlan {
  aim: FaultAim;
  /** The next N calls answer `errorStatus`. */
  failNext: number;
  errorStatus: 500 | 503;
  /** A 429 burst, with Retry-After: 1 or without Retry-After. */
  burst: { count: number; retryAfterSeconds: 1 | null } | null;
  latencyMs: number;
  /** The next N writes are applied, then the connection is dropped before the answer. */
  dropAfterWrite: number;
  /** Every access token expires just as the action's first write leaves Ledgerlink. */
  expireMidWrite: boolean;
}

export const NO_FAULTS: FaultPlan = {
  aim: 'all',
  failNext: 0,
  errorStatus: 500,
  burst: null,
  latencyMs: 0,
  dropAfterWrite: 0,
  expireMidWrite: false,
};

export type CashShare = 'none' | 'part' | 'full';
export type CrashedKind = 'payment' | 'bill.create' | 'journal.create' | 'invoice.approve';
export type CrashPoint = 'pending' | 'sent-applied' | 'sent-lost';

export type Op =
  | { kind: 'pay'; share: 'full' | 'part' | 'penny'; isCard: boolean; faults: FaultPlan; double: boolean }
  | { kind: 'bill'; pence: number; authorised: boolean; faults: FaultPlan; double: boolean }
  | {
      kind: 'bills';
      bills: Array<{ pence: number; authorised: boolean }>;
      faults: FaultPlan;
      double: boolean;
    }
  | { kind: 'approve'; cash: CashShare[]; faults: FaultPlan; double: boolean }
  | { kind: 'journal'; faults: FaultPlan; double: boolean }
  | { kind: 'crash'; write: CrashedKind; at: CrashPoint }
  | { kind: 'return'; pick: number; later: boolean; faults: FaultPlan }
  /** A later payment (a new key) on an invoice an earlier action paid part of. */
  | { kind: 'payAgain'; pick: number; isCard: boolean; faults: FaultPlan; double: boolean }
  /** An earlier payment request sent again, same key and body, after later payments (a second tab, a proxy, a resumed request), on this instance or a restarted one. */
  | { kind: 'resend'; pick: number; restart: boolean }
  /** Two payments on one invoice at the same moment, under two keys (two tabs). */
  | { kind: 'payTogether'; faults: FaultPlan };

/** The Xero write an action or a crash is about, as the sandbox ledger records it. */
export type WriteType = 'payment' | 'bill' | 'journal' | 'approve';

export interface Target {
  type: WriteType;
  /** Invoice id (payment, approve), bill reference, or journal narration: what the sandbox write carries. */
  target: string;
  /** The ledger key of this write (rows are looked up by it). */
  key: string;
  amountPence: number;
}

/** What one user action was told, after the browser's retries. */
export type Told = 'success' | 'refused' | 'in-doubt';

export interface ActionRecord {
  label: string;
  /** How to send it again (the user repeating the action with the same key). */
  spec: ActionSpec;
  targets: Target[];
  /** Per target key: what the user was told about that write, and the Xero id when told it succeeded. */
  told: Map<string, { told: Told; xeroId?: string; message?: string }>;
  /** Final HTTP statuses of each submission. */
  statuses: number[];
  attempts: number;
}

export interface CrashRecord {
  label: string;
  target: Target;
  at: CrashPoint;
  /** The Xero id of the write applied directly (sent-applied). */
  appliedId?: string;
  journalEntryId?: number;
}

export interface World {
  t: XeroTestApp;
  sandbox: Sandbox;
  owner: Owner;
  label: string;
  shop: { organizationId: number; tenantId: string };
  builders: { organizationId: number; tenantId: string };
  ids: {
    card: string;
    cash: string;
    stock: string;
    cost: string;
    dailySales: string;
    subcontractors: string[];
  };
  today: string;
  /** Open sales invoices nothing has been paid on, handed out one per payment. */
  invoices: Array<{ invoiceId: string; invoiceNumber: string; duePence: number }>;
  drafts: Array<{ invoiceId: string; invoiceNumber: string; totalPence: number }> | null;
  periods: JournalPeriod[] | null;
  serial: number;
  actions: ActionRecord[];
  crashes: CrashRecord[];
  /** Keys of writes a test sent itself (outside `runOp`), so the invariant knows whose they are. */
  manualKeys: Set<string>;
  /** Product misbehaviour seen on the wire (a 500, a refusal without a message…). */
  problems: string[];
  /** Invoices payments were made on, by id: their balances must be shown as Xero has them. */
  touched: Map<string, string>;
  counts: Record<string, number>;
}

/** Xero's limits are raised: the runs count writes, and Retry-After waits are the 429s the faults send. */
export const XERO_HTTP_OPTIONS = {
  backoffMs: () => 5,
  gate: { maxInFlight: 5, perMinute: 100_000, windowMs: 60_500 },
};

export async function startExactlyOnceSandbox(): Promise<Sandbox> {
  return startSandbox({
    port: 0,
    dataDir: null,
    clients: [
      {
        ...TEST_CLIENT,
        redirectUris: [`${TEST_ORIGIN}/api/xero/callback`, `${TEST_ORIGIN}/api/auth/xero/callback`],
      },
    ],
    minuteLimit: 100_000,
    concurrentLimit: 50,
    appMinuteLimit: 1_000_000,
  });
}

function orgRec(sandbox: Sandbox, tenantId: string): OrgRec {
  const org = sandbox.state.orgs.find((o) => o.OrganisationID === tenantId);
  if (!org) throw new Error(`sandbox has no organisation ${tenantId}`);
  return org;
}

function required<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`seed has no ${what}`);
  return value;
}

/** One database for every world of a suite, put back as it was created before each world (snapshotDatabase). */
export interface ReusedDatabase {
  database: TestDatabase;
  restore(): Promise<void>;
}

export async function reusableDatabase(): Promise<ReusedDatabase> {
  const database = await createTestDatabase();
  return { database, restore: await snapshotDatabase(database) };
}

/**
 * A reset sandbox and a new Ledgerlink with one user connected to both demo organisations: on a new database,
 * or on `reused`, put back as it was created.
 */
export async function createWorld(sandbox: Sandbox, label: string, reused?: ReusedDatabase): Promise<World> {
  await sandbox.reset();
  if (reused) await reused.restore();
  const t = await createXeroTestApp({
    sandboxInstance: sandbox,
    xeroHttp: XERO_HTTP_OPTIONS,
    ...(reused ? { database: reused.database } : {}),
  });
  const owner = await createConnectedUser(t, `eo.${label}`);
  const shopOrg = required(
    owner.orgs.find((o) => o.tenantName === SEED_NAMES.shop),
    'Demo Shop',
  );
  const buildersOrg = required(
    owner.orgs.find((o) => o.tenantName === SEED_NAMES.builders),
    'Demo Builders',
  );
  await enableFeatures(t, shopOrg.organizationId);
  await enableFeatures(t, buildersOrg.organizationId);
  const shopRec = orgRec(sandbox, shopOrg.tenantId);
  const buildersRec = orgRec(sandbox, buildersOrg.tenantId);
  const account = (org: OrgRec, test: (a: OrgRec['accounts'][number]) => boolean, what: string) =>
    required(org.accounts.find(test), what).AccountID;
  const ids = {
    card: account(shopRec, (a) => a.Name === SEED_NAMES.creditCardAccount, 'card account'),
    cash: account(shopRec, (a) => a.Name === SEED_NAMES.cashAccount, 'cash account'),
    stock: account(shopRec, (a) => a.Code === '630', 'stock account'),
    cost: account(shopRec, (a) => a.Code === '310', 'cost account'),
    dailySales: required(
      shopRec.contacts.find((c) => c.Name === SEED_NAMES.dailySalesContact),
      'Daily Sales',
    ).ContactID,
    subcontractors: required(
      buildersRec.contactGroups.find((g) => g.Name === SEED_NAMES.cisGroup),
      'CIS group',
    ).contactIds,
  };
  // The defaults the features need, as Settings would save them.
  await t.database.db
    .update(organizations)
    .set({
      defaultCashAccountId: ids.cash,
      defaultStockJournalContactId: ids.dailySales,
      defaultStockJournalStockAccountId: ids.stock,
      defaultStockJournalCostAccountId: ids.cost,
      defaultStockJournalMarginRate: '1.35',
      defaultStockJournalPostingStatus: 'draft',
    })
    .where(eq(organizations.id, shopOrg.organizationId));
  // Issue 42: the builder's CIS deductions go to its CIS Deductions Payable account, as CIS settings choose it.
  await t.database.db
    .insert(cisContractorSettings)
    .values({ organizationId: buildersOrg.organizationId, deductionAccountCode: '814' });
  const invoices = shopRec.invoices
    .filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.amountPaid === 0 && i.total > 100)
    .map((i) => ({ invoiceId: i.InvoiceID, invoiceNumber: i.InvoiceNumber, duePence: i.total }));
  return {
    t,
    sandbox,
    owner,
    label,
    shop: { organizationId: shopOrg.organizationId, tenantId: shopOrg.tenantId },
    builders: { organizationId: buildersOrg.organizationId, tenantId: buildersOrg.tenantId },
    ids,
    today: getUkToday(),
    invoices,
    drafts: null,
    periods: null,
    serial: 0,
    actions: [],
    crashes: [],
    manualKeys: new Set(),
    problems: [],
    touched: new Map(),
    counts: {},
  };
}

function count(world: World, name: string, by = 1) {
  world.counts[name] = (world.counts[name] ?? 0) + by;
}

/* ------------------------------------------------------------------ faults */

let armedSandbox: Sandbox | null = null;
let realFetch: typeof fetch | null = null;

/**
 * Token expiry mid-write: the test wraps fetch (the app runs in this process) so that, when armed, every
 * access token expires just as the next write to the Accounting API leaves Ledgerlink: after the write was
 * recorded and its token read, before Xero sees it.
 */
export function installMidWriteExpiry(): void {
  if (realFetch) return;
  const original = globalThis.fetch;
  realFetch = original;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const url = input instanceof URL ? input : new URL(typeof input === 'string' ? input : input.url);
    if (
      armedSandbox &&
      method !== 'GET' &&
      url.pathname.startsWith('/api.xro/') &&
      url.origin === armedSandbox.url
    ) {
      const sandbox = armedSandbox;
      armedSandbox = null;
      sandbox.expireTokens();
    }
    return original(input, init);
  }) as typeof fetch;
}

export function removeMidWriteExpiry(): void {
  if (realFetch) globalThis.fetch = realFetch;
  realFetch = null;
  armedSandbox = null;
}

export function applyFaults(world: World, plan: FaultPlan, writePath: string): void {
  world.sandbox.clearFaults();
  armedSandbox = plan.expireMidWrite ? world.sandbox : null;
  const faults: Parameters<Sandbox['setFaults']>[0] = {};
  if (plan.aim === 'write') faults.pathPrefix = writePath;
  if (plan.failNext > 0) {
    faults.failNext = plan.failNext;
    faults.errorStatus = plan.errorStatus;
  }
  if (plan.burst)
    faults.rateLimitBurst = { count: plan.burst.count, retryAfterSeconds: plan.burst.retryAfterSeconds };
  if (plan.latencyMs > 0) faults.latencyMs = plan.latencyMs;
  if (plan.dropAfterWrite > 0) faults.dropAfterWrite = plan.dropAfterWrite;
  world.sandbox.setFaults(faults);
  for (const [name, on] of Object.entries({
    failNext: plan.failNext > 0,
    burst429RetryAfter: plan.burst?.retryAfterSeconds === 1,
    burst429NoRetryAfter: plan.burst?.retryAfterSeconds === null,
    latency: plan.latencyMs > 0,
    dropAfterWrite: plan.dropAfterWrite > 0,
    expireMidWrite: plan.expireMidWrite,
  })) {
    if (on) count(world, `fault.${name}`);
  }
}

export function clearFaults(world: World): void {
  world.sandbox.clearFaults();
  armedSandbox = null;
}

/* ------------------------------------------------------------------ the browser */

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

function parse(res: LightMyRequestResponse): Answer {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = res.json();
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = { unparsed: res.body.slice(0, 200) };
  }
  return { status: res.statusCode, body };
}

/** One request, sent once (the user closed the tab before the browser could retry). */
export async function postOnce(world: World, url: string, payload: unknown, key: string): Promise<Answer> {
  const res = await world.t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: world.owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
    payload: payload as Record<string, unknown>,
  });
  return parse(res);
}

/** One user action as the browser sends it: the same request and key again after a 5xx, up to twice. */
async function sendAsBrowser(
  world: World,
  url: string,
  payload: unknown,
  key: string,
): Promise<{ answer: Answer; attempts: number }> {
  let answer: Answer = { status: 0, body: {} };
  let attempts = 0;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    attempts += 1;
    const res = await world.t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: world.owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
      payload: payload as Record<string, unknown>,
    });
    answer = parse(res);
    if (answer.status < 500) break;
  }
  return { answer, attempts };
}

/** A 4xx must carry a message; a 5xx may only pass on Xero's unavailability, with a message. */
function checkAnswer(world: World, label: string, answer: Answer): void {
  const message = answer.body.message;
  if (answer.status >= 400 && (typeof message !== 'string' || message.trim() === '')) {
    world.problems.push(
      `${label}: ${answer.status} without a message: ${JSON.stringify(answer.body).slice(0, 200)}`,
    );
  }
  if (answer.status >= 500 && (answer.status === 500 || answer.body.code !== 'XERO_UNAVAILABLE')) {
    world.problems.push(`${label}: ${answer.status} ${String(answer.body.code)}: ${String(message)}`);
  }
  count(world, `answer.${answer.status}`);
}

/** What a whole-request answer tells about the request's writes. */
function toldBy(answer: Answer): Told {
  if (answer.status >= 200 && answer.status < 300) return 'success';
  const state = answer.body.writeState;
  if (state === 'pending' || state === 'sent' || state === 'unknown') return 'in-doubt';
  // Xero did not answer: whatever happened is for the ledger and its lookups to settle.
  if (answer.status >= 500) return 'in-doubt';
  return 'refused';
}

async function submit(
  world: World,
  op: { double: boolean },
  url: string,
  payload: unknown,
  key: string,
  label: string,
) {
  const runs = op.double
    ? [sendAsBrowser(world, url, payload, key), sendAsBrowser(world, url, payload, key)]
    : [sendAsBrowser(world, url, payload, key)];
  if (op.double) count(world, 'doubleSubmit');
  const results = await Promise.all(runs);
  for (const r of results) checkAnswer(world, label, r.answer);
  return { answers: results.map((r) => r.answer), attempts: results.reduce((s, r) => s + r.attempts, 0) };
}

function nextKey(world: World, what: string): string {
  world.serial += 1;
  return `eo-${world.label}-${what}-${world.serial}`;
}

/* ------------------------------------------------------------------ pools */

export async function takeInvoice(world: World) {
  return world.invoices.shift() ?? null;
}

export async function loadDrafts(world: World) {
  if (world.drafts) return world.drafts;
  const res = await world.owner.call('GET', `/api/xero/draft-invoices?org=${world.shop.organizationId}`);
  if (res.statusCode !== 200) throw new Error(`draft invoices: ${res.statusCode} ${res.body}`);
  const list = res.json() as Array<{ id: string; invoiceNumber: string; totalAmount: number }>;
  world.drafts = list
    .filter((d) => d.totalAmount > 0.1)
    .map((d) => ({
      invoiceId: d.id,
      invoiceNumber: d.invoiceNumber,
      totalPence: Math.round(d.totalAmount * 100),
    }));
  return world.drafts;
}

export async function loadPeriods(world: World) {
  if (world.periods) return world.periods;
  // As the Stock Journal screen does on opening: the status sync (adopts journals made outside), then the weeks.
  const sync = await world.owner.call(
    'POST',
    `/api/xero/stock-journal/sync-status?org=${world.shop.organizationId}`,
  );
  if (sync.statusCode !== 200) throw new Error(`sync-status: ${sync.statusCode} ${sync.body}`);
  const from = new Date(Date.now() - 150 * 86_400_000).toISOString().slice(0, 10);
  const res = await world.owner.call(
    'GET',
    `/api/xero/sales?org=${world.shop.organizationId}&customerId=${world.ids.dailySales}&fromDate=${from}&toDate=${world.today}`,
  );
  if (res.statusCode !== 200) throw new Error(`sales: ${res.statusCode} ${res.body}`);
  const periods = (res.json() as SalesPeriod[])
    .flatMap((p) => splitSalesPeriod(p))
    .filter((p) => p.netTotal > 0 && p.periodEnd < world.today);
  const journals = orgRec(world.sandbox, world.shop.tenantId).journals;
  // Periods with a journal already are left for the 409 they must get; the pool hands out free ones.
  world.periods = periods.filter(
    (p) =>
      !journals.some(
        (j) => withoutWriteMark(j.Narration) === getStockJournalReference(p.periodStart, p.periodEnd),
      ),
  );
  return world.periods;
}

/* ------------------------------------------------------------------ actions */

export async function rowsByKeys(world: World, keys: string[]): Promise<Map<string, WriteRow>> {
  if (keys.length === 0) return new Map();
  const rows = await world.t.database.db
    .select()
    .from(xeroWrites)
    .where(inArray(xeroWrites.idempotencyKey, keys));
  return new Map(rows.map((r) => [r.idempotencyKey, r]));
}

/** What one answer told about one write of the action. */
type Verdict = { told: Told; xeroId?: string; message?: string };

interface ActionSpec {
  label: string;
  url: string;
  payload: unknown;
  key: string;
  targets: Target[];
  writePath: string;
  /** Reads one answer into a verdict per target key. */
  classify: (answer: Answer) => Promise<Map<string, Verdict>>;
}

function single(key: string, answer: Answer, idField: string, okStatus: number): Map<string, Verdict> {
  const id = answer.body[idField];
  const told = toldBy(answer);
  return new Map([
    [
      key,
      {
        told,
        ...(told === 'success' && answer.status === okStatus && typeof id === 'string' ? { xeroId: id } : {}),
        message: String(answer.body.message ?? ''),
      },
    ],
  ]);
}

/** Merges verdicts: a success stays a success (and must keep its Xero id); otherwise the later answer counts. */
function merge(world: World, label: string, earlier: Verdict | undefined, later: Verdict): Verdict {
  if (!earlier) return later;
  if (earlier.xeroId && later.xeroId && earlier.xeroId.toLowerCase() !== later.xeroId.toLowerCase()) {
    world.problems.push(
      `${label}: answers name two different Xero items (${earlier.xeroId}, ${later.xeroId})`,
    );
  }
  if (earlier.told === 'success' && later.told === 'refused') {
    world.problems.push(`${label}: told it succeeded, then told it failed ("${later.message ?? ''}")`);
  }
  if (earlier.told === 'success' || later.told === 'success') {
    const xeroId = earlier.xeroId ?? later.xeroId;
    return { told: 'success', ...(xeroId ? { xeroId } : {}) };
  }
  return later;
}

/** Two submissions at once (a double click): the user believes the better answer. */
function combineConcurrent(a: Verdict, b: Verdict): Verdict {
  if (a.told === 'success' || b.told === 'success')
    return a.told === 'success'
      ? { ...a, xeroId: a.xeroId ?? b.xeroId }
      : { ...b, xeroId: b.xeroId ?? a.xeroId };
  if (a.told === 'in-doubt') return a;
  if (b.told === 'in-doubt') return b;
  return a;
}

async function perform(
  world: World,
  spec: ActionSpec,
  faults: FaultPlan,
  double: boolean,
  record?: ActionRecord,
) {
  applyFaults(world, faults, spec.writePath);
  const { answers, attempts } = await submit(world, { double }, spec.url, spec.payload, spec.key, spec.label);
  clearFaults(world);
  const verdicts = await Promise.all(answers.map((a) => spec.classify(a)));
  const target: ActionRecord = record ?? {
    label: `${spec.label}${double ? ' ×2' : ''}`,
    spec,
    targets: spec.targets,
    told: new Map(),
    statuses: [],
    attempts: 0,
  };
  target.statuses.push(...answers.map((a) => a.status));
  target.attempts += attempts;
  for (const t of spec.targets) {
    const now = verdicts
      .map((v) => v.get(t.key))
      .filter((v): v is Verdict => Boolean(v))
      .reduce<Verdict | null>((acc, v) => (acc ? combineConcurrent(acc, v) : v), null);
    if (now) target.told.set(t.key, merge(world, target.label, target.told.get(t.key), now));
  }
  if (!record) world.actions.push(target);
}

function payAction(
  world: World,
  op: Pick<Extract<Op, { kind: 'pay' }>, 'share' | 'isCard'>,
  given?: { invoiceId: string; invoiceNumber: string; duePence: number },
): ActionSpec | null {
  const invoice = given ?? world.invoices.shift();
  if (!invoice) return null;
  world.touched.set(invoice.invoiceId.toLowerCase(), invoice.invoiceNumber);
  const pence =
    op.share === 'full'
      ? invoice.duePence
      : op.share === 'part'
        ? Math.max(1, Math.floor(invoice.duePence / 2))
        : 1;
  const key = nextKey(world, 'pay');
  return {
    label: `pay ${invoice.invoiceNumber} £${fromPence(pence)} ${op.isCard ? 'card' : 'cash'}`,
    url: `/api/xero/payments?org=${world.shop.organizationId}`,
    payload: {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: op.isCard ? world.ids.card : world.ids.cash,
      amount: fromPence(pence),
      reference: '',
      isCard: op.isCard,
      date: world.today,
    },
    key,
    targets: [{ type: 'payment', target: invoice.invoiceId, key, amountPence: pence }],
    writePath: '/api.xro/2.0/Payments',
    classify: async (answer) => single(key, answer, 'paymentId', 200),
  };
}

export function billRequest(
  world: World,
  reference: string,
  pence: number,
  authorised: boolean,
  contactId: string,
) {
  return {
    contactId,
    date: world.today,
    reference,
    lineItems: [
      {
        description: 'Subcontractor services',
        quantity: 1,
        unitAmount: fromPence(pence),
        accountCode: '321',
      },
    ],
    status: authorised ? 'AUTHORISED' : 'DRAFT',
    // The CIS group holds contacts Xero does not mark as CIS: billed without a deduction, as confirmed (issue 42).
    withoutCisDeduction: true,
  };
}

export function pickSubcontractor(world: World): string {
  const list = world.ids.subcontractors;
  return required(list[world.serial % list.length], 'subcontractor');
}

function billAction(world: World, op: Extract<Op, { kind: 'bill' }>): ActionSpec {
  const key = nextKey(world, 'bill');
  const reference = `EO${world.serial}`;
  const payload = billRequest(world, reference, op.pence, op.authorised, pickSubcontractor(world));
  return {
    label: `bill ${reference} £${fromPence(op.pence)} ${payload.status}`,
    url: `/api/xero/create-bill?org=${world.builders.organizationId}`,
    payload,
    key,
    targets: [{ type: 'bill', target: reference, key, amountPence: op.pence }],
    writePath: '/api.xro/2.0/Invoices',
    classify: async (answer) => single(key, answer, 'invoiceID', 200),
  };
}

function billsAction(world: World, op: Extract<Op, { kind: 'bills' }>): ActionSpec {
  const key = nextKey(world, 'bills');
  const bills = op.bills.map((b, i) => {
    world.serial += 1;
    return {
      id: `b${i}`,
      pence: b.pence,
      bill: billRequest(world, `EO${world.serial}`, b.pence, b.authorised, pickSubcontractor(world)),
    };
  });
  const label = `bills ${bills.map((b) => `${b.bill.reference} £${fromPence(b.pence)} ${b.bill.status}`).join(', ')}`;
  return {
    label,
    url: `/api/xero/create-bills?org=${world.builders.organizationId}`,
    payload: { bills: bills.map((b) => ({ id: b.id, ...b.bill })) },
    key,
    targets: bills.map((b) => ({
      type: 'bill',
      target: b.bill.reference,
      key: `${key}:${b.id}`,
      amountPence: b.pence,
    })),
    writePath: '/api.xro/2.0/Invoices',
    classify: async (answer) => {
      const out = new Map<string, Verdict>();
      const results = (answer.body.results ?? []) as Array<{
        id: string;
        ok: boolean;
        invoiceID?: string;
        message?: string;
        statusCode?: number;
      }>;
      for (const bill of bills) {
        const itemKey = `${key}:${bill.id}`;
        if (answer.status !== 200) {
          out.set(itemKey, { told: toldBy(answer), message: String(answer.body.message ?? '') });
          continue;
        }
        const result = results.find((r) => r.id === bill.id);
        if (!result) {
          world.problems.push(`${label}: no result for bill ${bill.id}`);
          out.set(itemKey, { told: 'in-doubt' });
        } else if (result.ok && result.invoiceID) {
          out.set(itemKey, { told: 'success', xeroId: result.invoiceID });
        } else {
          if (!result.message) world.problems.push(`${label}: bill ${bill.id} failed without a message`);
          if ((result.statusCode ?? 0) >= 500 && result.statusCode !== 502)
            world.problems.push(`${label}: bill ${bill.id} failed with ${result.statusCode}`);
          // A bill whose write is still open (409, or Xero not answering) is in doubt; refused otherwise.
          const open = (result.statusCode ?? 0) >= 500 || result.statusCode === 409;
          out.set(itemKey, { told: open ? 'in-doubt' : 'refused', message: result.message ?? '' });
        }
      }
      return out;
    },
  };
}

async function approveAction(world: World, op: Extract<Op, { kind: 'approve' }>): Promise<ActionSpec | null> {
  const drafts = await loadDrafts(world);
  const items = op.cash
    .map((share) => ({ share, draft: drafts.shift() }))
    .filter((c): c is { share: CashShare; draft: NonNullable<(typeof c)['draft']> } => Boolean(c.draft))
    .map(({ share, draft }) => ({
      draft,
      cashPence:
        share === 'none'
          ? 0
          : share === 'full'
            ? draft.totalPence
            : Math.max(1, Math.floor(draft.totalPence / 3)),
    }));
  if (items.length === 0) return null;
  const key = nextKey(world, 'approve');
  const targets: Target[] = items.flatMap((i) => [
    {
      type: 'approve' as const,
      target: i.draft.invoiceId,
      key: `${key}:approve:${i.draft.invoiceId}`,
      amountPence: i.draft.totalPence,
    },
    ...(i.cashPence > 0
      ? [
          {
            type: 'payment' as const,
            target: i.draft.invoiceId,
            key: `${key}:payment:${i.draft.invoiceId}`,
            amountPence: i.cashPence,
          },
        ]
      : []),
  ]);
  const label = `approve ${items.map((i) => `${i.draft.invoiceNumber} cash £${fromPence(i.cashPence)}`).join(', ')}`;
  return {
    label,
    url: `/api/xero/draft-invoices/update?org=${world.shop.organizationId}`,
    payload: {
      invoices: items.map((i) => ({
        id: i.draft.invoiceId,
        cashAmount: fromPence(i.cashPence),
        approve: true,
      })),
    },
    key,
    targets,
    // Approvals go to POST /Invoices, their cash to PUT /Payments: aim at one or the other.
    writePath:
      items.some((i) => i.cashPence > 0) && world.serial % 2 === 0
        ? '/api.xro/2.0/Payments'
        : '/api.xro/2.0/Invoices',
    classify: async (answer) => {
      // The answer lists the invoices not processed, each with a message; the ledger rows say which of their
      // writes are open (in doubt) and which were refused.
      const rows = await rowsByKeys(
        world,
        targets.map((tg) => tg.key),
      );
      const out = new Map<string, Verdict>();
      for (const target of targets) {
        if (answer.status !== 200) {
          out.set(target.key, { told: toldBy(answer), message: String(answer.body.message ?? '') });
          continue;
        }
        const failed = ((answer.body.failed ?? []) as Array<{ id: string; message: string }>).find(
          (f) => f.id === target.target,
        );
        if (!failed) {
          out.set(target.key, { told: 'success' });
          continue;
        }
        if (!failed.message) world.problems.push(`${label}: ${target.target} failed without a message`);
        if (target.type === 'approve' && /was approved, but its cash payment/.test(failed.message)) {
          out.set(target.key, { told: 'success' });
          continue;
        }
        const state = rows.get(target.key)?.state;
        const told: Told =
          state === 'failed' || state === undefined
            ? 'refused'
            : state === 'confirmed'
              ? 'success'
              : 'in-doubt';
        out.set(target.key, { told, message: failed.message });
      }
      return out;
    },
  };
}

async function journalAction(world: World): Promise<ActionSpec | null> {
  const period = (await loadPeriods(world)).shift();
  if (!period) return null;
  const key = nextKey(world, 'journal');
  const narration = getStockJournalReference(period.periodStart, period.periodEnd);
  return {
    label: `journal ${period.periodStart}..${period.periodEnd}`,
    url: `/api/xero/stock-journal?org=${world.shop.organizationId}`,
    payload: {
      periodStart: period.periodStart,
      periodEnd: period.periodEnd,
      netAmount: period.netTotal,
      contactId: world.ids.dailySales,
      stockAccountId: world.ids.stock,
      costAccountId: world.ids.cost,
      marginRate: 1.35,
      reference: narration,
    },
    key,
    targets: [{ type: 'journal', target: narration, key, amountPence: 0 }],
    writePath: '/api.xro/2.0/ManualJournals',
    classify: async (answer) => single(key, answer, 'journalId', 201),
  };
}

/**
 * The user comes back to an action whose outcome they were not told (the browser gave up, the tab was
 * closed) and repeats it with the same key, possibly after Xero's 6-minute idempotency window: the server
 * must settle it from its ledger or by looking in Xero, never by writing again.
 */
async function returnToAction(world: World, op: Extract<Op, { kind: 'return' }>) {
  const open = world.actions.filter((a) => [...a.told.values()].some((v) => v.told === 'in-doubt'));
  const record = open[op.pick % Math.max(1, open.length)];
  if (!record) return;
  if (!op.later) {
    await perform(world, record.spec, op.faults, false, record);
    record.label = `${record.label}, repeated`;
    return;
  }
  // Only the sandbox's clock moves: while it runs 400 s ahead of Ledgerlink's, an ID token from a refresh
  // would look issued in the future, so no token expires during this one, and the clock comes back after
  // (the keys Xero dropped meanwhile stay dropped).
  world.sandbox.advanceClock(400);
  count(world, 'clock.advanced400s');
  try {
    await perform(world, record.spec, { ...op.faults, expireMidWrite: false }, false, record);
  } finally {
    world.sandbox.advanceClock(-400);
  }
  record.label = `${record.label}, repeated 7 min later`;
}

/* ------------------------------------------------------------------ crashes */

/**
 * A server that stopped between recording a write and hearing back: the ledger row is left `pending` (stopped
 * before sending) or `sent` (stopped while waiting); for `sent-applied` Xero got the write, sent here
 * directly with the row's own key as the stopped server would have sent it.
 */
async function runCrash(world: World, op: Extract<Op, { kind: 'crash' }>) {
  clearFaults(world);
  const key = nextKey(world, `crash-${op.write}`);
  const userId = world.owner.user.id;
  const http = world.t.parts.xeroHttp;
  const sentAt = op.at === 'pending' ? null : new Date();
  const base = {
    userId,
    idempotencyKey: key,
    state: op.at === 'pending' ? ('pending' as const) : ('sent' as const),
    attempts: op.at === 'pending' ? 0 : 1,
    sentAt,
  };
  const apply = op.at === 'sent-applied';
  let target: Target;
  let appliedId: string | undefined;
  let journalEntryId: number | undefined;

  if (op.write === 'payment') {
    const invoice = await takeInvoice(world);
    if (!invoice) return;
    const pence = Math.max(1, Math.floor(invoice.duePence / 4));
    const request = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: world.ids.cash,
      amount: fromPence(pence),
      date: world.today,
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
      requestedPence: pence,
    };
    target = { type: 'payment', target: invoice.invoiceId, key, amountPence: pence };
    world.touched.set(invoice.invoiceId.toLowerCase(), invoice.invoiceNumber);
    const audit: WriteAudit = {
      action: 'payment.create',
      target: invoice.invoiceId,
      username: world.owner.user.username,
      detail: { amountPence: pence },
    };
    await world.t.database.db.insert(xeroWrites).values({
      ...base,
      organizationId: world.shop.organizationId,
      kind: 'payment',
      fingerprint: fingerprintOf('payment', request),
      targetId: invoice.invoiceId,
      amountPence: pence,
      request,
      audit,
    });
    if (apply) {
      const { data } = await http.send<{ Payments: Array<{ PaymentID: string }> }>(
        userId,
        world.shop.tenantId,
        {
          method: 'PUT',
          path: '/api.xro/2.0/Payments',
          body: buildPaymentBody(request),
          idempotencyKey: key,
        },
      );
      appliedId = data.Payments[0]?.PaymentID;
    }
  } else if (op.write === 'bill.create') {
    world.serial += 1;
    const reference = `EO${world.serial}`;
    const contactId = pickSubcontractor(world);
    const pence = 12_345 + world.serial;
    const line = {
      description: 'Subcontractor services',
      quantity: 1,
      unitPence: pence,
      accountCode: '321',
      taxType: null,
    };
    const request = {
      contactId,
      date: world.today,
      reference,
      status: 'DRAFT',
      totalPence: pence,
      lineAmountTypes: 'NoTax',
      lines: [line],
    };
    target = { type: 'bill', target: reference, key, amountPence: pence };
    await world.t.database.db.insert(xeroWrites).values({
      ...base,
      organizationId: world.builders.organizationId,
      kind: 'bill.create',
      fingerprint: fingerprintOf('bill.create', request),
      targetId: contactId,
      amountPence: pence,
      request,
    });
    if (apply) {
      const element = {
        Type: 'ACCPAY',
        Contact: { ContactID: contactId },
        Date: world.today,
        DueDate: world.today,
        InvoiceNumber: reference,
        LineAmountTypes: 'NoTax',
        Status: 'DRAFT',
        LineItems: [
          { Description: line.description, Quantity: 1, UnitAmount: fromPence(pence), AccountCode: '321' },
        ],
      };
      const { data } = await http.send<{ Invoices: Array<{ InvoiceID: string }> }>(
        userId,
        world.builders.tenantId,
        {
          method: 'PUT',
          path: '/api.xro/2.0/Invoices',
          query: { summarizeErrors: false },
          body: { Invoices: [element] },
          idempotencyKey: key,
        },
      );
      appliedId = data.Invoices[0]?.InvoiceID;
    }
  } else if (op.write === 'journal.create') {
    const period = (await loadPeriods(world)).shift();
    if (!period) return;
    const narration = getStockJournalReference(period.periodStart, period.periodEnd);
    const netPence = Math.round(period.netTotal * 100);
    const amountPence = Math.round(netPence / 1.35);
    const request = {
      periodStart: period.periodStart,
      periodEnd: period.periodEnd,
      netPence,
      marginRate: 1.35,
      // As createJournal sends it: the reference, then the write's mark.
      narration: withWriteMark(narration, key),
      date: period.periodEnd,
      status: 'DRAFT' as const,
      amountPence,
      costAccountId: world.ids.cost,
      stockAccountId: world.ids.stock,
      costDescription: 'Cost of sales',
      stockDescription: 'Transfer from stock',
    };
    target = { type: 'journal', target: narration, key, amountPence };
    // The stopped post had claimed its period first (one journal per period), as createJournal does.
    const [entry] = await world.t.database.db
      .insert(stockJournalEntries)
      .values({
        organizationId: world.shop.organizationId,
        customerId: world.ids.dailySales.toLowerCase(),
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        status: 'PENDING',
        netPence,
        amountPence,
        marginRate: '1.35',
        reference: narration,
        userId,
      })
      .returning();
    journalEntryId = entry?.id;
    await world.t.database.db.insert(xeroWrites).values({
      ...base,
      organizationId: world.shop.organizationId,
      kind: 'journal.create',
      fingerprint: fingerprintOf('journal.create', request),
      targetId: getStockJournalKey(period.periodStart, period.periodEnd),
      amountPence,
      request,
    });
    if (apply) {
      const { data } = await http.send<{ ManualJournals: Array<{ ManualJournalID: string }> }>(
        userId,
        world.shop.tenantId,
        {
          method: 'PUT',
          path: '/api.xro/2.0/ManualJournals',
          body: buildManualJournalBody(request),
          idempotencyKey: key,
        },
      );
      appliedId = data.ManualJournals[0]?.ManualJournalID;
    }
  } else {
    const draft = (await loadDrafts(world)).shift();
    if (!draft) return;
    const request = { InvoiceID: draft.invoiceId, Status: 'AUTHORISED' };
    target = { type: 'approve', target: draft.invoiceId, key, amountPence: draft.totalPence };
    const audit: WriteAudit = {
      action: 'add-invoices.approve',
      target: draft.invoiceId,
      username: world.owner.user.username,
      detail: { invoiceNumber: draft.invoiceNumber },
    };
    await world.t.database.db.insert(xeroWrites).values({
      ...base,
      organizationId: world.shop.organizationId,
      kind: 'invoice.approve',
      fingerprint: fingerprintOf('invoice.approve', request),
      targetId: draft.invoiceId,
      amountPence: draft.totalPence,
      request,
      audit,
    });
    if (apply) {
      await http.send(userId, world.shop.tenantId, {
        method: 'POST',
        path: '/api.xro/2.0/Invoices',
        query: { summarizeErrors: false },
        body: { Invoices: [request] },
        idempotencyKey: key,
      });
      appliedId = draft.invoiceId;
    }
  }
  if (apply && !appliedId) world.problems.push(`crash ${op.write}: the direct write got no id back`);
  count(world, `crash.${op.write}.${op.at}`);
  world.crashes.push({
    label: `crash ${op.write} ${op.at} ${target.target}`,
    target,
    at: op.at,
    ...(appliedId ? { appliedId } : {}),
    ...(journalEntryId ? { journalEntryId } : {}),
  });
}

/** What Xero holds as an invoice's amount due, in pence (the sandbox's own state). */
function xeroDuePence(world: World, invoiceId: string): number | null {
  const inv = orgRec(world.sandbox, world.shop.tenantId).invoices.find(
    (i) => i.InvoiceID.toLowerCase() === invoiceId.toLowerCase(),
  );
  return inv ? amountDue(inv) : null;
}

/** Earlier payment actions, oldest first. */
function paymentActions(world: World): ActionRecord[] {
  return world.actions.filter((a) => a.targets.length === 1 && a.targets[0]?.type === 'payment');
}

async function payAgain(world: World, op: Extract<Op, { kind: 'payAgain' }>) {
  const open = paymentActions(world).filter(
    (a) => (xeroDuePence(world, a.targets[0]?.target ?? '') ?? 0) > 1,
  );
  const record = open[op.pick % Math.max(1, open.length)];
  const target = record?.targets[0];
  if (!record || !target) return;
  const payload = record.spec.payload as { invoiceNumber: string };
  const due = xeroDuePence(world, target.target) ?? 0;
  const spec = payAction(
    world,
    { share: 'penny', isCard: op.isCard },
    { invoiceId: target.target, invoiceNumber: payload.invoiceNumber, duePence: due },
  );
  if (spec) await perform(world, spec, op.faults, op.double);
}

/** The same request and key again, later: on this instance, or on a new one (the server was restarted). */
async function resend(world: World, op: Extract<Op, { kind: 'resend' }>) {
  const sent = paymentActions(world);
  const record = sent[op.pick % Math.max(1, sent.length)];
  if (!record) return;
  const original = world.t;
  const restarted = op.restart
    ? await createXeroTestApp({
        database: world.t.database,
        sandboxInstance: world.sandbox,
        xeroHttp: XERO_HTTP_OPTIONS,
      })
    : null;
  if (restarted) world.t = restarted;
  try {
    await perform(world, record.spec, NO_FAULTS, false, record);
    record.label = `${record.label}, resent${op.restart ? ' after a restart' : ''}`;
    await checkShownBalances(world, [record.targets[0]?.target ?? ''], `after resending ${record.label}`);
  } finally {
    world.t = original;
    if (restarted) await restarted.close();
  }
}

async function payTogether(world: World, op: Extract<Op, { kind: 'payTogether' }>) {
  const invoice = world.invoices.shift();
  if (!invoice || invoice.duePence < 4) return;
  const half = { ...invoice, duePence: Math.floor(invoice.duePence / 2) };
  const card = payAction(world, { share: 'full', isCard: true }, half);
  const cash = payAction(world, { share: 'part', isCard: false }, half);
  if (!card || !cash) return;
  applyFaults(world, op.faults, '/api.xro/2.0/Payments');
  try {
    await Promise.all([perform(world, card, NO_FAULTS, false), perform(world, cash, NO_FAULTS, false)]);
  } finally {
    clearFaults(world);
  }
}

/**
 * Every balance a user is shown for these invoices equals Xero's: the single invoice as Refresh Invoice
 * gives it, and its row in the list (gone when nothing is due).
 */
export async function checkShownBalances(
  world: World,
  invoiceIds: readonly string[],
  when: string,
): Promise<void> {
  clearFaults(world);
  const org = world.shop.organizationId;
  for (const id of invoiceIds) {
    const truth = xeroDuePence(world, id);
    if (truth === null) continue;
    const single = await world.t.app.inject({
      method: 'GET',
      url: `/api/xero/invoices/${id}?refresh=true&org=${org}`,
      headers: { cookie: world.owner.cookie },
    });
    const shown =
      single.statusCode === 200
        ? Math.round((single.json() as { invoice: { amountDue: number } }).invoice.amountDue * 100)
        : null;
    if (shown !== truth) {
      world.problems.push(
        `stale balance ${when}: invoice ${world.touched.get(id.toLowerCase()) ?? id} shows ${shown ?? single.statusCode}p on refresh, Xero has ${truth}p`,
      );
      count(world, 'staleBalance');
    }
  }
  const list = await world.t.app.inject({
    method: 'GET',
    url: `/api/xero/invoices?org=${org}`,
    headers: { cookie: world.owner.cookie },
  });
  if (list.statusCode !== 200) {
    world.problems.push(`invoice list ${when}: ${list.statusCode}`);
    return;
  }
  const rows = new Map(
    (list.json() as Array<{ invoiceId: string; amountDue: number }>).map((r) => [
      r.invoiceId.toLowerCase(),
      Math.round(r.amountDue * 100),
    ]),
  );
  for (const id of invoiceIds) {
    const truth = xeroDuePence(world, id);
    if (truth === null) continue;
    const shown = rows.get(id.toLowerCase()) ?? 0;
    if (shown !== truth) {
      world.problems.push(
        `stale balance ${when}: invoice ${world.touched.get(id.toLowerCase()) ?? id} shows ${shown}p in the list, Xero has ${truth}p`,
      );
      count(world, 'staleBalance');
    }
  }
}

export async function runOp(world: World, op: Op): Promise<void> {
  count(world, `op.${op.kind}`);
  switch (op.kind) {
    case 'crash':
      return runCrash(world, op);
    case 'return':
      return returnToAction(world, op);
    case 'pay': {
      const spec = payAction(world, op);
      return spec ? perform(world, spec, op.faults, op.double) : undefined;
    }
    case 'payAgain':
      return payAgain(world, op);
    case 'resend':
      return resend(world, op);
    case 'payTogether':
      return payTogether(world, op);
    case 'bill':
      return perform(world, billAction(world, op), op.faults, op.double);
    case 'bills':
      return perform(world, billsAction(world, op), op.faults, op.double);
    case 'approve': {
      const spec = await approveAction(world, op);
      return spec ? perform(world, spec, op.faults, op.double) : undefined;
    }
    case 'journal': {
      const spec = await journalAction(world);
      return spec ? perform(world, spec, op.faults, op.double) : undefined;
    }
  }
}

/* ------------------------------------------------------------------ restart and the invariant */

/** Write calls (anything but GET) the sandbox counted on the Accounting API. */
function countWriteCalls(sandbox: Sandbox): number {
  return sandbox
    .ledger()
    .calls.filter((c) => c.method !== 'GET' && c.endpoint.startsWith('/api.xro/'))
    .reduce((s, c) => s + c.count, 0);
}

/**
 * A new instance on the same database and sandbox (the server came back) reconciles everything open: first,
 * when `faults` are given, while Xero is still failing (a failed lookup must leave the write open, never
 * settle it), then with Xero well. Reconciling only looks, with one exception: a step of an action of several
 * writes that was recorded but never sent (an approval's cash after the approval) is resumed, as issue 28 asks.
 * So Xero may apply at most one write per such step, and nothing else.
 */
export async function restartAndReconcile(world: World, faults: FaultPlan | null = null) {
  clearFaults(world);
  const restarted = await createXeroTestApp({
    database: world.t.database,
    sandboxInstance: world.sandbox,
    xeroHttp: XERO_HTTP_OPTIONS,
  });
  try {
    const writeCallsBefore = countWriteCalls(world.sandbox);
    const appliedBefore = world.sandbox.ledger().writes.length;
    // Steps recorded with their action but never sent: the reconciler resumes them (resumeStep).
    const resumable = (
      await world.t.database.db
        .select({ id: xeroWrites.id, dependsOn: xeroWrites.dependsOn })
        .from(xeroWrites)
        .where(eq(xeroWrites.state, 'pending'))
    ).filter((w) => w.dependsOn !== null).length;
    if (faults) {
      applyFaults(world, faults, '/api.xro/2.0/');
      await restarted.parts.ledger.reconcile(0);
      clearFaults(world);
    }
    const counts = await restarted.parts.ledger.reconcile(0);
    const sent = countWriteCalls(world.sandbox) - writeCallsBefore;
    if (resumable === 0 && sent !== 0) world.problems.push(`reconciling sent ${sent} write(s) to Xero`);
    const applied = world.sandbox.ledger().writes.length - appliedBefore;
    if (applied > resumable)
      world.problems.push(
        `reconciling made Xero apply ${applied} write(s); only ${resumable} unsent step(s) of actions could be resumed`,
      );
    // The Stock Journal screen, opened again: its entries take the ledger's outcomes, and its status sync
    // settles an entry a stopped post left claimed.
    if (world.periods) {
      for (const [method, url] of [
        ['GET', `/api/xero/stock-journal/entries?org=${world.shop.organizationId}`],
        ['POST', `/api/xero/stock-journal/sync-status?org=${world.shop.organizationId}`],
      ] as const) {
        const res = await restarted.app.inject({
          method,
          url,
          headers: { cookie: world.owner.cookie, origin: TEST_ORIGIN },
        });
        if (res.statusCode !== 200)
          world.problems.push(
            `${method} ${url.split('?')[0]} after the restart: ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
      }
    }
    return counts;
  } finally {
    clearFaults(world);
    await restarted.close();
  }
}

const ROW_KIND: Record<string, WriteType> = {
  payment: 'payment',
  'bill.create': 'bill',
  'journal.create': 'journal',
  'invoice.approve': 'approve',
};

/** The sandbox write a ledger row names: its type and the Xero id (an approval is of the invoice itself). */
function typeOfWrite(w: LedgerWrite): WriteType | null {
  if (w.kind === 'payment' && w.action === 'create') return 'payment';
  if (w.kind === 'bill' && w.action === 'create') return 'bill';
  if (w.kind === 'journal' && w.action === 'create') return 'journal';
  if (w.kind === 'invoice' && w.action === 'approve') return 'approve';
  return null;
}

/** Invoice id, bill reference or journal narration: the target the sandbox write is about. */
function targetOfWrite(type: WriteType, w: LedgerWrite): string {
  if (type === 'payment') return String(w.summary.invoiceId ?? '').toLowerCase();
  // A bill's number is the one typed; its write's mark is in its Url (decision 028).
  if (type === 'bill') return String(w.summary.invoiceNumber ?? '');
  // A journal's narration carries its write's mark after the period's reference (issue 28).
  if (type === 'journal') return withoutWriteMark(String(w.summary.narration ?? ''));
  return w.id.toLowerCase();
}

function normalTarget(target: Target): string {
  return target.type === 'payment' || target.type === 'approve' ? target.target.toLowerCase() : target.target;
}

/**
 * The invariant, after the restart reconciled: Xero's writes (sandbox ledger, the run's organisations) and the
 * confirmed rows of the write ledger match one to one; nothing is left open; no target was written twice;
 * every write a user was told succeeded is in Xero under the id they were told; nothing a user was told was
 * refused is in Xero; crashes ended as they must.
 */
export async function findViolations(world: World): Promise<string[]> {
  // Every balance shown for an invoice paid in this run is Xero's, whatever happened to its writes.
  await checkShownBalances(world, [...world.touched.keys()], 'after the run');
  const violations = [...world.problems];
  const tenants = new Set([world.shop.tenantId, world.builders.tenantId]);
  const writes = world.sandbox.ledger().writes.filter((w) => tenants.has(w.tenantId));
  const rows = await world.t.database.db
    .select()
    .from(xeroWrites)
    .where(inArray(xeroWrites.organizationId, [world.shop.organizationId, world.builders.organizationId]));
  const tracked = rows.filter((r) => ROW_KIND[r.kind]);
  const byKey = new Map(tracked.map((r) => [r.idempotencyKey, r]));

  // Every money write recorded is one a user asked for (or a crash left): nothing is written on its own.
  const known = new Set([
    ...world.actions.flatMap((a) => a.targets.map((tg) => tg.key)),
    ...world.crashes.map((c) => c.target.key),
    ...world.manualKeys,
  ]);
  for (const row of tracked)
    if (!known.has(row.idempotencyKey))
      violations.push(`row ${row.kind} ${row.idempotencyKey} belongs to no user action`);
  for (const row of rows) {
    if (row.state === 'pending' || row.state === 'sent' || row.state === 'unknown') {
      violations.push(`row ${row.kind} ${row.idempotencyKey} still ${row.state} after reconcile`);
    }
    if (row.state === 'failed' && !row.error)
      violations.push(`row ${row.kind} ${row.idempotencyKey} failed without a message`);
  }

  // One to one: every write Xero has is a confirmed row's, and every confirmed row's write is in Xero once.
  const confirmedById = new Map<string, WriteRow[]>();
  for (const row of tracked) {
    if (row.state !== 'confirmed') continue;
    const type = ROW_KIND[row.kind] as WriteType;
    const id = (type === 'approve' ? (row.xeroId ?? row.targetId) : row.xeroId)?.toLowerCase();
    if (!id) {
      violations.push(`row ${row.kind} ${row.idempotencyKey} confirmed without a Xero id`);
      continue;
    }
    const list = confirmedById.get(`${type}:${id}`) ?? [];
    list.push(row);
    confirmedById.set(`${type}:${id}`, list);
  }
  const review = tracked.filter((r) => r.state === 'needs_review');
  const perTarget = new Map<string, number>();
  const seen = new Set<string>();
  for (const w of writes) {
    const type = typeOfWrite(w);
    if (!type) {
      violations.push(`unexpected write in Xero: ${w.kind} ${w.action} ${w.id}`);
      continue;
    }
    const target = targetOfWrite(type, w);
    perTarget.set(`${type}:${target}`, (perTarget.get(`${type}:${target}`) ?? 0) + 1);
    const id = `${type}:${w.id.toLowerCase()}`;
    seen.add(id);
    const owners = confirmedById.get(id) ?? [];
    if (owners.length > 1) violations.push(`${type} ${w.id} is claimed by ${owners.length} ledger rows`);
    if (owners.length === 0) {
      // A write marked for a person to check may be in Xero, once.
      const reviewed = review.findIndex((r) => ROW_KIND[r.kind] === type);
      if (reviewed >= 0) review.splice(reviewed, 1);
      else violations.push(`duplicate or untracked ${type} in Xero: ${w.id} (${JSON.stringify(w.summary)})`);
    }
    if (
      type === 'payment' &&
      owners[0] &&
      Math.round(Number(w.summary.amount) * 100) !== owners[0].amountPence
    ) {
      violations.push(
        `payment ${w.id} is £${String(w.summary.amount)} in Xero but ${owners[0].amountPence}p in the ledger`,
      );
    }
  }
  for (const [id, owners] of confirmedById) {
    if (!seen.has(id))
      violations.push(
        `lost: ledger row ${owners[0]?.idempotencyKey} is confirmed as ${id} but Xero has no such write`,
      );
  }
  // An invoice may take several payments (each its own key): those are matched one to one by id above.
  for (const [target, n] of perTarget)
    if (n > 1 && !target.startsWith('payment:'))
      violations.push(`duplicate: ${n} writes in Xero for ${target}`);
  const xeroIds = new Set(writes.map((w) => w.id.toLowerCase()));
  /** How many writes Xero has for a target: a payment by its row's Xero id (an invoice can have several). */
  const inXeroFor = (target: Target, row: WriteRow | undefined) =>
    target.type === 'payment'
      ? row?.state === 'confirmed' && row.xeroId && xeroIds.has(row.xeroId.toLowerCase())
        ? 1
        : 0
      : (perTarget.get(`${target.type}:${normalTarget(target)}`) ?? 0);

  // The activity log is Xero's writes, one to one: every settled write that carries a line has exactly one,
  // success when Xero has it and failure when it certainly does not; nothing while unsettled; every line
  // names who acted; no success line stands for no write.
  const lines = await world.t.database.db
    .select()
    .from(auditLog)
    .where(inArray(auditLog.organizationId, [world.shop.organizationId, world.builders.organizationId]));
  const linesByWrite = new Map<number, typeof lines>();
  for (const line of lines) {
    const writeId = (line.detail as { writeId?: unknown } | null)?.writeId;
    if (typeof writeId === 'number') linesByWrite.set(writeId, [...(linesByWrite.get(writeId) ?? []), line]);
  }
  const loggedActions = new Set(['payment.create', 'add-invoices.approve', 'add-invoices.cash-payment']);
  for (const row of rows) {
    const audit = row.audit as WriteAudit | null;
    if (!audit) {
      if (row.kind === 'payment' || row.kind === 'invoice.approve')
        violations.push(`log: ${row.kind} ${row.idempotencyKey} carries no activity-log line`);
      continue;
    }
    loggedActions.add(audit.action);
    const mine = linesByWrite.get(row.id) ?? [];
    const expected = row.state === 'confirmed' ? 'success' : row.state === 'failed' ? 'failure' : null;
    if (!expected && mine.length > 0)
      violations.push(
        `log: ${row.kind} ${row.idempotencyKey} is ${row.state} but logged ${mine.map((l) => l.result).join(', ')}`,
      );
    if (expected && (mine.length !== 1 || mine[0]?.result !== expected)) {
      violations.push(
        `log: ${row.kind} ${row.idempotencyKey} is ${row.state}, logged ${mine.length === 0 ? 'nothing' : mine.map((l) => l.result).join(', ')}`,
      );
      count(world, 'logMismatch');
    }
  }
  for (const line of lines) {
    if (!loggedActions.has(line.action)) continue;
    if (!line.username) violations.push(`log: ${line.action} ${line.result} line without a username`);
    const writeId = (line.detail as { writeId?: unknown } | null)?.writeId;
    if (line.result === 'success' && typeof writeId !== 'number') {
      violations.push(`log: ${line.action} success line for no write (${line.target ?? ''})`);
      count(world, 'logMismatch');
    }
  }

  // What each user was told.
  for (const action of world.actions) {
    for (const target of action.targets) {
      const told = action.told.get(target.key);
      if (!told) continue;
      const row = byKey.get(target.key);
      const inXero = inXeroFor(target, row);
      if (told.told === 'success') {
        if (!row || row.state !== 'confirmed')
          violations.push(
            `${action.label}: told it succeeded, but its ledger row is ${row?.state ?? 'missing'}`,
          );
        if (inXero !== 1)
          violations.push(`${action.label}: told it succeeded, Xero has ${inXero} such writes (lost)`);
        if (told.xeroId && row?.xeroId && told.xeroId.toLowerCase() !== row.xeroId.toLowerCase()) {
          violations.push(`${action.label}: told Xero id ${told.xeroId}, the ledger confirmed ${row.xeroId}`);
        }
      } else if (told.told === 'refused') {
        if (inXero > 0)
          violations.push(`${action.label}: told it failed ("${told.message}"), but Xero has it`);
        if (row && row.state !== 'failed')
          violations.push(`${action.label}: told it failed, but its ledger row is ${row.state}`);
      }
      count(world, `told.${told.told}`);
      if (told.told === 'in-doubt') count(world, `told.in-doubt.ended-${row?.state ?? 'unsent'}`);
    }
  }

  // Crashes: a pending row was never sent and fails; a sent row is confirmed if Xero has it, failed if not.
  for (const crash of world.crashes) {
    const row = byKey.get(crash.target.key);
    const inXero = inXeroFor(crash.target, row);
    const expected = crash.at === 'sent-applied' ? 'confirmed' : 'failed';
    if (row?.state !== expected)
      violations.push(`${crash.label}: ended ${row?.state ?? 'missing'}, expected ${expected}`);
    if (inXero !== (crash.at === 'sent-applied' ? 1 : 0))
      violations.push(`${crash.label}: Xero has ${inXero} such writes`);
    if (crash.appliedId && row?.xeroId && row.xeroId.toLowerCase() !== crash.appliedId.toLowerCase()) {
      violations.push(`${crash.label}: confirmed as ${row.xeroId}, but Xero's write is ${crash.appliedId}`);
    }
    if (crash.journalEntryId !== undefined) {
      const [entry] = await world.t.database.db
        .select()
        .from(stockJournalEntries)
        .where(
          and(
            eq(stockJournalEntries.organizationId, world.shop.organizationId),
            eq(stockJournalEntries.id, crash.journalEntryId),
          ),
        );
      if (
        crash.at === 'sent-applied' &&
        (!entry ||
          entry.status === 'PENDING' ||
          entry.journalId?.toLowerCase() !== crash.appliedId?.toLowerCase())
      ) {
        violations.push(
          `${crash.label}: the period's entry is ${entry ? `${entry.status} ${entry.journalId}` : 'gone'}, expected the journal`,
        );
      }
      if (crash.at !== 'sent-applied' && entry)
        violations.push(
          `${crash.label}: the period is still claimed (${entry.status}) though nothing was posted`,
        );
    }
  }
  // One journal per period: every journal Xero has for a post made here is the period's entry, and no
  // entry is left claimed by a post whose outcome is settled.
  if (world.periods) {
    const entries = await world.t.database.db
      .select()
      .from(stockJournalEntries)
      .where(eq(stockJournalEntries.organizationId, world.shop.organizationId));
    for (const entry of entries) {
      if (entry.status === 'PENDING')
        violations.push(
          `journal entry ${entry.periodStart}..${entry.periodEnd} is still PENDING after the ledger settled`,
        );
    }
    for (const row of tracked) {
      if (row.kind !== 'journal.create' || row.state !== 'confirmed') continue;
      const request = row.request as { periodStart: string; periodEnd: string };
      const entry = entries.find(
        (e) => e.periodStart === request.periodStart && e.periodEnd === request.periodEnd,
      );
      if (entry?.journalId?.toLowerCase() !== row.xeroId?.toLowerCase()) {
        violations.push(
          `journal ${request.periodStart}..${request.periodEnd} is ${row.xeroId} in Xero, but its entry here is ${entry ? `${entry.status} ${entry.journalId}` : 'gone'}`,
        );
      }
    }
  }
  return violations;
}

/** Counts of ledger row states in the run's organisations (for the run summary). */
export async function countRowStates(world: World): Promise<Record<string, number>> {
  const rows = await world.t.database.db
    .select({ state: xeroWrites.state, kind: xeroWrites.kind })
    .from(xeroWrites)
    .where(inArray(xeroWrites.organizationId, [world.shop.organizationId, world.builders.organizationId]));
  const out: Record<string, number> = {};
  for (const r of rows) if (ROW_KIND[r.kind]) out[r.state] = (out[r.state] ?? 0) + 1;
  return out;
}
