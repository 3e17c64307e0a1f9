/**
 * The feature modules, wired once (docs/code-style.md §4): each service is built here from its repository,
 * the Xero client and the shared collaborators, and each routes function is handed what it uses, by name.
 * Routes files never build a repository (lint: *.routes.ts imports no *.repository.ts nor the db layer).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Db } from '../db/client';
import type { BodyCache } from '../lib/body-cache';
import type { XeroSync } from '../xero/sync/sync.service';
import type { WriteLedger } from '../xero/write-ledger';
import type { TokenStore, XeroPort } from '../xero/xero-port';
import { createAddInvoicesRepository } from './add-invoices/add-invoices.repository';
import { registerAddInvoicesRoutes } from './add-invoices/add-invoices.routes';
import { createAddInvoicesService } from './add-invoices/add-invoices.service';
import type { AuditLog } from './audit/audit';
import { createCisBillsRepository } from './cis-bills/cis-bills.repository';
import { registerCisBillsRoutes } from './cis-bills/cis-bills.routes';
import { createCisBillsService } from './cis-bills/cis-bills.service';
import { createCisReturnsRepository } from './cis-returns/cis-returns.repository';
import { registerCisReturnsRoutes } from './cis-returns/cis-returns.routes';
import { createCisReturnsService } from './cis-returns/cis-returns.service';
import { createContextOf, type ResolveTenant } from './organizations/tenancy';
import { createAttachmentStoreRepository } from './pay-invoices/attachment-store.repository';
import { createPayInvoicesRepository } from './pay-invoices/pay-invoices.repository';
import { registerPayInvoicesRoutes } from './pay-invoices/pay-invoices.routes';
import { createPayInvoicesService } from './pay-invoices/pay-invoices.service';
import { createSettingsRepository } from './settings/settings.repository';
import { registerSettingsRoutes } from './settings/settings.routes';
import { createSettingsService } from './settings/settings.service';
import { createStockJournalRepository } from './stock-journal/stock-journal.repository';
import { registerStockJournalRoutes } from './stock-journal/stock-journal.routes';
import { createStockJournalService, JOURNAL_WRITE_KIND } from './stock-journal/stock-journal.service';

/** What the feature modules share, built once in buildApp. */
export interface FeatureDeps {
  db: Db;
  /** The Xero port, built once in buildApp; each service gets the part it uses. */
  xero: XeroPort;
  sync: XeroSync;
  ledger: WriteLedger;
  audit: AuditLog;
  tokens: TokenStore;
  resolveTenant: ResolveTenant;
  bodies: BodyCache;
  log: FastifyBaseLogger;
  /** ATTACHMENT_STORE_MB in bytes: attachment bytes kept in the database; 0 = none kept. */
  attachmentStoreBytes: number;
}

/** Settings and the four features: their services, their write finders in the ledger, their routes. */
export function registerFeatureModules(app: FastifyInstance, deps: FeatureDeps): void {
  const { db, xero, sync, ledger, audit, tokens, resolveTenant, bodies, log, attachmentStoreBytes } = deps;

  const settings = createSettingsService({
    repo: createSettingsRepository(db),
    sync,
    accounts: xero.accounts,
    audit,
    ledger,
  });
  registerSettingsRoutes(app, { settings, resolveTenant });

  const payInvoices = createPayInvoicesService({
    repo: createPayInvoicesRepository(db),
    sync,
    xero: xero.payInvoices,
    ledger,
    audit,
    bodies,
    attachmentStore: {
      repo: createAttachmentStoreRepository(db),
      maxBytes: attachmentStoreBytes,
      log,
    },
  });
  // When a payment's answer is lost, reconciliation looks it up in Xero instead of paying again; after a
  // restore, a payment under a key the database forgot is looked up by its mark before it is sent.
  ledger.registerFinder('payment', payInvoices.findPaymentInXero, payInvoices.findMarkedPaymentInXero);
  ledger.registerFinder('payment.delete', payInvoices.findPaymentDeletionInXero, 'find');
  // A payment held for review that Xero does not have can be sent again by an administrator (issue 20).
  ledger.registerRetrier('payment', (row, by, key) => payInvoices.retryHeldPayment(row, by, key));
  registerPayInvoicesRoutes(app, {
    service: payInvoices,
    contextOf: createContextOf(resolveTenant, 'pay-invoices'),
  });

  // Registers its own finders (invoice approval and creation) when built.
  const addInvoices = createAddInvoicesService({
    repo: createAddInvoicesRepository(db),
    xero: xero.addInvoices,
    ledger,
    sync,
    audit,
  });
  registerAddInvoicesRoutes(app, {
    service: addInvoices,
    contextOf: createContextOf(resolveTenant, 'add-invoices'),
  });

  const cisBills = createCisBillsService({
    repo: createCisBillsRepository(db),
    bills: xero.bills,
    contacts: xero.contacts,
    sync,
    ledger,
    audit,
    log,
  });
  cisBills.registerFinders();
  registerCisBillsRoutes(app, { service: cisBills, contextOf: createContextOf(resolveTenant, 'cis-bills') });

  // The CIS month-end (issue 29): behind the CIS Bills flag, reading the subcontractors' CIS settings as CIS Bills does.
  const cisReturns = createCisReturnsService({
    repo: createCisReturnsRepository(db),
    sync,
    audit,
    checkCisContacts: (ctx, contactIds) => cisBills.checkCisContacts(ctx, contactIds),
    log,
  });
  registerCisReturnsRoutes(app, {
    service: cisReturns,
    contextOf: createContextOf(resolveTenant, 'cis-bills'),
  });

  const stockJournal = createStockJournalService({
    repo: createStockJournalRepository(db),
    sync,
    journals: xero.journals,
    sales: xero.sales,
    ledger,
    audit,
    bodies,
    checkToken: (userId) => tokens.getAccessToken(userId),
    log,
  });
  ledger.registerFinder(JOURNAL_WRITE_KIND, stockJournal.findJournalWrite, {
    notNeeded: "a post checks Xero for the week's journal before anything is sent",
  });
  // A held journal Xero does not have can be sent again by an administrator (Needs review).
  ledger.registerRetrier(JOURNAL_WRITE_KIND, stockJournal.retryHeldJournal);
  registerStockJournalRoutes(app, { service: stockJournal, resolveTenant });
}
