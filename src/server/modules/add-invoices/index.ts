import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { createAddInvoicesRepository } from './add-invoices.repository';
import { registerAddInvoicesRoutes } from './add-invoices.routes';
import { createAddInvoicesService } from './add-invoices.service';

/**
 * Add Invoices' entry (issue 46): drafts made and approved, with cash taken on them, each through the ledger: its
 * kinds, the steps of its intents (a cash payment after its approval) and its local writes (pending cash on a
 * draft, never sent to Xero). The Today page is given its service.
 */
export function addInvoicesModule(parts: SharedParts) {
  const service = createAddInvoicesService({
    repo: createAddInvoicesRepository(parts.db),
    xero: parts.xero.addInvoices,
    ledger: parts.ledger,
    sync: parts.sync,
    audit: parts.audit,
  });
  return {
    service,
    register(app) {
      registerAddInvoicesRoutes(app, { service });
    },
    writeKinds: service.writeKinds,
    writeSteps: service.writeSteps,
    localKinds: service.localKinds,
  } satisfies ModuleEntry;
}
