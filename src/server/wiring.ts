/**
 * The one wiring site (docs/code-style.md §4; issues 31 and 46): builds the shared parts once (src/server/wiring/)
 * and lists the modules, one line each, in the order the services they are given need. Each module wires itself in
 * its own entry (`src/server/modules/<module>/index.ts`) from the shared parts and, where it needs another module's
 * service, that service passed by name. app.ts holds the Fastify app itself (its plugins and hooks) and calls this
 * once; nothing else builds a service. Routes files never build a repository (lint: *.routes.ts imports no
 * *.repository.ts nor the db layer).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerWriteKinds, type WriteLedger } from './ledger/index';
import { createJobs } from './lib/jobs';
import { addInvoicesModule } from './modules/add-invoices/index';
import { adminModule } from './modules/admin/index';
import { auditModule } from './modules/audit/index';
import { authModule } from './modules/auth/index';
import type { PrincipalCache } from './modules/auth/principal-cache';
import type { PrincipalRow, SessionStore } from './modules/auth/sessions';
import { cisBillsModule } from './modules/cis-bills/index';
import { cisReturnsModule } from './modules/cis-returns/index';
import { hmrcFilingModule, hmrcVerifications } from './modules/hmrc-filing/index';
import { liveEventsModule } from './modules/live-events/index';
import { organizationsModule } from './modules/organizations/index';
import type { ResolveTenant } from './modules/organizations/tenancy';
import { payInvoicesModule } from './modules/pay-invoices/index';
import { practiceModule } from './modules/practice/index';
import type { PracticeService } from './modules/practice/practice.service';
import { settingsModule } from './modules/settings/index';
import { stockJournalModule } from './modules/stock-journal/index';
import { xeroConnectionModule } from './modules/xero-connection/index';
import { xeroWebhooksModule } from './modules/xero-webhooks/index';
import type { BuildAppOptions } from './wiring/build-options';
import type { ModuleEntry } from './wiring/module-entry';
import { createPageDataStarter } from './wiring/page-data';
import { createSharedParts, reconcileJob } from './wiring/shared-parts';
import type { WriteCatchUp } from './xero/sync/settled-write-catch-up';
import type { XeroSync } from './xero/sync/sync.service';
import type { EgressMeter } from './modules/organizations/egress-meter';
import type { XeroHttp } from './xero/xero-http/http';
import type { TokenStore } from './xero/xero-http/token-store';

export type { BuildAppOptions } from './wiring/build-options';

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
  /** Bytes read from Xero per organisation, written every few seconds; `flush()` writes them now. */
  egress: EgressMeter;
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
  /** When the app is ready: live events, the Today page's notices, the ledger's heartbeat, then the jobs. */
  start(): Promise<void>;
  /** When the app closes: the jobs, then each collaborator holding a connection, a timer or unsaved counts. */
  stop(): Promise<void>;
}

/** Builds every collaborator of the app once (docs/code-style.md §4); registers nothing until asked. */
export function createWiring(app: FastifyInstance, options: BuildAppOptions): Wiring {
  const { database } = options;
  // The activity log and the organisations, which the shared parts stand on; then the shared parts.
  const audit = auditModule(database.db, app.log);
  const organizations = organizationsModule(database, app.log);
  const parts = createSharedParts(app, options, {
    audit: audit.service,
    organizations: organizations.service,
  });
  const { log, sessions, principals, ledger, live, sync } = parts;

  // The modules, one line each, in the order the services they are given need; their routes are registered in
  // this order too.
  const modules: ModuleEntry[] = [];
  const use = <Entry extends ModuleEntry>(entry: Entry): Entry => {
    modules.push(entry);
    return entry;
  };
  const xeroConnection = use(xeroConnectionModule(parts));
  const auth = use(authModule(parts, xeroConnection.service));
  use(adminModule(parts, auth.service));
  use(settingsModule(parts));
  const payInvoices = use(payInvoicesModule(parts));
  const addInvoices = use(addInvoicesModule(parts));
  const verifications = hmrcVerifications(parts);
  const cisBills = use(cisBillsModule(parts, verifications));
  const cisReturns = use(cisReturnsModule(parts, { cisBills: cisBills.service, ...verifications }));
  const stockJournal = use(stockJournalModule(parts));
  const hmrcFiling = use(
    hmrcFilingModule(parts, { cisReturns: cisReturns.service, cisBills: cisBills.service }),
  );
  const practice = use(
    practiceModule(parts, {
      payInvoices: payInvoices.service,
      addInvoices: addInvoices.service,
      cisBills: cisBills.service,
      cisReturns: cisReturns.forToday,
      stockJournal: stockJournal.service,
    }),
  );
  const xeroWebhooks = use(xeroWebhooksModule(parts));
  use(liveEventsModule(parts));

  // The background jobs, each named, started when the app is ready and stopped when it closes.
  const jobs = createJobs(
    [...auth.jobs, ...xeroWebhooks.jobs, ...xeroConnection.jobs, reconcileJob(parts), ...hmrcFiling.jobs],
    log,
  );

  function registerModules(): void {
    for (const entry of modules) entry.register?.(app);
    // Every kind of Xero write, in one list: how its lost answer is looked up in Xero, how a resend after a restore
    // is kept from doubling it, who sends a held one again, the steps of intents (a cash payment after its
    // approval) and the writes that never go to Xero (decision 015, src/server/ledger/write-kinds.ts; issue 44).
    registerWriteKinds(
      ledger,
      modules.flatMap((entry) => entry.writeKinds ?? []),
      modules.flatMap((entry) => entry.writeSteps ?? []),
      modules.flatMap((entry) => entry.localKinds ?? []),
    );
  }

  return {
    parts: {
      tokens: parts.tokens,
      xeroHttp: parts.xeroHttp,
      ledger,
      sync,
      principals,
      catchUp: parts.catchUp,
      watchConnections: (watch) => xeroConnection.service.connection.watchConnections(watch),
      practice: practice.service,
      egress: organizations.service.egress,
    },
    sessions,
    resolveTenant: parts.resolveTenant,
    registerModules,
    // What each page asks Xero for first, started with the page (the modules' `pageData`).
    startPageData: createPageDataStarter(
      parts,
      modules.flatMap((entry) => (entry.pageData ? [entry.pageData] : [])),
    ),
    async start() {
      await live.start();
      await practice.start();
      // Events stored by an instance that stopped before applying them.
      if (parts.webhookKey) void parts.webhooks.drain();
      // This instance's heartbeat (issue 28 item 5), then the first reconcile pass with the jobs.
      await ledger.start();
      jobs.start();
    },
    async stop() {
      jobs.stop();
      await ledger.stop().catch((error: unknown) => log.warn({ err: error }, 'ledger stop failed'));
      await live.close();
      // The Today page's background reads and its notices, then a first visit's read, which goes on after its answer
      // (issue 19): they stop after the page they are on before the database closes.
      await practice.close();
      await sync.close();
      await parts.sharedGates?.close();
      // The bytes read from Xero, counted since the last write (decision 019).
      await organizations.close();
      await principals.close();
    },
  };
}
