import { createBillReads } from './bill-reads';
import { createBillChanges } from './change-bills';
import { createCisBillsCore, type CisBillsDeps } from './context';
import { createBillCreation } from './create-bills';
import { createCisBillsWriteKinds } from './ledger-hooks';

export { toDraftBill } from './bill-reads';
export type { CisBillsContext, CisBillsDeps } from './context';

/**
 * CIS Bills (001 CIS Bills; docs/architecture.md §4 CIS Bills). Reads come from the caches kept by the sync
 * service; every write goes through the write ledger with an idempotency key and is audited.
 *
 * The parts, where a reader looks for them: `bill-reads.ts` (subcontractors and their CIS state, direct-costs
 * accounts, draft bills), `create-bills.ts` (creating bills, one or a batch, and what a replay answers),
 * `change-bills.ts` (a draft's edit, approval and deletion), `ledger-hooks.ts` (the finders of a lost or
 * forgotten write and the held write's retry), and `context.ts` under them.
 */
export function createCisBillsService(deps: CisBillsDeps) {
  const core = createCisBillsCore(deps);
  const changes = createBillChanges(deps, core);
  return {
    /** How the ledger settles each kind of bill write: registered by the wiring site (src/server/wiring.ts). */
    ...createCisBillsWriteKinds(deps, core, changes),
    ...createBillReads(deps, core),
    ...createBillCreation(deps, core),
    ...changes,
  };
}
export type CisBillsService = ReturnType<typeof createCisBillsService>;
