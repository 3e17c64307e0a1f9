import type { AfterRestore, WriteFinder, WriteLedger, WriteRetrier } from './write-ledger';
import type { WriteKind } from './write-ledger-rules';

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

/** Registers each kind's finder (and retrier) with the ledger. */
export function registerWriteKinds(ledger: WriteLedger, kinds: readonly WriteKindHandlers[]): void {
  for (const { kind, find, afterRestore, retry } of kinds) {
    ledger.registerFinder(kind, find, afterRestore);
    if (retry) ledger.registerRetrier(kind, retry);
  }
}
