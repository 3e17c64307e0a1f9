import type { FindVerifiedRates } from '../../../shared/hmrc-filing';
import { isCacheOnly, noteNotInCache } from '../../xero/call-context';
import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import type { CisBillsService } from '../cis-bills/cis-bills.service';
import type { createReturnInFlight } from '../hmrc-filing/ports';
import { createCisReturnsRepository } from './cis-returns.repository';
import { registerCisReturnsRoutes } from './cis-returns.routes';
import { createCisReturnsService, type CisReturnsService } from './cis-returns.service';

/**
 * CIS Returns' entry (issue 46): the CIS month-end (issue 29), behind the CIS Bills flag, reading the
 * subcontractors' CIS settings as CIS Bills does (given its service), and HMRC filing's verified rates and returns
 * on their way (issue 43). HMRC filing is given its service.
 */
export function cisReturnsModule(
  parts: SharedParts,
  deps: {
    cisBills: CisBillsService;
    verifiedRates: FindVerifiedRates;
    returnInFlight: ReturnType<typeof createReturnInFlight>;
  },
) {
  const { db, sync, audit, log } = parts;
  const { cisBills, verifiedRates, returnInFlight } = deps;
  const service = createCisReturnsService({
    repo: createCisReturnsRepository(db),
    sync,
    audit,
    checkCisContacts: (ctx, contactIds) => cisBills.checkCisContacts(ctx, contactIds),
    verifiedRates,
    returnInFlight,
    log,
  });
  // The Today page's own instance (issue 47): its CIS month comes from CIS Returns' own months, but its check of
  // subcontractors' CIS settings calls Xero only when the row is read in the background (from the cache it says
  // what it lacks instead).
  const forToday = createCisReturnsService({
    repo: createCisReturnsRepository(db),
    sync,
    audit,
    checkCisContacts: async (ctx, contactIds) => {
      if (!isCacheOnly()) return cisBills.checkCisContacts(ctx, contactIds);
      if ((await cisBills.findUncheckedCisContacts(ctx, contactIds)).length > 0) noteNotInCache();
      return [];
    },
    verifiedRates,
    returnInFlight,
    log,
  });
  return {
    service,
    forToday,
    register(app) {
      registerCisReturnsRoutes(app, { service });
    },
  } satisfies ModuleEntry & { forToday: CisReturnsService };
}
