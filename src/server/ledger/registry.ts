import type { WriteKind } from './rules';
import type { AfterRestore, ConfirmHook, LocalWrite, StepRunner, WriteFinder, WriteRetrier } from './types';

/**
 * What the features register with the ledger, one of each per kind: finders (and how a kind is looked up after a
 * restore), step runners, confirm hooks and retriers.
 */
export function createLedgerRegistry() {
  const finders = new Map<WriteKind, WriteFinder>();
  const retriers = new Map<WriteKind, WriteRetrier>();
  const restoreFinders = new Map<WriteKind, WriteFinder>();
  /** Kinds looked up after a restore by the state they leave (`'find'`), not by a mark of their own. */
  const byState = new Set<WriteKind>();
  const stepRunners = new Map<WriteKind, StepRunner>();
  const confirmHooks = new Map<WriteKind, ConfirmHook[]>();
  const localKinds = new Map<WriteKind, LocalWrite>();

  return {
    finders,
    retriers,
    restoreFinders,
    byState,
    stepRunners,
    confirmHooks,
    localKinds,

    /**
     * One registration per kind, the one idiom for finders (issue 28): `find` settles a write whose answer
     * was lost; `afterRestore` is how Xero is asked, for a day after a `db:restore`, whether it already has a
     * write under a caller's key the restored database does not know, before it is sent (see AfterRestore).
     * A second registration is a wiring mistake and fails at start.
     */
    registerFinder(kind: WriteKind, find: WriteFinder, afterRestore: AfterRestore) {
      if (finders.has(kind)) throw new Error(`A finder for '${kind}' writes is already registered`);
      finders.set(kind, find);
      restoreFinders.set(kind, afterRestore === 'find' ? find : afterRestore);
      if (afterRestore === 'find') byState.add(kind);
    },

    /** One step runner per kind (see StepRunner): how the reconciler finishes a step left unsent. */
    registerStepRunner(kind: WriteKind, runner: StepRunner) {
      if (stepRunners.has(kind)) throw new Error(`A step runner for '${kind}' writes is already registered`);
      stepRunners.set(kind, runner);
    },

    /** Runs `hook` in the transaction that confirms each write of this kind (see ConfirmHook). */
    registerConfirmHook(kind: WriteKind, hook: ConfirmHook) {
      confirmHooks.set(kind, [...(confirmHooks.get(kind) ?? []), hook]);
    },

    /** One retrier per kind, as for finders: the kinds an administrator may send again from the review list. */
    registerRetrier(kind: WriteKind, retrier: WriteRetrier) {
      if (retriers.has(kind)) throw new Error(`A retrier for '${kind}' writes is already registered`);
      retriers.set(kind, retrier);
    },

    /**
     * A kind that never goes to Xero (issue 44, see LocalWrite): applied with its confirmation, settled from
     * the database. It has no finder, step runner or retrier: registering one as well is a wiring mistake.
     */
    registerLocal(kind: WriteKind, local: LocalWrite) {
      if (localKinds.has(kind) || finders.has(kind) || stepRunners.has(kind))
        throw new Error(`'${kind}' writes are already registered`);
      localKinds.set(kind, local);
    },

    canRetry(kind: WriteKind): boolean {
      return retriers.has(kind) && finders.has(kind);
    },
  };
}
export type LedgerRegistry = ReturnType<typeof createLedgerRegistry>;
