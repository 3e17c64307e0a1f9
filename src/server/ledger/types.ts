import type { Db } from '../db/client';
import type { xeroWrites } from '../db/schema/index';
import type { WriteKind } from './rules';
import type { XeroContext } from '../xero/xero-port';

export type WriteRow = typeof xeroWrites.$inferSelect;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A database handle inside one transaction, for the checks an intent makes under its document's lock. */
export type LedgerTx = Tx;

/**
 * The document a write changes (issue 28, "one document, one writer"): `key` is unique in the organisation
 * (`invoice:<id>`, `bill:<id>`, `journal-week:<period>`), `label` is how people name it ("INV-2015").
 */
export interface DocumentRef {
  key: string;
  label: string;
}

/**
 * One step of a multi-step action (issue 28): recorded with the others before the first is sent. `after` is
 * the index of the step that must be confirmed in Xero before this one may be sent.
 */
export interface IntentStep {
  kind: WriteKind;
  idempotencyKey: string;
  targetId?: string | null;
  amountPence?: number | null;
  request: unknown;
  audit?: WriteAudit;
  after?: number;
}

/**
 * Finishes a recorded step whose request died before sending it (a crash, a lost connection): the
 * reconciler claims the step and sends it through this. `bind` fills in what only the earlier step's answer
 * tells (the id of an invoice it created) when the step is claimed, whoever claims it.
 */
export interface StepRunner {
  bind?: (
    row: WriteRow,
    before: WriteRow,
  ) => { targetId?: string | null; request?: unknown; audit?: WriteAudit };
  send: (
    row: WriteRow,
    ctx: XeroContext & { organizationId: number },
    idempotencyKey: string,
  ) => Promise<WriteOutcome<unknown>>;
}

/** Runs in the transaction that confirms a write of its kind, once, whoever confirms it. */
export type ConfirmHook = (tx: Tx, row: WriteRow) => Promise<void>;

export interface WriteOutcome<R> {
  xeroId?: string | null;
  response: R;
}

/**
 * The activity-log line a write stands for. The ledger writes it itself, once, when the write settles:
 * `success` when Xero applied it (answered, or found later by look-up or by the reconciler), `failure` when
 * Xero certainly did not. Nothing is logged while the outcome is unknown, and a replayed answer logs nothing.
 */
export interface WriteAudit {
  /** e.g. 'payment.create', 'add-invoices.approve', 'cis-bills.create'. */
  action: string;
  target?: string | null;
  /** The acting user's name: every line names who acted. */
  username: string;
  ip?: string | null;
  /** What to show with the line; the ledger adds writeId and xeroId (success) or error (failure). */
  detail?: Record<string, unknown>;
}

export interface WriteSpec<R> {
  organizationId: number;
  tenantId: string;
  userId: number;
  /** Also the key its finder and retrier are registered under. */
  kind: WriteKind;
  targetId?: string | null;
  amountPence?: number | null;
  /** A key the browser sent for this user action (kept across its retries); a random one otherwise. */
  idempotencyKey?: string | undefined;
  /** The canonical request: stored, fingerprinted, and handed to the finder when the outcome is unknown. */
  request: unknown;
  send: (idempotencyKey: string) => Promise<WriteOutcome<R>>;
  /** The activity-log line, written by the ledger when the write settles (see WriteAudit). */
  audit?: WriteAudit;
  /**
   * At most one open write of this kind per target: a new one (under another key) while an earlier one is
   * pending, sent or unknown is refused with `busyMessage` (409). Checked under a lock, so two concurrent
   * requests cannot both pass.
   */
  exclusiveTarget?: { busyMessage: string };
  /**
   * One writer per document (issue 28): while any write on this document is open under another key, this
   * one is refused with 409 naming who is doing what. Checked under a database lock, so it holds across
   * instances.
   */
  document?: DocumentRef;
  /**
   * The ledger row this write was recorded as, a step of an intent (`recordIntent`): it is claimed and sent
   * instead of a new row being inserted, once the step before it is confirmed.
   */
  step?: WriteRow;
  /**
   * Xero was asked for this key's write a moment ago (`recallForgotten`, before the feature's checks) and has
   * none: it is not asked again before sending (restore-recall.ts).
   */
  lookedUp?: boolean;
}

/** Looks a write up in Xero when its answer was lost. Null means Xero does not have it. */
export type WriteFinder = (
  ctx: XeroContext & { organizationId: number },
  row: WriteRow,
) => Promise<WriteOutcome<unknown> | null>;

/**
 * How a kind's writes are kept from doubling after a `db:restore` (issue 28): for a day after one, a write
 * under a caller's key the restored database does not know (it may have been used after the backup was taken,
 * and Xero replays a key for minutes only) is first looked up in Xero, and answered with what Xero has
 * instead of being sent again.
 * - a WriteFinder: the look-up by the mark the write leaves in Xero (writeMarkOf: a payment's or an invoice's
 *   Reference, a bill's Url, a journal's Narration). Exact, so a new write like an earlier one is never taken
 *   for it.
 * - `'find'`: the write is idempotent by state, so the kind's own finder tells (an approval: the invoice is
 *   approved in Xero; a deletion: the payment is deleted).
 * Every kind that writes to Xero has one: a kind that could not be looked up could double after a restore.
 */
export type AfterRestore = WriteFinder | 'find';

/**
 * A kind of write that never goes to Xero (issue 44): Ledgerlink's own rows are its only effect (pending cash
 * on a draft). It is applied in the very transaction that confirms it, so a crash leaves it either confirmed
 * and applied or pending and not applied, never "outcome unknown": the ledger settles it from the database.
 */
export interface LocalWrite {
  /**
   * What only the step before it told (the id of the invoice it created), as a StepRunner's `bind`.
   */
  bind?: StepRunner['bind'];
  /** Applies it to Ledgerlink's rows, in the confirming transaction; a refusal (its message) changes nothing. */
  apply: (tx: Tx, row: WriteRow) => Promise<{ refused: string } | { response: unknown }>;
  /**
   * Whether Ledgerlink's rows hold a write recorded before local writes were applied with their confirmation
   * (one left sent, unknown, or held for review by an older version); null when the rows cannot tell.
   */
  isApplied: (tx: Tx, row: WriteRow) => Promise<boolean | null>;
  /** Takes an applied write back out of Ledgerlink's rows (an administrator cancels it). */
  undo: (tx: Tx, row: WriteRow) => Promise<void>;
}

/** Who sends a held write again (an administrator), and to which Xero organisation. */
export interface RetryActor {
  userId: number;
  username: string;
  ip?: string | null;
  tenantId: string;
}

/**
 * Sends a held write's change again through its feature's own path (its checks, its ledger row, its audit
 * line) under `idempotencyKey`; answers the new write's ledger id and Xero id.
 */
export type WriteRetrier = (
  row: WriteRow,
  by: RetryActor,
  idempotencyKey: string,
) => Promise<{ writeId: number; xeroId: string | null }>;

/** What the ledger is built from (wired in src/server/wiring.ts). */
export interface WriteLedgerDeps {
  db: Db;
  log?: { warn: (o: object, m: string) => void };
  /** This server instance's id in ledger_instances (a new one per start unless told). */
  instanceId?: string;
}
