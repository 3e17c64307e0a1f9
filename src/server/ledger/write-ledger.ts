import { createLedgerInstance } from './instance';
import { createLedgerIntents } from './intents';
import { createLedgerLocal } from './local-writes';
import { createLedgerQueries } from './queries';
import { createLedgerRecall } from './restore-recall';
import { createLedgerReconciler } from './reconcile';
import { createLedgerRecording } from './record';
import { createLedgerRegistry } from './registry';
import { createLedgerReview } from './review';
import { createLedgerSettling } from './settle';
import { createLedgerViews } from './views-due';
import type { WriteLedgerDeps } from './types';

/**
 * Never lose or duplicate a money write. Each write is recorded here before it is sent, sent with its
 * idempotency key (Xero replays the first answer for a repeated key), and ends confirmed, failed with a
 * message, or `unknown` when the answer was lost. A request repeated with the same key returns the first
 * outcome instead of writing again. `reconcile()` settles unknown writes by asking Xero (through the finder
 * registered for the kind) rather than sending again, and fails writes a crash left unsent, so nothing a
 * user was not told about is ever applied behind their back.
 *
 * The parts, where a reader looks for them (beside this file; README.md says the states and rules in one page):
 * `record` (recording and sending one write, a same key answered), `intents` (the steps of one action recorded
 * together), `settle` (settling, claiming a step, looking a write up, the staleness rule), `restore-recall` (a
 * key a restore forgot, looked up before anything compares the write with what Ledgerlink holds), `reconcile`
 * (the pass over stale writes), `review` (needs-review: the admin list and its settling), `local-writes` (writes
 * that never go to Xero, settled from the database), `views-due` (writes settled without their request, for the
 * cache's catch-up), `document-locks` (one writer per document), `instance` (the heartbeat, the last restore),
 * `registry` (finders, step runners, confirm hooks, retriers), `queries`, `types`. Other code imports `index.ts`.
 */
export function createWriteLedger(deps: WriteLedgerDeps) {
  const instance = createLedgerInstance(deps);
  const registry = createLedgerRegistry();
  const settling = createLedgerSettling(deps, instance, registry);
  const local = createLedgerLocal(deps, registry, settling);
  settling.bindLocal(local);
  const recall = createLedgerRecall(deps, instance, registry, settling);
  return {
    /** This instance's id in ledger_instances. */
    instanceId: instance.instanceId,
    start: instance.start,
    stop: instance.stop,
    recordRestore: instance.recordRestore,
    registerFinder: registry.registerFinder,
    registerStepRunner: registry.registerStepRunner,
    registerConfirmHook: registry.registerConfirmHook,
    registerRetrier: registry.registerRetrier,
    canRetry: registry.canRetry,
    ...createLedgerIntents(deps, instance),
    registerLocal: registry.registerLocal,
    ...createLedgerRecording(deps, instance, recall, settling, local),
    recallForgotten: recall.recallForgotten,
    /** Whether the database was restored lately (RESTORE_LOOKUP_MS): a key it does not know may be forgotten. */
    restoredLately: recall.restoredLately,
    settleIfStale: settling.settleIfStale,
    ...createLedgerReconciler(deps, instance, registry, settling, local),
    /** Settles one open write by asking Xero (see lookUp); the row as it stands afterwards. */
    lookUp: settling.lookUp,
    findByKey: settling.findByKey,
    findById: settling.findById,
    ...createLedgerQueries(deps),
    ...createLedgerReview(deps, registry, settling, local),
    ...createLedgerViews(deps),
  };
}
export type WriteLedger = ReturnType<typeof createWriteLedger>;
