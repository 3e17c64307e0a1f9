/**
 * The write ledger's public surface (decision 015; README.md beside this file): every importer outside
 * src/server/ledger imports this file and nothing else of the folder (eslint.config.js, zone `ledger`).
 * The one exception is the table's definition, src/server/db/schema/ledger.ts, which reads the states and
 * kinds from rules.ts: this index imports the schema, so reading it from here would close a cycle.
 */
export { createWriteLedger, type WriteLedger } from './write-ledger';
export * from './rules';
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
} from './types';
export {
  registerWriteKinds,
  type LocalKindHandlers,
  type WriteKindHandlers,
  type WriteStepHandlers,
} from './write-kinds';
export { describeWriteFailure, explainUnconfirmed, type WriteFailure } from './write-failure';
export { describeBusyDocument } from './document-locks';
export { NOT_SENT_MESSAGE } from './settle';
export { NOT_SAVED_MESSAGE } from './local-writes';
export { busyExtra, UNKNOWN_OUTCOME_MESSAGE } from './record';
export { HELD_USER_GONE, RETRY_REFUSED_FOUND, RETRY_REFUSED_KIND, RETRY_REFUSED_UNAVAILABLE } from './review';
