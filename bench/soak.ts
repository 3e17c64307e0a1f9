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
 * The parts, each a file beside this one: soak-settings (settings, the seeded schedule), soak-figures (what is
 * recorded), soak-instances (the app processes and the balancer), soak-people (tabs, a browser's request),
 * soak-world (what a day works on), soak-work (the people's work), soak-days (a day: faults, kills), soak-restarts
 * (issue 44), soak-compare (the comparison with Xero), soak-report (the figures). This file runs the month.
 *
 * Loopback only; every loop is bounded in count and time.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Sandbox } from '../src/sandbox/sandbox';
import type { OrgRec } from '../src/sandbox/state';
import { backupDatabase, restoreDatabase } from '../src/server/db/backup';
import { DEMO_CIS_SETTINGS } from '../src/server/demo';
import { getUkToday } from '../src/shared/dates';
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
import { startPostgres, type PostgresServer } from './lib/postgres';
import { compare, settle } from './soak-compare';
import { compareLists, day } from './soak-days';
import { actions, afterRestore, figures, type Action } from './soak-figures';
import { startBalancer, startInstance, type Instance } from './soak-instances';
import { act, openTabs, tab, type Person } from './soak-people';
import { report } from './soak-report';
import {
  BUILDERS,
  DAYS,
  IDEMPOTENCY_WINDOW_S,
  PG_BIN,
  PG_URL,
  SEED,
  SHOP,
  sleep,
  WEBHOOK_KEY,
  WEBHOOKS,
} from './soak-settings';
import { orgOf, type World } from './soak-world';

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
  // The CIS settings a careful contractor chooses (issue 42): without a deductions account every bill to a
  // subcontractor paid net is refused, as it is for a person, and only gross-status bills would be created.
  const cis = DEMO_CIS_SETTINGS[BUILDERS];
  if (!cis) throw new Error(`no demo CIS settings for ${BUILDERS}`);
  await client.call('PUT', `/api/xero/cis/settings?org=${builders.organizationId}`, {
    contractorName: null,
    utr: null,
    employerReference: null,
    accountsOfficeReference: null,
    materialsAccountCodes: cis.materialsAccountCodes,
    deductionAccountCode: cis.deductionAccountCode,
    reverseCharge: false,
  });
  return { billAccountId };
}

await main();
