import { createLedgerInstance } from './write-ledger-instance';
import { createLedgerIntents } from './write-ledger-intents';
import { createLedgerLocal } from './write-ledger-local';
import { createLedgerQueries } from './write-ledger-queries';
import { createLedgerRecall } from './write-ledger-recall';
import { createLedgerReconciler } from './write-ledger-reconcile';
import { createLedgerRecording } from './write-ledger-record';
import { createLedgerRegistry } from './write-ledger-registry';
import { createLedgerReview } from './write-ledger-review';
import { createLedgerSettling } from './write-ledger-settle';
import { createLedgerViews } from './write-ledger-views';
import type { WriteLedgerDeps } from './write-ledger-types';

export * from './write-ledger-rules';
export type {
  AfterRestore,
  ConfirmHook,
  DocumentRef,
  IntentStep,
  LedgerTx,
  LocalWrite,
  RetryActor,
  StepRunner,
  WriteAudit,
  WriteFinder,
  WriteLedgerDeps,
  WriteOutcome,
  WriteRetrier,
  WriteRow,
  WriteSpec,
} from './write-ledger-types';
export { describeBusyDocument } from './write-ledger-locks';
export { NOT_SENT_MESSAGE } from './write-ledger-settle';
export { NOT_SAVED_MESSAGE } from './write-ledger-local';
export { busyExtra, UNKNOWN_OUTCOME_MESSAGE } from './write-ledger-record';
export { fingerprintOf } from './write-ledger-rules';
export {
  HELD_USER_GONE,
  RETRY_REFUSED_FOUND,
  RETRY_REFUSED_KIND,
  RETRY_REFUSED_UNAVAILABLE,
} from './write-ledger-review';

/**
 * Never lose or duplicate a money write. Each write is recorded here before it is sent, sent with its
 * idempotency key (Xero replays the first answer for a repeated key), and ends confirmed, failed with a
 * message, or `unknown` when the answer was lost. A request repeated with the same key returns the first
 * outcome instead of writing again. `reconcile()` settles unknown writes by asking Xero (through the finder
 * registered for the kind) rather than sending again, and fails writes a crash left unsent, so nothing a
 * user was not told about is ever applied behind their back.
 *
 * The parts, where a reader looks for them (all `write-ledger-*.ts` beside this file): `record` (recording and
 * sending one write, a same key answered), `intents` (the steps of one action recorded together), `settle`
 * (settling, claiming a step, looking a write up, the staleness rule), `recall` (a key a restore forgot, looked
 * up before anything compares the write with what Ledgerlink holds), `reconcile` (the pass over stale writes),
 * `review` (needs-review: the admin list and its settling), `local` (writes that never go to Xero, settled
 * from the database), `views` (writes settled without their request, for the cache's catch-up), `locks` (one writer per document), `instance` (the
 * heartbeat, the last restore), `registry` (finders, step runners, confirm hooks, retriers), `queries`, `types`.
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
