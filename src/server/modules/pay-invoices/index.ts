import { FEATURE_PATHS } from '../../../shared/feature-flags-rules';
import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { createAttachmentStoreRepository } from './attachment-store.repository';
import { createPayInvoicesRepository } from './pay-invoices.repository';
import { registerPayInvoicesRoutes } from './pay-invoices.routes';
import { createPayInvoicesService } from './pay-invoices.service';

/**
 * Pay Invoices' entry (issue 46): outstanding invoices and the payments against them, each payment a write through
 * the ledger (its kinds answered as `writeKinds`). Its page's invoice list starts being read with the page's HTML
 * (issue 32). The Today page is given its service.
 */
export function payInvoicesModule(parts: SharedParts) {
  const { db, config, log } = parts;
  const service = createPayInvoicesService({
    repo: createPayInvoicesRepository(db),
    sync: parts.sync,
    xero: parts.xero.payInvoices,
    ledger: parts.ledger,
    audit: parts.audit,
    bodies: parts.bodies,
    attachmentStore: {
      repo: createAttachmentStoreRepository(db),
      maxBytes: config.attachmentStore.maxBytes,
      log,
    },
  });
  return {
    service,
    register(app) {
      registerPayInvoicesRoutes(app, { service });
    },
    writeKinds: service.writeKinds,
    pageData: {
      path: FEATURE_PATHS['pay-invoices'],
      feature: 'pay-invoices',
      start: (ctx) => service.startInvoiceList(ctx),
    },
  } satisfies ModuleEntry;
}
