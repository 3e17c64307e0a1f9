import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import type { AddInvoicesService } from '../add-invoices/add-invoices.service';
import type { CisBillsService } from '../cis-bills/cis-bills.service';
import type { CisReturnsService } from '../cis-returns/cis-returns.service';
import type { PayInvoicesService } from '../pay-invoices/pay-invoices.service';
import type { StockJournalService } from '../stock-journal/stock-journal.service';
import { createChangeNotices } from './change-notices';
import { createCisMonthReader } from './cis-month';
import { createPracticeRepository } from './practice.repository';
import { registerPracticeRoutes } from './practice.routes';
import { createPracticeService } from './practice.service';

/**
 * The Today page's entry (issues 46 and 47): every organisation's row through each feature's own code (figures.ts),
 * given each feature's service by name, kept until the database announces a change. Its CIS month comes from CIS
 * Returns' own Today instance (`cisReturns`: from the cache it says what it lacks). Its change notices start with
 * the app; its background reads stop before the database closes.
 */
export function practiceModule(
  parts: SharedParts,
  deps: {
    payInvoices: PayInvoicesService;
    addInvoices: AddInvoicesService;
    cisBills: CisBillsService;
    cisReturns: CisReturnsService;
    stockJournal: StockJournalService;
  },
) {
  const { database, log, sync, ledger, sessions } = parts;
  const { payInvoices, addInvoices, cisBills, cisReturns, stockJournal } = deps;
  const changeNotices = createChangeNotices({ database, log });
  const service = createPracticeService({
    repo: createPracticeRepository(parts.db),
    notices: changeNotices,
    sources: {
      payInvoices: {
        summarizeOutstanding: (ctx) => payInvoices.summarizeOutstanding(ctx),
        startInvoiceList: (ctx) => payInvoices.startInvoiceList(ctx),
        readInvoiceList: (ctx) => payInvoices.readInvoiceList(ctx),
      },
      listDrafts: (ctx, o) => addInvoices.listDrafts(ctx, o),
      listDraftBills: (ctx, o) => cisBills.listDraftBills(ctx, o),
      readCisMonth: createCisMonthReader((ctx, o) => cisReturns.listMonths(ctx, o)),
      getSales: (ctx, query) => stockJournal.getSales(ctx, query),
      listEntries: (ctx) => stockJournal.listEntries(ctx),
      listKnownEntries: (ctx) => stockJournal.listKnownEntries(ctx),
      ensureView: (ctx, view) => sync.ensureInvoices(ctx, view),
      syncContacts: (ctx) => sync.syncContacts(ctx),
      syncAccounts: (ctx) => sync.syncAccounts(ctx),
    },
    listMemberships: (userId) => parts.orgs.listForUser(userId),
    liveUpdates: (tenantIds) => parts.webhookHealth.healthOf(tenantIds),
    // Admin → Needs review's own list (write-review.service.ts), each write's organisation.
    listNeedsReview: async () => (await ledger.listNeedsReview()).map((r) => r.write),
    log,
  });
  return {
    service,
    register(app) {
      registerPracticeRoutes(app, { service, isLive: (sessionId) => sessions.isLive(sessionId) });
    },
    start: () => changeNotices.start(),
    // The Today page's background reads, then its change notices.
    async close() {
      await service.close();
      await changeNotices.close();
    },
  } satisfies ModuleEntry;
}
