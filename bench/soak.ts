/**
 * `npm run soak`: a business month (issue 28), a benchmark-style run, not part of `npm test`.
 *
 * Two app instances (separate Node processes, as `npm start` runs the server) share one PostgreSQL server behind
 * a small loopback load balancer; three people (an administrator and a member of staff on Demo Shop Ltd, a
 * bookkeeper on Demo Builders Ltd) do a month of both demo organisations' typical days each day a few seconds of real time:
 * card and cash payments, drafts approved with cash (sometimes two people on one draft at the same moment, or
 * pending cash saved while someone approves), new invoices with cash, CIS bills created, approved and deleted,
 * the weekly stock journal.
 * Meanwhile Xero misbehaves (429 bursts, 5xx, answers dropped after the write was applied, slow answers), a
 * person pays and approves invoices in Xero's web app, webhook deliveries are delayed or lost at the balancer,
 * a random instance is killed with SIGKILL several times (its in-flight requests resent by the "browser" with
 * the same key, to whichever instance answers), and the database is backed up once and restored later, after
 * which old requests of every kind (payments, approvals with cash, pending cash, new invoices, CIS bills and their
 * approvals and deletions, the journal) are resent with their keys.
 *
 * At the end, with faults cleared and the ledger settled, Xero's state (the sandbox's own records) is compared
 * with what every person was told, with every screen's answer and with the activity log. The figures: writes,
 * faults, crashes, duplicates, lost writes, untrue answers, untrue log lines (goal 0 for the last four).
 *
 *   npm run soak                         # 30 days, seed 1
 *   SOAK_DAYS=5 SOAK_SEED=7 npm run soak  # shorter, another schedule
 *   SOAK_OUT=/tmp/soak.md npm run soak    # where the report goes (default: printed, and appended to nothing)
 *   BENCH_PG_URL=postgres://… npm run soak  # an empty database on a running server instead of a throwaway one
 *   SOAK_WEBHOOKS=off npm run soak        # no Xero webhooks, as a server behind NAT or on a laptop (issue 44)
 *
 * Issue 44 (bench/soak-restarts.ts): some days an instance is killed while pending cash and bill creates are on
 * their way (Xero slow on /Invoices), and after each restart every list screen is compared with Xero as a screen
 * reads it, without a refresh.
 *
 * Loopback only; every loop is bounded in count and time.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import type { Sandbox } from '../src/sandbox/sandbox';
import type { OrgRec } from '../src/sandbox/state';
import { backupDatabase, restoreDatabase } from '../src/server/db/backup';
import { addDays, getUkToday } from '../src/shared/dates';
import { getStockJournalReference, splitSalesPeriod, type SalesPeriod } from '../src/shared/stock-journal';
import { fromPence, roundPoundsToPence } from '../src/shared/money';
import { findInvoicesToPay, type BankAccountsResponse, type Invoice } from '../src/shared/pay-invoices';
import type { DraftInvoice } from '../src/shared/add-invoices';
import {
  DEFAULT_BILL_ACCOUNT_HEADER,
  getDefaultBillReference,
  isCisChecked,
  type CisContact,
} from '../src/shared/cis-bills';
import { spawnServer, type ChildServer } from './lib/child';
import {
  ApiClient,
  BENCH_ADMIN,
  connectXero,
  enableAllFeatures,
  makeTempDir,
  sandboxOrg,
  signIn,
  startBenchSandbox,
  type UserOrganization,
} from './lib/harness';
import { freePort, startPostgres, type PostgresServer } from './lib/postgres';
import {
  changedInXeroByPerson,
  compareListsWithXero,
  noteInFlight,
  restartFigures,
  SLOW_INVOICES,
  trackRequest,
} from './soak-restarts';

const DAYS = Number(process.env.SOAK_DAYS ?? 30);
const SEED = Number(process.env.SOAK_SEED ?? 1);
const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** An empty database on a PostgreSQL server already running (its pg_dump and pg_restore must match it). */
const PG_URL = process.env.BENCH_PG_URL;
const SHOP = 'Demo Shop Ltd';
const BUILDERS = 'Demo Builders Ltd';
/**
 * Xero keeps an Idempotency-Key's answer for minutes; a month of days cannot wait that out, and moving the
 * sandbox's clock by days would put Xero's tokens in the app's future. So the sandbox's window is a few seconds
 * and every day (and the resends after the restore) starts after it; access tokens last five minutes, so the
 * month refreshes them as a real one does.
 */
const IDEMPOTENCY_WINDOW_S = 3;
const WEBHOOK_KEY = 'soak-webhook-key-0123456789abcdef0123456789abcdef';
/** `SOAK_WEBHOOKS=off`: no Xero webhooks at all, as a server behind NAT or on a laptop runs (issue 44). */
const WEBHOOKS = process.env.SOAK_WEBHOOKS !== 'off';

// ── a seeded schedule ────────────────────────────────────────────────────────────────────────────────────
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
const chance = (p: number) => random() < p;
const pick = <T>(items: T[]): T => {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ── figures ──────────────────────────────────────────────────────────────────────────────────────────────
type Told = 'success' | 'refused' | 'in-doubt';
interface Action {
  kind:
    | 'payment'
    | 'approve'
    | 'pending-cash'
    | 'new-invoice'
    | 'bills'
    | 'bill-approve'
    | 'bill-delete'
    | 'journal';
  org: string;
  user: string;
  key: string;
  /**
   * Invoice, draft, bill or period the action is about; a new invoice's is `new:<total in pence>` (each new
   * invoice of the month has its own total, which is how it is found in Xero).
   */
  target: string;
  amountPence?: number;
  /** Tags of the bills a create-bills action made (each bill's line description carries its tag). */
  billTags?: string[];
  /** Where the request went, its body and its headers (besides the key), as the browser would send it again. */
  url: string;
  request: unknown;
  headers?: Record<string, string>;
  told: Told;
  status: number;
  message: string;
  /** The answer's body (the first 2,000 characters). */
  answer: string;
  /** Sent before the backup was restored and not known to the restored database (resent afterwards). */
  afterBackup: boolean;
  /** A resend after the restore of an action sent between the backup and the restore. */
  resent?: boolean;
}
const actions: Action[] = [];
const figures = {
  faultDays: 0,
  faultsInjected: 0,
  crashes: 0,
  resends: 0,
  restoreResends: 0,
  restoreResendsByKind: new Map<string, number>(),
  personChanges: 0,
  webhooksDropped: 0,
  webhooksDelayed: 0,
  races: 0,
};
const afterRestore: string[] = [];
const problems = {
  duplicates: [] as string[],
  lost: [] as string[],
  untrueAnswers: [] as string[],
  untrueLog: [] as string[],
};

// ── instances and the balancer ───────────────────────────────────────────────────────────────────────────
interface Instance {
  name: string;
  server: ChildServer | null;
}

async function startInstance(instance: Instance, spec: Record<string, unknown>): Promise<void> {
  instance.server = await spawnServer(['app', JSON.stringify(spec)]);
}

function liveInstances(instances: Instance[]): Instance[] {
  return instances.filter((i) => i.server !== null);
}

/**
 * The load balancer on a loopback port: requests go to a live instance in turn. Xero's webhook deliveries
 * come through it too, and there some are lost (answered 200 and never passed on) or held for a few seconds.
 */
async function startBalancer(instances: Instance[]): Promise<{ url: string; close(): Promise<void> }> {
  let turn = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const isWebhook = (req.url ?? '').startsWith('/api/xero/webhooks');
        if (isWebhook && body.length > 0 && chance(0.08)) {
          figures.webhooksDropped += 1;
          res.writeHead(200).end();
          return;
        }
        if (isWebhook && chance(0.1)) {
          figures.webhooksDelayed += 1;
          await sleep(2000 + random() * 3000);
        }
        const live = liveInstances(instances);
        const target = live[turn++ % Math.max(1, live.length)]?.server;
        if (!target) {
          res.writeHead(503).end();
          return;
        }
        try {
          const answer = await fetch(`${target.url}${req.url ?? '/'}`, {
            method: req.method ?? 'GET',
            redirect: 'manual',
            headers: Object.fromEntries(
              Object.entries(req.headers).filter(
                (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host',
              ),
            ),
            ...(body.length > 0 ? { body } : {}),
          });
          const headers: Record<string, string | string[]> = {};
          answer.headers.forEach((value, name) => {
            if (
              ![
                'set-cookie',
                'content-encoding',
                'content-length',
                'transfer-encoding',
                'connection',
              ].includes(name)
            )
              headers[name] = value;
          });
          const cookies = answer.headers.getSetCookie();
          if (cookies.length > 0) headers['set-cookie'] = cookies;
          res.writeHead(answer.status, headers);
          res.end(Buffer.from(await answer.arrayBuffer()));
        } catch {
          res.writeHead(502).end();
        }
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ── people ───────────────────────────────────────────────────────────────────────────────────────────────
interface Person {
  name: string;
  password: string;
  /** The session that signed up and connected Xero. */
  client: ApiClient;
  orgs: UserOrganization[];
  /** A browser tab per organisation the person works in, each its own session with that organisation active. */
  tabs: Record<string, ApiClient>;
}

function tab(person: Person, org: string): ApiClient {
  const client = person.tabs[org];
  if (!client) throw new Error(`${person.name} has no ${org} tab`);
  return client;
}

/**
 * A browser tab on one organisation. The active organisation belongs to the user, not to a tab, so a person
 * working in two organisations at once names the organisation in each request (`?organizationId=`, honoured by
 * every organisation-scoped route), as the screens do.
 */
class OrgTab extends ApiClient {
  constructor(
    base: string,
    cookie: string,
    readonly organizationId: number,
  ) {
    super(base, cookie);
  }

  override on(base: string): OrgTab {
    return new OrgTab(base, this.cookie, this.organizationId);
  }

  override send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const named = url.startsWith('/api/xero/') && !url.startsWith('/api/xero/set-active-organization');
    const sep = url.includes('?') ? '&' : '?';
    return super.send(
      method,
      named ? `${url}${sep}organizationId=${this.organizationId}` : url,
      body,
      headers,
    );
  }
}

/** Opens each person's tabs: a session per organisation (the active organisation belongs to a session). */
async function openTabs(base: string, people: Array<[Person, string[]]>, orgs: UserOrganization[]) {
  for (const [person, names] of people) {
    for (const name of names) {
      const org = orgs.find((o) => o.tenantName === name);
      if (!org) throw new Error(`${name} is not connected`);
      const client = new OrgTab(base, '', org.organizationId);
      await signIn(client, { username: person.name, password: person.password });
      person.tabs[name] = client;
    }
  }
}

/**
 * A 200 that says nothing was done (`{processed: 0, failed: [...]}` from Add Invoices, `{created: 0, failed: n}`
 * from CIS Bills) is what the screen shows as a failure.
 */
function nothingDone(text: string): boolean {
  try {
    const body = JSON.parse(text) as { processed?: number; created?: number; failed?: unknown };
    const failed = Array.isArray(body.failed)
      ? body.failed.length
      : typeof body.failed === 'number'
        ? body.failed
        : 0;
    return (
      failed > 0 &&
      (body.processed === 0 ||
        body.created === 0 ||
        (body.processed === undefined && body.created === undefined))
    );
  } catch {
    return false;
  }
}

/** A request as a browser makes it: to a live instance, resent with the same key while the answer is in doubt. */
async function act(
  instances: Instance[],
  person: Person,
  method: string,
  url: string,
  body: unknown,
  key: string,
  org: string = SHOP,
  headers: Record<string, string> = {},
): Promise<{ told: Told; status: number; text: string }> {
  let last = { told: 'in-doubt' as Told, status: 0, text: 'no answer' };
  for (let attempt = 0; attempt < 6; attempt++) {
    const live = liveInstances(instances);
    const instance = live.length > 0 ? pick(live) : null;
    if (!instance?.server) {
      await sleep(1000);
      continue;
    }
    if (attempt > 0) figures.resends += 1;
    const answered = trackRequest(url, body);
    try {
      const res = await tab(person, org)
        .on(instance.server.url)
        .send(method, url, body, { ...headers, 'idempotency-key': key })
        .finally(answered);
      const stillOpen = res.status === 409 && /already being processed/i.test(res.text);
      if (res.status < 300)
        return { told: nothingDone(res.text) ? 'refused' : 'success', status: res.status, text: res.text };
      if (res.status < 500 && res.status !== 429 && !stillOpen)
        return { told: 'refused', status: res.status, text: res.text };
      last = { told: 'in-doubt', status: res.status, text: res.text };
    } catch (error) {
      last = { told: 'in-doubt', status: 0, text: error instanceof Error ? error.message : String(error) };
    }
    await sleep(500 * 2 ** attempt);
  }
  return last;
}

function record(
  action: Omit<Action, 'told' | 'status' | 'message' | 'answer'>,
  answer: Awaited<ReturnType<typeof act>>,
) {
  const message = (() => {
    try {
      const body = JSON.parse(answer.text) as { message?: string; error?: string; failed?: unknown };
      const failed = Array.isArray(body.failed) ? body.failed.length : Number(body.failed ?? 0);
      if (failed > 0) return `failed: ${JSON.stringify(body.failed).slice(0, 200)}`;
      return body.message ?? body.error ?? '';
    } catch {
      return answer.text.slice(0, 120);
    }
  })();
  actions.push({
    ...action,
    told: answer.told,
    status: answer.status,
    message,
    answer: answer.text.slice(0, 2000),
  });
}

// ── the month ────────────────────────────────────────────────────────────────────────────────────────────
interface World {
  sandbox: Sandbox;
  instances: Instance[];
  spec: (name: string) => Record<string, unknown>;
  admin: Person;
  staff: Person;
  bookkeeper: Person;
  shop: UserOrganization;
  builders: UserOrganization;
  today: string;
  afterBackup: boolean;
  periodsPosted: Set<string>;
  /** Demo Builders' default bill account, as saved in Settings (CIS Bills sends it with each approval). */
  billAccountId: string;
  /** The database both instances share (the soak reads the ledger's open writes at a kill). */
  db: pg.Client;
}

function orgOf(world: World, name: string): OrgRec {
  return sandboxOrg(world.sandbox, name);
}

async function payDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const viewer = pick([admin, staff]);
  const listed = await tab(viewer, SHOP)
    .on(pick(liveInstances(world.instances)).server?.url ?? '')
    .send('GET', '/api/xero/invoices');
  if (listed.status !== 200) return;
  const invoices = findInvoicesToPay(listed.json<Invoice[]>(), { today: world.today }).filter(
    (i) => roundPoundsToPence(i.amountDue) >= 4,
  );
  const bank = await tab(viewer, SHOP).json<BankAccountsResponse>('GET', '/api/xero/bank-accounts');
  const card = bank.creditCardAccounts.find((a) => a.name === 'Business Credit Card')?.accountId;
  const cash = bank.cashAccounts.find((a) => a.name === 'Cash')?.accountId;
  if (!card || !cash) throw new Error('no card or cash account');
  const chosen = invoices.slice(0, 3 + Math.floor(random() * 3));
  const pay = async (person: Person, invoice: Invoice, pence: number, isCard: boolean) => {
    const key = randomUUID();
    const request = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      date: world.today,
      accountId: isCard ? card : cash,
      amount: fromPence(pence),
      reference: `${isCard ? 'Card' : 'Cash'} payment for ${invoice.invoiceNumber}`,
      isCard,
    };
    const answer = await act(world.instances, person, 'POST', '/api/xero/payments', request, key);
    record(
      {
        kind: 'payment',
        org: SHOP,
        user: person.name,
        key,
        target: invoice.invoiceId,
        amountPence: pence,
        url: '/api/xero/payments',
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  for (const invoice of chosen) {
    const due = roundPoundsToPence(invoice.amountDue);
    const cardPence = Math.floor(due / 2);
    if (chance(0.15)) {
      // Two people pay the same invoice's card half at the same moment, on different instances.
      figures.races += 1;
      await Promise.all([pay(admin, invoice, cardPence, true), pay(staff, invoice, cardPence, true)]);
      continue;
    }
    const person = pick([admin, staff]);
    await pay(person, invoice, cardPence, true);
    // Some invoices keep their cash half for another day (so an old card payment resent later would fit).
    if (chance(0.6)) await pay(person, invoice, due - cardPence, false);
  }
}

async function draftsDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const listed = await tab(admin, SHOP).send('GET', '/api/xero/draft-invoices?refresh=true');
  if (listed.status !== 200) return;
  const drafts = listed.json<DraftInvoice[]>().filter((d) => d.totalAmount > 0);
  const update = async (person: Person, draft: DraftInvoice, pence: number, approve: boolean) => {
    const key = randomUUID();
    const url = '/api/xero/draft-invoices/update';
    const request = { invoices: [{ id: draft.id, cashAmount: fromPence(pence), approve }] };
    const answer = await act(world.instances, person, 'POST', url, request, key);
    record(
      {
        kind: approve ? 'approve' : 'pending-cash',
        org: SHOP,
        user: person.name,
        key,
        target: draft.id,
        amountPence: pence,
        url,
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  const [a, b, c] = [drafts[0], drafts[1], drafts[2]];
  if (a) {
    // Both people approve one draft with cash at the same moment (issue 28, 1).
    figures.races += 1;
    await Promise.all([update(admin, a, 200, true), update(staff, a, 200, true)]);
  }
  if (b) {
    // Pending cash saved by one while the other approves (issue 28, 2).
    figures.races += 1;
    await Promise.all([update(staff, b, 500, false), update(admin, b, 200, true)]);
  }
  if (c && chance(0.5))
    await update(pick([admin, staff]), c, Math.min(300, roundPoundsToPence(c.totalAmount)), true);
  // A new invoice on the defaults, part of it taken in cash: approved (the cash paid at once) or kept as a
  // draft (the cash pending until it is approved). Kept as a draft while few are left, so there are drafts to
  // approve every day of the month (the seed's run out by mid-month), the days between the backup and the
  // restore included: an approval is among the writes resent after the restore on every seed.
  await newInvoice(world, pick([admin, staff]), drafts.length > 3 && chance(0.75));
}

/** Each new invoice's total is its own (so Xero's copy is found by it): £60.03, £60.10, £60.17, … */
let newInvoices = 0;

async function newInvoice(world: World, person: Person, approve: boolean): Promise<void> {
  newInvoices += 1;
  const totalPence = 6_000 + newInvoices * 7 - 4;
  const cashPence = 1_000 + (newInvoices % 5) * 100;
  const key = randomUUID();
  const url = '/api/xero/draft-invoices/create';
  const request = {
    date: world.today,
    totalAmount: fromPence(totalPence),
    cashAmount: fromPence(cashPence),
    approve,
  };
  const answer = await act(world.instances, person, 'POST', url, request, key);
  record(
    {
      kind: 'new-invoice',
      org: SHOP,
      user: person.name,
      key,
      target: `new:${totalPence}`,
      amountPence: cashPence,
      url,
      request,
      afterBackup: world.afterBackup,
    },
    answer,
  );
}

async function billsDay(world: World): Promise<void> {
  const { bookkeeper, admin } = world;
  const listed = await tab(bookkeeper, BUILDERS).json<CisContact[]>('GET', '/api/xero/cis-contacts');
  // The list leaves unread CIS settings unknown (hasValidUTR null); the screen checks the ones it shows.
  const unread = listed.filter((c) => !isCisChecked(c)).map((c) => c.id);
  const checked =
    unread.length > 0
      ? await tab(bookkeeper, BUILDERS).json<CisContact[]>('POST', '/api/xero/cis-contacts/check', {
          contactIds: unread.slice(0, 50),
        })
      : [];
  const contacts = listed.map((c) => checked.find((k) => k.id === c.id) ?? c);
  const usable = contacts.filter((c) => c.hasValidUTR === true);
  if (usable.length === 0) throw new Error('no CIS subcontractor with a verified UTR: no bills today');
  const key = randomUUID();
  const tags = Array.from({ length: 2 }, (_, i) => `soak ${key.slice(0, 8)}#${i}`);
  const bills = tags.map((tag, i) => ({
    id: randomUUID(),
    contactId: pick(usable).id,
    date: world.today,
    reference: getDefaultBillReference(world.today),
    lineItems: [
      { description: `Labour - ${tag}`, quantity: 1, unitAmount: 300 + i * 17, accountCode: '321' },
    ],
    status: 'DRAFT' as const,
  }));
  const answer = await act(
    world.instances,
    bookkeeper,
    'POST',
    '/api/xero/create-bills',
    { bills },
    key,
    BUILDERS,
  );
  record(
    {
      kind: 'bills',
      org: BUILDERS,
      user: bookkeeper.name,
      key,
      target: tags.join(','),
      billTags: tags,
      url: '/api/xero/create-bills',
      request: { bills },
      afterBackup: world.afterBackup,
    },
    answer,
  );
  // Approve (sometimes two people at once) or delete one of the drafts Xero holds.
  const drafts = orgOf(world, BUILDERS).invoices.filter(
    (i) =>
      i.Type === 'ACCPAY' && i.Status === 'DRAFT' && i.lines.some((l) => l.Description.includes('soak ')),
  );
  const bill = drafts[0];
  if (!bill) return;
  const approveOne = async (person: Person) => {
    const k = randomUUID();
    const url = `/api/xero/approve-bill/${bill.InvoiceID}`;
    // CIS Bills sends the saved bill account with an approval, in a header (docs/product/features.md §7);
    // without it the server refuses "Please set a default bill account in the settings page…".
    const headers = { [DEFAULT_BILL_ACCOUNT_HEADER]: world.billAccountId };
    const a = await act(world.instances, person, 'POST', url, {}, k, BUILDERS, headers);
    record(
      {
        kind: 'bill-approve',
        org: BUILDERS,
        user: person.name,
        key: k,
        target: bill.InvoiceID,
        url,
        request: {},
        headers,
        afterBackup: world.afterBackup,
      },
      a,
    );
  };
  if (chance(0.3)) {
    const k = randomUUID();
    const url = `/api/xero/delete-bill/${bill.InvoiceID}`;
    const a = await act(world.instances, bookkeeper, 'POST', url, {}, k, BUILDERS);
    record(
      {
        kind: 'bill-delete',
        org: BUILDERS,
        user: bookkeeper.name,
        key: k,
        target: bill.InvoiceID,
        url,
        request: {},
        afterBackup: world.afterBackup,
      },
      a,
    );
  } else if (chance(0.4)) {
    figures.races += 1;
    await Promise.all([approveOne(bookkeeper), approveOne(admin)]);
  } else {
    await approveOne(bookkeeper);
  }
}

async function journalDay(world: World): Promise<void> {
  const { admin, staff } = world;
  const org = orgOf(world, SHOP);
  const contact = org.contacts.find((c) => c.Name === 'Daily Sales');
  const stock = org.accounts.find((a) => a.Code === '630');
  const cost = org.accounts.find((a) => a.Code === '310');
  if (!contact || !stock || !cost) return;
  const entries = await tab(admin, SHOP).send('GET', '/api/xero/stock-journal/entries');
  if (entries.status !== 200) return;
  const taken = new Set(
    entries
      .json<Array<{ periodStart: string; periodEnd: string }>>()
      .map((e) => `${e.periodStart}_${e.periodEnd}`),
  );
  // The oldest week of the last three months with sales and no journal yet, with its net sales as the screen
  // reads them (the server refuses a figure that is not Xero's).
  const today = world.today;
  const from = addDays(today, -90);
  const sales = await tab(admin, SHOP).send(
    'GET',
    `/api/xero/sales?customerId=${contact.ContactID}&fromDate=${from}&toDate=${today}`,
  );
  if (sales.status !== 200) return;
  const candidates = sales
    .json<SalesPeriod[]>()
    .flatMap((p) => splitSalesPeriod(p))
    .filter(
      (p) =>
        p.netTotal > 0 &&
        p.periodEnd < today &&
        !taken.has(`${p.periodStart}_${p.periodEnd}`) &&
        !world.periodsPosted.has(`${p.periodStart}_${p.periodEnd}`),
    )
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart));
  const chosen = candidates[0];
  if (!chosen) return;
  const period = { start: chosen.periodStart, end: chosen.periodEnd, net: chosen.netTotal };
  world.periodsPosted.add(`${period.start}_${period.end}`);
  const post = async (person: Person) => {
    const key = randomUUID();
    const url = '/api/xero/stock-journal';
    const request = {
      periodStart: period.start,
      periodEnd: period.end,
      netAmount: period.net,
      contactId: contact.ContactID,
      stockAccountId: stock.AccountID,
      costAccountId: cost.AccountID,
      marginRate: 1.35,
      reference: getStockJournalReference(period.start, period.end),
    };
    const answer = await act(world.instances, person, 'POST', url, request, key);
    record(
      {
        kind: 'journal',
        org: SHOP,
        user: person.name,
        key,
        target: `${period.start}_${period.end}`,
        url,
        request,
        afterBackup: world.afterBackup,
      },
      answer,
    );
  };
  // Two people post the same week at the same moment: Xero must get one journal.
  figures.races += 1;
  await Promise.all([post(admin), post(staff)]);
}

/** A person at work in Xero's web app: pays an invoice, approves a draft, edits a reference. */
function personInXero(world: World): void {
  const shop = orgOf(world, SHOP);
  const open = shop.invoices.filter(
    (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 1,
  );
  const invoice = open[Math.floor(random() * open.length)];
  if (invoice) {
    try {
      world.sandbox.payInvoice(invoice.InvoiceID, { amount: 1 });
      changedInXeroByPerson.add(invoice.InvoiceID.toLowerCase());
      figures.personChanges += 1;
    } catch {
      // paid meanwhile
    }
  }
  const drafts = shop.invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'DRAFT');
  const draft = drafts[drafts.length - 1];
  if (draft && chance(0.3)) {
    try {
      world.sandbox.approveInvoice(draft.InvoiceID);
      changedInXeroByPerson.add(draft.InvoiceID.toLowerCase());
      figures.personChanges += 1;
    } catch {
      // changed meanwhile
    }
  }
}

function chooseFaults(world: World): void {
  const plans: Array<Parameters<Sandbox['setFaults']>[0] | null> = [
    null,
    null,
    { errorRate: 0.08, errorStatus: 503 },
    { rateLimitBurst: { count: 4, retryAfterSeconds: 1 } },
    { dropAfterWrite: 2 },
    { answerDelayMs: 2500, pathPrefix: '/api.xro/2.0/Invoices' },
    { failNext: 3, errorStatus: 500 },
  ];
  world.sandbox.clearFaults();
  const plan = pick(plans);
  if (plan) {
    world.sandbox.setFaults(plan);
    figures.faultDays += 1;
  }
}

async function crashOne(world: World): Promise<void> {
  const live = liveInstances(world.instances);
  if (live.length < 2) return;
  const victim = pick(live);
  await noteInFlight(world.db).catch(() => undefined);
  victim.server?.kill();
  victim.server = null;
  figures.crashes += 1;
  await sleep(500 + random() * 1500);
  await startInstance(victim, world.spec(victim.name));
}

async function day(world: World, n: number): Promise<void> {
  chooseFaults(world);
  // Issue 44: some days an instance dies while pending cash and bill creates wait on a slow Xero.
  const inFlightDay = n % 6 === 4;
  // Slowness only: the soak's Xero keeps an Idempotency-Key 3 s (a month of days cannot wait out minutes), so
  // a lost answer retried after a 2.5 s wait would be applied twice by this Xero where the real one replays it.
  if (inFlightDay) {
    world.sandbox.clearFaults();
    world.sandbox.setFaults(SLOW_INVOICES);
  }
  const work = [
    payDay(world),
    draftsDay(world),
    billsDay(world),
    ...(n % 7 === 3 ? [journalDay(world)] : []),
  ];
  // Some days an instance dies while the day's writes are in flight.
  const crashes = n % 6 === 2 || inFlightDay;
  // On an in-flight day the kill waits for the drafts' first read (slow) so their pending cash is on its way.
  const wait = inFlightDay ? 2_600 + random() * 2_000 : 300 + random() * 2500;
  const crash = crashes ? sleep(wait).then(() => crashOne(world)) : Promise.resolve();
  personInXero(world);
  const settled = await Promise.allSettled([...work, crash]);
  for (const s of settled) if (s.status === 'rejected') console.error(`  day ${n}: ${String(s.reason)}`);
  world.sandbox.clearFaults();
  // After a restart every list screen shows what Xero holds, with no refresh and, on SOAK_WEBHOOKS=off, no webhook.
  if (crashes) await compareLists(world, `day ${n}, after a kill -9`);
  // Between two days Xero's idempotency window passes (the sandbox's window is shortened, see main).
  await sleep(IDEMPOTENCY_WINDOW_S * 1000 + 500);
}

/** Every list screen against Xero (bench/soak-restarts.ts), as the administrator's tabs read them. */
function compareLists(world: World, when: string) {
  return compareListsWithXero({
    when,
    sandbox: world.sandbox,
    db: world.db,
    shop: { name: SHOP, tab: tab(world.admin, SHOP) },
    builders: { name: BUILDERS, tab: tab(world.admin, BUILDERS) },
    untrue: problems.untrueAnswers,
  });
}

// ── the comparison ───────────────────────────────────────────────────────────────────────────────────────
async function settle(db: pg.Client): Promise<number> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const open = await db.query<{ n: string }>(
      "select count(*) as n from xero_writes where state in ('pending','sent','unknown')",
    );
    const n = Number(open.rows[0]?.n ?? 0);
    if (n === 0 || Date.now() > deadline) return n;
    await sleep(2000);
  }
}

interface AuditRow {
  action: string;
  result: string;
  target: string | null;
  detail: Record<string, unknown> | null;
}

async function compare(world: World, db: pg.Client, restoredWindow: { from: number; to: number } | null) {
  const sandboxWrites = world.sandbox.ledger().writes;
  const inRestoreWindow = (at: string) =>
    restoredWindow !== null && Date.parse(at) >= restoredWindow.from && Date.parse(at) <= restoredWindow.to;
  const shop = orgOf(world, SHOP);
  const builders = orgOf(world, BUILDERS);

  // Payments per invoice: what Xero holds from the API against what people were told.
  const apiPayments = new Map<string, number>();
  for (const w of sandboxWrites)
    if (w.kind === 'payment' && w.action === 'create' && w.tenantName === SHOP) {
      const payment = shop.payments.find((p) => p.PaymentID === w.id);
      if (payment) apiPayments.set(payment.InvoiceID, (apiPayments.get(payment.InvoiceID) ?? 0) + 1);
    }
  const byTarget = new Map<string, Action[]>();
  for (const a of actions) byTarget.set(a.target, [...(byTarget.get(a.target) ?? []), a]);
  /** What people did to a document, for a line that says it is untrue: who, what, and what they were told. */
  const describeActs = (target: string) =>
    (byTarget.get(target) ?? [])
      .map(
        (a) =>
          `${a.kind} by ${a.user} ${a.told} ${a.status}${a.afterBackup ? ' after the backup' : ''}${a.resent ? ' resent after the restore' : ''}`,
      )
      .join('; ') || 'nothing done here';
  const numberOf = (invoiceId: string) =>
    shop.invoices.find((i) => i.InvoiceID === invoiceId)?.InvoiceNumber ?? invoiceId;

  // New invoices: each action's total is its own, so Xero's copies are the API-created invoices with it.
  for (const key of new Set(actions.filter((a) => a.kind === 'new-invoice').map((a) => a.key))) {
    const acts = actions.filter((a) => a.key === key);
    const first = acts[0];
    if (!first) continue;
    const totalPence = Number(first.target.slice('new:'.length));
    const created = sandboxWrites.filter(
      (w) =>
        w.kind === 'invoice' &&
        w.action === 'create' &&
        w.tenantName === SHOP &&
        Math.round(Number(w.summary['total']) * 100) === totalPence,
    );
    const told = acts.filter((a) => a.told === 'success');
    const request = first.request as { approve: boolean };
    if (created.length > 1)
      problems.duplicates.push(
        `new invoice of £${fromPence(totalPence)}: ${created.length} invoices in Xero (${created.map((w) => String(w.summary['invoiceNumber'])).join(', ')}), one asked for`,
      );
    const made = created[0];
    if (!made) {
      if (told.length > 0)
        problems.lost.push(`new invoice of £${fromPence(totalPence)}: told created, not in Xero`);
      continue;
    }
    // Its cash is counted with the invoice's payments below, as one allowed payment.
    byTarget.set(made.id, [...(byTarget.get(made.id) ?? []), ...acts]);
    const invoice = shop.invoices.find((i) => i.InvoiceID === made.id);
    for (const a of told) {
      const answered = (() => {
        try {
          return (JSON.parse(a.answer) as { invoiceNumber?: string }).invoiceNumber;
        } catch {
          return undefined;
        }
      })();
      if (answered !== invoice?.InvoiceNumber)
        problems.untrueAnswers.push(
          `new invoice of £${fromPence(totalPence)}${a.resent ? ' resent after the restore' : ''}: told ${answered ?? 'no number'}, Xero made ${invoice?.InvoiceNumber ?? 'nothing'}`,
        );
    }
    if (told.length > 0 && request.approve && invoice?.Status === 'DRAFT')
      problems.lost.push(`new invoice ${invoice.InvoiceNumber}: told approved, a draft in Xero`);
    if (told.length > 0 && request.approve && (first.amountPence ?? 0) > 0 && !apiPayments.has(made.id))
      problems.lost.push(
        `new invoice ${invoice?.InvoiceNumber ?? made.id}: created with cash, no cash payment in Xero`,
      );
  }

  for (const [invoiceId, xero] of apiPayments) {
    const acts = byTarget.get(invoiceId) ?? [];
    const payments = acts.filter((a) => a.kind === 'payment');
    const approvals = acts.filter(
      (a) => a.kind === 'approve' || a.kind === 'pending-cash' || a.kind === 'new-invoice',
    );
    // One person's action is one key, however often it was sent (a resend after the restore included).
    const keys = (told: Told) => new Set(payments.filter((a) => a.told === told).map((a) => a.key));
    const successKeys = keys('success');
    const success = successKeys.size;
    const doubt = [...keys('in-doubt')].filter((k) => !successKeys.has(k)).length;
    // A draft (or a new invoice) gets at most one cash payment, whoever approved it and whatever was pending.
    const cashAllowed = approvals.some((a) => a.told !== 'refused') ? 1 : 0;
    const allowed = success + doubt + cashAllowed;
    if (xero > allowed)
      problems.duplicates.push(
        `invoice ${numberOf(invoiceId)}: ${xero} API payments in Xero, at most ${allowed} asked for (${acts
          .map(
            (a) =>
              `${a.kind} by ${a.user} ${a.told}${a.afterBackup ? ' after the backup' : ''}${a.resent ? ' resent after the restore' : ''}`,
          )
          .join('; ')})`,
      );
  }
  for (const [target, acts] of byTarget) {
    const told = new Set(acts.filter((a) => a.kind === 'payment' && a.told === 'success').map((a) => a.key))
      .size;
    if (told > (apiPayments.get(target) ?? 0))
      problems.lost.push(
        `invoice ${target}: ${told} payments told success, ${apiPayments.get(target) ?? 0} in Xero`,
      );
    const approved = acts.filter((a) => a.kind === 'approve' && a.told === 'success');
    const invoice = shop.invoices.find((i) => i.InvoiceID === target);
    if (approved.length > 0 && invoice && invoice.Status === 'DRAFT')
      problems.lost.push(`draft ${invoice.InvoiceNumber}: told approved, still a draft in Xero`);
    if (
      approved.length > 0 &&
      invoice &&
      !apiPayments.has(target) &&
      approved.some((a) => (a.amountPence ?? 0) > 0)
    )
      problems.lost.push(`draft ${invoice.InvoiceNumber}: approved with cash, no cash payment in Xero`);
  }

  // Bills: each tag exactly once when told success; never twice (a resend after the restore included).
  for (const key of new Set(actions.filter((x) => x.kind === 'bills').map((a) => a.key))) {
    const acts = actions.filter((a) => a.key === key);
    for (const tag of acts[0]?.billTags ?? []) {
      const found = builders.invoices.filter(
        (i) => i.Type === 'ACCPAY' && i.lines.some((l) => l.Description.endsWith(tag)),
      );
      if (found.length > 1)
        problems.duplicates.push(
          `bill ${tag}: ${found.length} bills in Xero${acts.some((a) => a.resent) ? ' (resent after the restore)' : ''}`,
        );
      if (found.length === 0 && acts.some((a) => a.told === 'success'))
        problems.lost.push(`bill ${tag}: told created, not in Xero`);
    }
  }

  // A resend after the restore is answered with the first outcome: told success again, with the same payment,
  // invoice, journal or count. (Pending cash is Ledgerlink's own record, which the restore took back: not
  // compared here; its cash is counted with the draft's payments above.)
  for (const again of actions.filter((a) => a.resent && a.kind !== 'pending-cash')) {
    const first = actions.find((a) => a.key === again.key && !a.resent);
    if (!first || first.told !== 'success') continue;
    const fields = (text: string) => {
      try {
        const body = JSON.parse(text) as Record<string, unknown>;
        return ['paymentId', 'invoiceNumber', 'journalId', 'processed', 'created'].flatMap((f) =>
          body[f] === undefined ? [] : [`${f} ${JSON.stringify(body[f])}`],
        );
      } catch {
        return [];
      }
    };
    const was = fields(first.answer).join(', ');
    const now = fields(again.answer).join(', ');
    if (again.told !== 'success' || was !== now)
      problems.untrueAnswers.push(
        `${again.kind} ${again.target} resent after the restore: told ${again.status} ${now || again.message.slice(0, 120)}; the first answer was ${was || 'success'}`,
      );
  }
  for (const a of actions.filter((x) => x.kind === 'bill-approve' && x.told === 'success')) {
    const bill = builders.invoices.find((i) => i.InvoiceID === a.target);
    if (bill && bill.Status === 'DRAFT')
      problems.lost.push(`bill ${a.target}: told approved, still DRAFT in Xero`);
  }
  // Journals: one per week, whoever posted it.
  for (const period of world.periodsPosted) {
    const [start = '', end = ''] = period.split('_');
    const reference = getStockJournalReference(start, end);
    const found = shop.journals.filter(
      (j) => j.Status !== 'DELETED' && j.Status !== 'VOIDED' && j.Narration.startsWith(reference),
    );
    const told = actions.filter((a) => a.kind === 'journal' && a.target === period && a.told === 'success');
    if (found.length > 1) problems.duplicates.push(`journal ${period}: ${found.length} journals in Xero`);
    if (found.length === 0 && told.length > 0)
      problems.lost.push(`journal ${period}: told posted, not in Xero`);
  }

  // Screens: every list a person opens, on every instance, against Xero.
  for (const instance of liveInstances(world.instances)) {
    const admin = tab(world.admin, SHOP).on(instance.server?.url ?? '');
    const screen = async <T>(url: string, client = admin): Promise<T[]> => {
      const res = await client.send('GET', url);
      if (res.status === 200) return res.json<T[]>();
      problems.untrueAnswers.push(
        `${instance.name} GET ${url} answered ${res.status}: ${res.text.slice(0, 120)}`,
      );
      return [];
    };
    const invoices = await screen<Invoice>('/api/xero/invoices?refresh=true');
    for (const inv of invoices) {
      const x = shop.invoices.find((i) => i.InvoiceID === inv.invoiceId);
      // The sandbox keeps amounts in pence.
      const due = x ? x.total - x.amountPaid : null;
      if (!x || x.Status !== 'AUTHORISED' || due !== roundPoundsToPence(inv.amountDue))
        problems.untrueAnswers.push(
          `${instance.name} Pay Invoices: ${inv.invoiceNumber} due £${inv.amountDue}, Xero ${x ? `${x.Status} £${fromPence(due ?? 0)}` : 'has no such invoice'}`,
        );
    }
    const drafts = await screen<DraftInvoice>('/api/xero/draft-invoices?refresh=true');
    for (const d of drafts) {
      const x = shop.invoices.find((i) => i.InvoiceID === d.id);
      if (!x || x.Status !== 'DRAFT')
        problems.untrueAnswers.push(
          `${instance.name} Add Invoices: ${d.invoiceNumber} listed as a draft, Xero ${x?.Status ?? 'none'}`,
        );
    }
    const builderTab = tab(world.admin, BUILDERS).on(instance.server?.url ?? '');
    const bills = await screen<{ invoiceID: string; reference: string }>(
      '/api/xero/draft-bills?refresh=true',
      builderTab,
    );
    for (const b of bills) {
      const x = builders.invoices.find((i) => i.InvoiceID === b.invoiceID);
      if (!x || x.Status !== 'DRAFT')
        problems.untrueAnswers.push(
          `${instance.name} CIS Bills: ${b.reference} (${b.invoiceID}) listed as a draft, Xero ${x?.Status ?? 'none'} (${describeActs(b.invoiceID)})`,
        );
    }
  }

  // The activity log: every success line names something Xero has; every API write Xero has is logged.
  const audit = await db.query<AuditRow>('select action, result, target, detail from audit_log');
  const ids = new Set<string>();
  const logged = new Set<string>();
  for (const org of [shop, builders]) {
    for (const i of org.invoices) ids.add(i.InvoiceID);
    for (const p of org.payments) ids.add(p.PaymentID);
    for (const j of org.journals) ids.add(j.ManualJournalID);
  }
  for (const row of audit.rows) {
    if (row.result !== 'success') continue;
    const xeroId = row.detail?.['xeroId'];
    if (typeof xeroId === 'string') {
      logged.add(xeroId);
      if (!ids.has(xeroId))
        problems.untrueLog.push(`${row.action} ${row.target ?? ''}: ${xeroId} is not in Xero`);
    }
    for (const value of Object.values(row.detail ?? {}))
      if (typeof value === 'string' && ids.has(value)) logged.add(value);
  }
  let lostWithRestore = 0;
  for (const w of sandboxWrites) {
    if (w.action !== 'create' && w.action !== 'approve' && w.action !== 'post') continue;
    if (logged.has(w.id)) continue;
    if (inRestoreWindow(w.at)) {
      lostWithRestore += 1;
      continue;
    }
    // Approvals are logged under the invoice id they approved, payments and creations under their own id.
    problems.untrueLog.push(
      `Xero ${w.kind} ${w.action} ${w.id} (${JSON.stringify(w.summary)}) has no activity-log line`,
    );
  }
  return { lostWithRestore, xeroWrites: sandboxWrites.length };
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────────────────
async function main() {
  const started = Date.now();
  const postgres = PG_URL ? await useEmptyDatabase(PG_URL) : await startPostgres(PG_BIN);
  if ('unavailable' in postgres) {
    console.error(`soak: ${postgres.unavailable}`);
    process.exit(1);
  }
  const pgServer: PostgresServer = postgres;
  pgServer.createDatabase('soak');
  const databaseUrl = pgServer.databaseUrl('soak');
  const sandbox = await startBenchSandbox({ scale: 1 });
  sandbox.configure({ idempotencyWindowSeconds: IDEMPOTENCY_WINDOW_S, accessTokenTtlSeconds: 300 });
  const instances: Instance[] = [
    { name: 'A', server: null },
    { name: 'B', server: null },
  ];
  const balancer = await startBalancer(instances);
  const scratch = makeTempDir('soak');
  const spec = (name: string) => ({
    dataDir: path.join(scratch, name),
    databaseUrl,
    sandboxUrl: sandbox.url,
    env: WEBHOOKS ? { XERO_WEBHOOK_KEY: WEBHOOK_KEY } : {},
  });
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    for (const instance of instances) {
      fs.mkdirSync(path.join(scratch, instance.name), { recursive: true });
      await startInstance(instance, spec(instance.name));
    }
    await db.connect();
    // People reach the app through the balancer; `act` sends the money writes to a chosen instance directly.
    const first = balancer.url;
    if (WEBHOOKS) sandbox.setWebhooks({ url: `${balancer.url}/api/xero/webhooks`, key: WEBHOOK_KEY });

    const admin: Person = {
      name: BENCH_ADMIN.username,
      password: BENCH_ADMIN.password,
      client: new ApiClient(first),
      orgs: [],
      tabs: {},
    };
    await signIn(admin.client);
    admin.orgs = await connectXero(admin.client, sandbox);
    await enableAllFeatures(admin.client, admin.orgs);
    const shop = admin.orgs.find((o) => o.tenantName === SHOP);
    const builders = admin.orgs.find((o) => o.tenantName === BUILDERS);
    if (!shop || !builders) throw new Error('both demo organisations must connect');
    const { billAccountId } = await prepareDefaults(admin.client, sandbox, shop, builders);
    const register = async (username: string, email: string): Promise<Person> => {
      const client = new ApiClient(first);
      await client.call('POST', '/api/register', { username, password: `Soak-${username}-Pass-2026!` });
      if (!client.cookie) await signIn(client, { username, password: `Soak-${username}-Pass-2026!` });
      const orgs = await connectXero(client, sandbox, { email });
      return { name: username, password: `Soak-${username}-Pass-2026!`, client, orgs, tabs: {} };
    };
    const staff = await register('sam', 'staff@demoshop.example');
    const bookkeeper = await register('bella', 'bookkeeper@demobuilders.example');
    const people: Array<[Person, string[]]> = [
      [admin, [SHOP, BUILDERS]],
      [staff, [SHOP]],
      [bookkeeper, [BUILDERS]],
    ];
    await openTabs(first, people, admin.orgs);
    const world: World = {
      sandbox,
      instances,
      spec,
      admin,
      staff,
      bookkeeper,
      shop,
      builders,
      today: getUkToday(),
      afterBackup: false,
      periodsPosted: new Set(),
      billAccountId,
      db,
    };
    console.log(
      `soak: ${DAYS} days, seed ${SEED}; two instances on ${pgServer.version}; webhooks ${WEBHOOKS ? 'on' : 'off'}`,
    );

    const backupFile = path.join(scratch, 'backup.sql');
    const backupDay = Math.floor(DAYS / 2);
    let restoredWindow: { from: number; to: number } | null = null;
    let backupAt = 0;
    for (let n = 1; n <= DAYS; n++) {
      if (n === backupDay) {
        await backupDatabase({ kind: 'postgres', databaseUrl }, backupFile);
        backupAt = world.sandbox.now();
        world.afterBackup = true;
      }
      await day(world, n);
      if (n === backupDay + 2) {
        // Restore the backup: both instances stopped, the database put back, both started again.
        for (const instance of instances) {
          await instance.server?.stop();
          instance.server = null;
        }
        await db.end();
        await restoreDatabase({ kind: 'postgres', databaseUrl }, backupFile);
        restoredWindow = { from: backupAt, to: world.sandbox.now() };
        for (const instance of instances) await startInstance(instance, spec(instance.name));
        Object.assign(db, new pg.Client({ connectionString: databaseUrl }));
        await db.connect();
        // Sessions made after the backup are gone: sign in again, as people would.
        for (const [person] of people) {
          person.client.cookie = '';
          await signIn(person.client, { username: person.name, password: person.password });
        }
        await openTabs(first, people, admin.orgs);
        // The restored database holds Xero refresh tokens that were rotated after the backup: Xero refuses them.
        // What the app says then is part of the truth (it must ask for a reconnect, not blame Xero); then each
        // person connects again, as the screen asks them to.
        const connection = await admin.client.send('GET', '/api/xero/connection');
        afterRestore.push(`GET /api/xero/connection: ${connection.status} ${connection.text.slice(0, 300)}`);
        const listed = await tab(admin, SHOP).send('GET', '/api/xero/invoices?refresh=true');
        afterRestore.push(
          `GET /api/xero/invoices?refresh=true: ${listed.status} ${listed.text.slice(0, 200)}`,
        );
        await connectXero(admin.client, sandbox);
        await connectXero(staff.client, sandbox, { email: 'staff@demoshop.example' });
        await connectXero(bookkeeper.client, sandbox, { email: 'bookkeeper@demobuilders.example' });
        // A day later (Xero's idempotency window long past), old requests arrive again with their keys.
        await sleep(IDEMPOTENCY_WINDOW_S * 1000 + 500);
        world.afterBackup = false;
        await resendOld(world);
        await compareLists(world, `day ${n}, after the restore`);
      }
      process.stdout.write(`  day ${n}/${DAYS}: ${actions.length} actions, ${figures.crashes} crashes\n`);
    }

    sandbox.clearFaults();
    for (const instance of instances)
      if (!instance.server) await startInstance(instance, spec(instance.name));
    const open = await settle(db);
    await sandbox.flushWebhooks();
    // A delivery lost on the way is noticed as a gap in Xero's sequence after a minute, and screens then check
    // Xero on each refresh (docs/decisions/018-webhooks.md): the comparison starts after that minute.
    await sleep(75_000);
    const result = await compare(world, db, restoredWindow);
    report(result, open, Date.now() - started, pgServer.version);
  } finally {
    for (const instance of instances) await instance.server?.stop().catch(() => undefined);
    await db.end().catch(() => undefined);
    await balancer.close();
    await sandbox.close();
    pgServer.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * `BENCH_PG_URL`: a database on a server already running, instead of a throwaway server. It must be empty (the
 * instances migrate it, and the restore replaces it); it is left as the month ends.
 */
async function useEmptyDatabase(url: string): Promise<PostgresServer | { unavailable: string }> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const tables = await client.query<{ n: string }>(
      "select count(*) as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
    );
    if (Number(tables.rows[0]?.n ?? 0) > 0)
      return { unavailable: 'BENCH_PG_URL names a database that is not empty; the soak needs an empty one' };
    const version = await client.query<{ v: string }>('select version() as v');
    return {
      version: (version.rows[0]?.v ?? 'PostgreSQL').split(' on ')[0] ?? 'PostgreSQL',
      databaseUrl: () => url,
      createDatabase: () => undefined,
      stop: () => undefined,
    };
  } catch (error) {
    return { unavailable: `BENCH_PG_URL: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The kinds of write resent after the restore: every kind the month makes that writes to Xero or keeps cash. */
const RESENT_KINDS: ReadonlyArray<Action['kind']> = [
  'payment',
  'approve',
  'pending-cash',
  'new-invoice',
  'bills',
  'bill-approve',
  'bill-delete',
  'journal',
];

/**
 * After the restore: the writes people sent between the backup and the restore, sent again with their keys
 * (a browser or a proxy replaying old requests): payments, approvals with cash, pending cash, new invoices, CIS
 * bills, their approvals and deletions (the bookkeeper's, who is not an administrator, included) and the journal.
 * None may be applied twice, and each must be answered with its first outcome.
 */
async function resendOld(world: World): Promise<void> {
  const shop = orgOf(world, SHOP);
  const old = actions.filter((a) => a.afterBackup && a.told !== 'refused' && RESENT_KINDS.includes(a.kind));
  // Of the payments, those Xero would still take (the invoice has that much due): the dangerous ones; and a
  // few whose invoice is paid in full now (by that payment perhaps), which must be answered, not refused.
  const dueOf = (a: Action) => {
    const invoice = shop.invoices.find((i) => i.InvoiceID === a.target);
    return invoice ? invoice.total - invoice.amountPaid : null;
  };
  const payments = [
    ...old.filter((a) => a.kind === 'payment' && (dueOf(a) ?? -1) >= (a.amountPence ?? 0)).slice(0, 12),
    ...old.filter((a) => a.kind === 'payment' && dueOf(a) === 0).slice(0, 3),
  ];
  for (const a of old.filter((x) => x.kind !== 'payment' || payments.includes(x))) {
    const person = [world.admin, world.staff, world.bookkeeper].find((p) => p.name === a.user);
    if (!person) continue;
    figures.restoreResends += 1;
    figures.restoreResendsByKind.set(a.kind, (figures.restoreResendsByKind.get(a.kind) ?? 0) + 1);
    // The same request as before, byte for byte: the browser resends what it sent.
    const answer = await act(world.instances, person, 'POST', a.url, a.request, a.key, a.org, a.headers);
    actions.push({
      ...a,
      afterBackup: false,
      resent: true,
      told: answer.told,
      status: answer.status,
      message: `resent after the restore: ${answer.text.slice(0, 100)}`,
      answer: answer.text.slice(0, 2000),
    });
  }
}

async function prepareDefaults(
  client: ApiClient,
  sandbox: Sandbox,
  shop: UserOrganization,
  builders: UserOrganization,
) {
  const s = sandboxOrg(sandbox, SHOP);
  const b = sandboxOrg(sandbox, BUILDERS);
  const account = (org: OrgRec, test: (a: OrgRec['accounts'][number]) => boolean) =>
    org.accounts.find(test)?.AccountID ?? null;
  const daily = s.contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? null;
  await client.call('PATCH', '/api/xero/settings', {
    organizationId: shop.organizationId,
    defaultCreditCardAccountId: account(s, (a) => a.Name === 'Business Credit Card'),
    defaultCashAccountId: account(s, (a) => a.Name === 'Cash'),
    defaultSalesAccountId: account(s, (a) => a.Code === '200'),
    defaultVatRateId: 'OUTPUT2',
    defaultContactId: daily,
    defaultTaxStatus: 'Tax inclusive',
    defaultStockJournalContactId: daily,
    defaultStockJournalMarginRate: 1.35,
    defaultStockJournalStockAccountId: account(s, (a) => a.Code === '630'),
    defaultStockJournalCostAccountId: account(s, (a) => a.Code === '310'),
    defaultStockJournalPostingStatus: 'draft',
  });
  const billAccountId = account(b, (a) => a.Code === '321');
  if (!billAccountId) throw new Error('Demo Builders has no account 321 for bills');
  await client.call('PATCH', '/api/xero/settings', {
    organizationId: builders.organizationId,
    defaultBillAccountId: billAccountId,
    defaultBillVatRateId: 'INPUT2',
    defaultCisSubcontractorsGroupId:
      b.contactGroups.find((g) => g.Name === 'CIS Subcontractors')?.ContactGroupID ?? null,
  });
  return { billAccountId };
}

function report(
  result: { lostWithRestore: number; xeroWrites: number },
  open: number,
  ms: number,
  pgVersion: string,
) {
  const told = (t: Told) => actions.filter((a) => a.told === t).length;
  const lines = [
    `## Soak: a business month (\`SOAK_DAYS=${DAYS} SOAK_SEED=${SEED}${WEBHOOKS ? '' : ' SOAK_WEBHOOKS=off'} npm run soak\`)`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${Math.round(ms / 1000)} s · two instances on ${pgVersion} · Node ${process.version}`,
    '',
    '| figure | count | goal |',
    '|---|---|---|',
    `| actions by people (told success / refused / in doubt) | ${actions.length} (${told('success')} / ${told('refused')} / ${told('in-doubt')}) | |`,
    `| writes Xero applied through the API | ${result.xeroWrites} | |`,
    `| races (two people on one document at once) | ${figures.races} | |`,
    `| days with Xero faults / browser resends | ${figures.faultDays} / ${figures.resends} | |`,
    `| kill -9 of an instance (with pending cash / bill creates open at the kill) | ${figures.crashes} (${restartFigures.killsWithPendingCash} / ${restartFigures.killsWithBillCreates}) | |`,
    `| list screens compared with Xero after a restart, no refresh (times / rows; ledger still busy) | ${restartFigures.comparisons} / ${restartFigures.rowsCompared}; ${restartFigures.unsettled} | |`,
    `| Xero webhooks | ${WEBHOOKS ? 'on' : 'off'} | |`,
    `| person's changes in Xero | ${figures.personChanges} | |`,
    `| webhook deliveries lost / delayed at the balancer | ${figures.webhooksDropped} / ${figures.webhooksDelayed} | |`,
    `| backup + restore, then old requests resent (by kind) | 1, ${figures.restoreResends} resent (${
      [...figures.restoreResendsByKind].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none'
    }) | |`,
    `| writes still open at the end | ${open} | 0 |`,
    `| **duplicates** | ${problems.duplicates.length} | 0 |`,
    `| **lost writes** | ${problems.lost.length} | 0 |`,
    `| **untrue answers** (screens vs Xero) | ${problems.untrueAnswers.length} | 0 |`,
    `| **untrue log lines** | ${problems.untrueLog.length} | 0 |`,
    `| log lines lost with the restore (the restored database predates them) | ${result.lostWithRestore} | expected |`,
    '',
  ];
  for (const line of afterRestore) lines.push(`- after the restore: ${line}`);
  for (const [name, list] of Object.entries(problems))
    for (const line of list.slice(0, 15)) lines.push(`- ${name}: ${line}`);
  const refusals = new Map<string, number>();
  for (const a of actions.filter((x) => x.told !== 'success'))
    refusals.set(
      `${a.kind} ${a.status} ${a.message.slice(0, 90)}`,
      (refusals.get(`${a.kind} ${a.status} ${a.message.slice(0, 90)}`) ?? 0) + 1,
    );
  lines.push('', 'What people were told when not "success" (kind, status, message: count):', '');
  for (const [text, n] of [...refusals].sort((x, y) => y[1] - x[1]).slice(0, 20))
    lines.push(`- ${text}: ${n}`);
  const text = lines.join('\n');
  console.log(`\n${text}\n`);
  if (process.env.SOAK_OUT) fs.writeFileSync(process.env.SOAK_OUT, `${text}\n`);
  const failed =
    problems.duplicates.length +
    problems.lost.length +
    problems.untrueAnswers.length +
    problems.untrueLog.length;
  process.exitCode = failed > 0 || open > 0 ? 1 : 0;
}

await main();
