import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { registerStockJournalRoutes } from './stock-journal.routes';
import { createStockJournalService } from './stock-journal.service';
import { createStockJournalRepository } from './stock-journal.repository';

/**
 * Stock Journal's entry (issue 46): weekly sales read from Xero and the stock journals posted for them, each a
 * write through the ledger (its kinds answered as `writeKinds`). The Today page is given its service.
 */
export function stockJournalModule(parts: SharedParts) {
  const { tokens } = parts;
  const service = createStockJournalService({
    repo: createStockJournalRepository(parts.db),
    sync: parts.sync,
    journals: parts.xero.journals,
    sales: parts.xero.sales,
    ledger: parts.ledger,
    audit: parts.audit,
    bodies: parts.bodies,
    checkToken: (userId) => tokens.getAccessToken(userId),
    log: parts.log,
  });
  return {
    service,
    register(app) {
      registerStockJournalRoutes(app, { service });
    },
    writeKinds: service.writeKinds,
  } satisfies ModuleEntry;
}
