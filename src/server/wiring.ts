/**
 * The one wiring site (docs/code-style.md §4, issue 31 item 2): every port, service and background job is built
 * here, every module's routes and every kind of Xero write are registered here, each in one list. app.ts holds
 * the Fastify app itself (its plugins and hooks) and calls this once; nothing else builds a service.
 * Routes files never build a repository (lint: *.routes.ts imports no *.repository.ts nor the db layer).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RECONCILE_INTERVAL_MS, registerWriteKinds, type WriteLedger } from './ledger/index';
import { createJobs, type Job } from './lib/jobs';
import { adminModule } from './modules/admin/index';
import { addInvoicesModule } from './modules/add-invoices/index';
import { auditModule } from './modules/audit/index';
import { cisBillsModule } from './modules/cis-bills/index';
import { cisReturnsModule } from './modules/cis-returns/index';
import { hmrcFilingModule, hmrcVerifications } from './modules/hmrc-filing/index';
import { authModule } from './modules/auth/index';
import { liveEventsModule } from './modules/live-events/index';
import { payInvoicesModule } from './modules/pay-invoices/index';
import { settingsModule } from './modules/settings/index';
import { stockJournalModule } from './modules/stock-journal/index';
import { xeroConnectionModule } from './modules/xero-connection/index';
import { xeroWebhooksModule } from './modules/xero-webhooks/index';
import type { PrincipalCache } from './modules/auth/principal-cache';
import type { PrincipalRow, SessionStore } from './modules/auth/sessions';
import { organizationsModule } from './modules/organizations/index';
import type { ResolveTenant } from './modules/organizations/tenancy';
import { createChangeNotices } from './modules/practice/change-notices';
import { createCisMonthReader } from './modules/practice/cis-month';
import { createPracticeRepository } from './modules/practice/practice.repository';
import { registerPracticeRoutes } from './modules/practice/practice.routes';
import { createPracticeService, type PracticeService } from './modules/practice/practice.service';
import type { XeroSync } from './xero/sync/sync.service';
import type { WriteCatchUp } from './xero/sync/settled-write-catch-up';
import type { XeroHttp } from './xero/xero-http/http';
import type { TokenStore } from './xero/xero-http/token-store';
import type { BuildAppOptions } from './wiring/build-options';
import { createPageDataStarter } from './wiring/page-data';
import { createSharedParts } from './wiring/shared-parts';

/**
 * The wiring's part of what a built app's builder's caller sees (app.ts `AppParts`; the app is not decorated
 * with them): a reconcile pass run now, a sync run directly, a raw Xero call for a fault, a token read back.
 */
export interface WiringParts {
  tokens: TokenStore;
  xeroHttp: XeroHttp;
  ledger: WriteLedger;
  sync: XeroSync;
  /** Reads what the ledger settled without its request into the cache and tells the screens (issue 44). */
  catchUp: WriteCatchUp;
  /** Who asks, kept in memory between requests (src/server/modules/auth/principal-cache.ts). */
  principals: PrincipalCache<PrincipalRow>;
  /** One round of the connections watch now (issue 45): how many users' connections were read. */
  watchConnections: (options?: { allDue?: boolean }) => Promise<number>;
  /** The Today page's rows and background reads (src/server/modules/practice, issue 47). */
  practice: PracticeService;
}

export interface Wiring {
  parts: WiringParts;
  /** Who asks: read by app.ts's request hook with the organisation the request names. */
  sessions: SessionStore;
  /** Which organisation a request works on: app.ts's tenancy hook (docs/decisions/007-tenancy.md). */
  resolveTenant: ResolveTenant;
  /** Registers every module's routes and every kind of Xero write, once. */
  registerModules(): void;
  /**
   * A page of the client was asked for (its HTML, spa.ts): starts reading what that page will ask for first
   * from Xero, for the signed-in user's active organisation where they may use the page's feature (issue 32).
   * Never throws: a page asked for signed out, without access or with the feature off starts nothing.
   */
  startPageData(request: FastifyRequest, pathname: string): Promise<void>;
  /** When the app is ready: live events, the ledger's heartbeat, then the background jobs. */
  start(): Promise<void>;
  /** When the app closes: the jobs, then each collaborator holding a connection, a timer or unsaved counts. */
  stop(): Promise<void>;
}

export type { BuildAppOptions } from './wiring/build-options';

/** Builds every collaborator of the app once (docs/code-style.md §4); registers nothing until asked. */
export function createWiring(app: FastifyInstance, options: BuildAppOptions): Wiring {
  const { database } = options;
  const db = database.db;
  const log = app.log;
  const audit = auditModule(db, log).service;
  const organizations = organizationsModule(database, log);
  const parts = createSharedParts(app, options, { audit, organizations: organizations.service });
  const { principals, sessions, tokens, orgs, resolveTenant, sharedGates } = parts;
  const { metrics, webhookKey, webhookHealth, xeroHttp, ledger, sync, live, catchUp, webhooks } = parts;
  const xeroConnection = xeroConnectionModule(parts);
  const { connection } = xeroConnection.service;
  const auth = authModule(parts, xeroConnection.service);
  const admin = adminModule(parts, auth.service);
  const xeroWebhooks = xeroWebhooksModule(parts);
  const liveEvents = liveEventsModule(parts);

  const settings = settingsModule(parts);
  const payInvoicesEntry = payInvoicesModule(parts);
  const payInvoices = payInvoicesEntry.service;
  const addInvoicesEntry = addInvoicesModule(parts);
  const addInvoices = addInvoicesEntry.service;
  const verifications = hmrcVerifications(parts);
  const cisBillsEntry = cisBillsModule(parts, verifications);
  const cisBills = cisBillsEntry.service;
  const cisReturns = cisReturnsModule(parts, { cisBills, ...verifications });
  const hmrcFiling = hmrcFilingModule(parts, { cisReturns: cisReturns.service, cisBills });
  const stockJournalEntry = stockJournalModule(parts);
  const stockJournal = stockJournalEntry.service;

  // The Today page (issue 47): every organisation's row through each feature's own code (figures.ts), kept until
  // the database announces a change.
  const changeNotices = createChangeNotices({ database, log });
  const practice = createPracticeService({
    repo: createPracticeRepository(db),
    notices: changeNotices,
    sources: {
      payInvoices: {
        summarizeOutstanding: (ctx) => payInvoices.summarizeOutstanding(ctx),
        startInvoiceList: (ctx) => payInvoices.startInvoiceList(ctx),
        readInvoiceList: (ctx) => payInvoices.readInvoiceList(ctx),
      },
      listDrafts: (ctx, o) => addInvoices.listDrafts(ctx, o),
      listDraftBills: (ctx, o) => cisBills.listDraftBills(ctx, o),
      readCisMonth: createCisMonthReader((ctx, o) => cisReturns.forToday.listMonths(ctx, o)),
      getSales: (ctx, query) => stockJournal.getSales(ctx, query),
      listEntries: (ctx) => stockJournal.listEntries(ctx),
      listKnownEntries: (ctx) => stockJournal.listKnownEntries(ctx),
      ensureView: (ctx, view) => sync.ensureInvoices(ctx, view),
      syncContacts: (ctx) => sync.syncContacts(ctx),
      syncAccounts: (ctx) => sync.syncAccounts(ctx),
    },
    listMemberships: (userId) => orgs.listForUser(userId),
    liveUpdates: (tenantIds) => webhookHealth.healthOf(tenantIds),
    // Admin → Needs review's own list (write-review.service.ts), each write's organisation.
    listNeedsReview: async () => (await ledger.listNeedsReview()).map((r) => r.write),
    log,
  });

  // The background jobs, each named, started when the app is ready and stopped when it closes.
  const jobList: Job[] = [
    ...auth.jobs,
    ...xeroWebhooks.jobs,
    ...xeroConnection.jobs,
    {
      // Settles the writes the staleness rule calls stale (a crashed instance's, a lost answer) by asking Xero,
      // at start and every RECONCILE_INTERVAL_MS, one pass at a time; then what was settled without its request
      // is read into the cache and told to the open screens (issue 44).
      name: 'reconcile',
      everyMs: RECONCILE_INTERVAL_MS,
      runAtStart: true,
      run: async () => {
        try {
          await ledger.reconcile();
          await catchUp.run();
          metrics.reconcilerRan('ok');
        } catch (error) {
          metrics.reconcilerRan('error');
          throw error;
        }
      },
    },
    ...hmrcFiling.jobs,
  ];
  const jobs = createJobs(jobList, log);

  function registerModules(): void {
    xeroConnection.register(app);
    auth.register(app);
    admin.register(app);
    settings.register(app);
    payInvoicesEntry.register(app);
    addInvoicesEntry.register(app);
    cisBillsEntry.register(app);
    cisReturns.register(app);
    stockJournalEntry.register(app);
    hmrcFiling.register(app);
    registerPracticeRoutes(app, { service: practice, isLive: (sessionId) => sessions.isLive(sessionId) });
    xeroWebhooks.register(app);
    liveEvents.register(app);

    // Every kind of Xero write, in one list: how its lost answer is looked up in Xero, how a resend after a
    // restore is kept from doubling it, and who sends a held one again (decision 015, src/server/ledger/write-kinds.ts).
    registerWriteKinds(
      ledger,
      [
        ...payInvoices.writeKinds,
        ...addInvoices.writeKinds,
        ...cisBills.writeKinds,
        ...stockJournal.writeKinds,
      ],
      // The steps of Add Invoices' intents (a cash payment after its approval).
      addInvoices.writeSteps,
      // Writes that never go to Xero (pending cash on a draft), settled from the database (issue 44).
      addInvoices.localKinds,
    );
  }

  // What each page asks Xero for first, started with the page.
  const startPageData = createPageDataStarter({ sessions, resolveTenant }, [payInvoicesEntry.pageData]);

  return {
    parts: {
      tokens,
      xeroHttp,
      ledger,
      sync,
      principals,
      catchUp,
      watchConnections: (watch) => connection.watchConnections(watch),
      practice,
    },
    sessions,
    resolveTenant,
    registerModules,
    startPageData,
    async start() {
      await live.start();
      await changeNotices.start();
      // Events stored by an instance that stopped before applying them.
      if (webhookKey) void webhooks.drain();
      // This instance's heartbeat (issue 28 item 5), then the first reconcile pass with the jobs.
      await ledger.start();
      jobs.start();
    },
    async stop() {
      jobs.stop();
      await ledger.stop().catch((error: unknown) => log.warn({ err: error }, 'ledger stop failed'));
      await live.close();
      // The Today page's background reads, then a first visit's read, which goes on after its answer (issue 19): they
      // stop after the page they are on before the database closes.
      await practice.close();
      await changeNotices.close();
      await sync.close();
      await sharedGates?.close();
      await organizations.close();
      await principals.close();
    },
  };
}
