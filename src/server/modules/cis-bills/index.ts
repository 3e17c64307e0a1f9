import type { FindVerifiedRates } from '../../../shared/hmrc-filing';
import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { createCisBillsRepository } from './cis-bills.repository';
import { registerCisBillsRoutes } from './cis-bills.routes';
import { createCisBillsService } from './cis-bills.service';

/**
 * CIS Bills' entry (issue 46): subcontractors' bills with the CIS deduction, each a write through the ledger (its
 * kinds answered as `writeKinds`). Given HMRC filing's verified rates (issue 43: HMRC's answer is the rate the
 * deduction uses). CIS Returns, HMRC filing and the Today page are given its service (contacts' CIS settings).
 */
export function cisBillsModule(parts: SharedParts, deps: { verifiedRates: FindVerifiedRates }) {
  const service = createCisBillsService({
    repo: createCisBillsRepository(parts.db),
    verifiedRates: deps.verifiedRates,
    bills: parts.xero.bills,
    contacts: parts.xero.contacts,
    sync: parts.sync,
    ledger: parts.ledger,
    audit: parts.audit,
    appUrl: parts.config.appUrl,
    log: parts.log,
  });
  return {
    service,
    register(app) {
      registerCisBillsRoutes(app, { service });
    },
    writeKinds: service.writeKinds,
  } satisfies ModuleEntry;
}
