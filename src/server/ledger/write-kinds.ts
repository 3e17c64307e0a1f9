import type { WriteKind } from './rules';
import type { AfterRestore, ConfirmHook, LocalWrite, StepRunner, WriteFinder, WriteRetrier } from './types';
import type { WriteLedger } from './write-ledger';

/**
 * How the ledger settles one kind of Xero write without the request that made it (decision 015): `find` looks a
 * lost answer up in Xero, `afterRestore` keeps a resend after a `db:restore` from doubling it, and `retry` (when
 * the kind has one) sends a held write again for an administrator. Each feature answers its kinds as a list;
 * the wiring site registers every feature's list in one place (src/server/wiring.ts).
 */
export interface WriteKindHandlers {
  kind: WriteKind;
  find: WriteFinder;
  afterRestore: AfterRestore;
  retry?: WriteRetrier;
}

/**
 * What a feature adds to a kind of write as a step of its intents (issue 28), whoever finds that kind: `runStep`
 * is how the reconciler sends a step an intent recorded and its request left unsent, once the step before it
 * is confirmed; `onConfirm` runs in the transaction that confirms each write of the kind (Add Invoices' cash
 * payments are Pay Invoices' kind, `payment`).
 */
export interface WriteStepHandlers {
  kind: WriteKind;
  runStep?: StepRunner;
  onConfirm?: ConfirmHook;
}

/** A kind of write that never goes to Xero (issue 44): applied with its confirmation, settled from the database. */
export interface LocalKindHandlers {
  kind: WriteKind;
  local: LocalWrite;
}

/**
 * Registers each kind's finder (and retrier), and each step's runner and confirm hook, with the ledger: the one
 * place a feature's writes are made known to it.
 */
export function registerWriteKinds(
  ledger: WriteLedger,
  kinds: readonly WriteKindHandlers[],
  steps: readonly WriteStepHandlers[] = [],
  locals: readonly LocalKindHandlers[] = [],
): void {
  for (const { kind, local } of locals) ledger.registerLocal(kind, local);
  for (const { kind, find, afterRestore, retry } of kinds) {
    ledger.registerFinder(kind, find, afterRestore);
    if (retry) ledger.registerRetrier(kind, retry);
  }
  for (const { kind, runStep, onConfirm } of steps) {
    if (runStep) ledger.registerStepRunner(kind, runStep);
    if (onConfirm) ledger.registerConfirmHook(kind, onConfirm);
  }
}
