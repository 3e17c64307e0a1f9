import crypto from 'node:crypto';
import { and, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import { organizations, xeroWrites, type XeroWriteState } from '../db/schema/index.ts';
import { AppError } from '../lib/app-error';
import { isNotApplied } from './xero-http/http';
import type { XeroContext } from './xero-port';

export type WriteRow = typeof xeroWrites.$inferSelect;

export interface WriteOutcome<R> {
  xeroId?: string | null;
  response: R;
}

export interface WriteSpec<R> {
  organizationId: number;
  tenantId: string;
  userId: number;
  /** e.g. 'payment', 'bill.create', 'journal.create' — also the key a finder is registered under. */
  kind: string;
  targetId?: string | null;
  amountPence?: number | null;
  /** A key the browser sent for this user action (kept across its retries); a random one otherwise. */
  idempotencyKey?: string | undefined;
  /** The canonical request: stored, fingerprinted, and handed to the finder when the outcome is unknown. */
  request: unknown;
  send: (idempotencyKey: string) => Promise<WriteOutcome<R>>;
}

/** Looks a write up in Xero when its answer was lost. Null means Xero does not have it. */
export type WriteFinder = (ctx: XeroContext & { organizationId: number }, row: WriteRow) => Promise<WriteOutcome<unknown> | null>;

/** Errors where Xero certainly did not apply the write. */
const DEFINITE_FAILURES = new Set(['XERO_REJECTED', 'VALIDATION_ERROR', 'BAD_REQUEST', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'UNPROCESSABLE']);

export const UNKNOWN_OUTCOME_MESSAGE =
  'Xero did not confirm this change in time. Ledgerlink will check with Xero before anything is sent again; refresh in a minute to see the result.';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprintOf(kind: string, request: unknown): string {
  return crypto.createHash('sha256').update(`${kind}\n${canonical(request)}`).digest('hex');
}

/**
 * Never lose or duplicate a money write. Each write is recorded here before it is sent, sent with its
 * idempotency key (Xero replays the first answer for a repeated key), and ends confirmed, failed with a
 * message, or `unknown` when the answer was lost. A request repeated with the same key returns the first
 * outcome instead of writing again. `reconcile()` settles unknown writes by asking Xero (through the finder
 * registered for the kind) rather than sending again, and fails writes a crash left unsent, so nothing a
 * user was not told about is ever applied behind their back.
 */
export function createWriteLedger(deps: { db: Db; log?: { warn: (o: object, m: string) => void } }) {
  const { db } = deps;
  const finders = new Map<string, WriteFinder>();

  async function update(id: number, values: Partial<typeof xeroWrites.$inferInsert>) {
    await db.update(xeroWrites).set(values).where(eq(xeroWrites.id, id));
  }

  async function finish<R>(row: WriteRow, spec: WriteSpec<R>): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
    await update(row.id, { state: 'sent', attempts: row.attempts + 1, sentAt: new Date() });
    try {
      const outcome = await spec.send(row.idempotencyKey);
      await update(row.id, { state: 'confirmed', xeroId: outcome.xeroId ?? null, response: outcome.response as object, completedAt: new Date(), error: null });
      return { ...outcome, writeId: row.id, replayed: false };
    } catch (error) {
      if (error instanceof AppError && (DEFINITE_FAILURES.has(error.code) || isNotApplied(error))) {
        await update(row.id, { state: 'failed', error: error.message, completedAt: new Date() });
        throw error;
      }
      const message = error instanceof Error ? error.message : String(error);
      await update(row.id, { state: 'unknown', error: message });
      throw new AppError('XERO_UNAVAILABLE', UNKNOWN_OUTCOME_MESSAGE, message, { writeId: row.id, writeState: 'unknown' });
    }
  }

  return {
    registerFinder(kind: string, finder: WriteFinder) {
      finders.set(kind, finder);
    },

    async execute<R>(spec: WriteSpec<R>): Promise<WriteOutcome<R> & { writeId: number; replayed: boolean }> {
      const key = spec.idempotencyKey ?? crypto.randomUUID();
      const fingerprint = fingerprintOf(spec.kind, spec.request);
      const inserted = await db
        .insert(xeroWrites)
        .values({
          organizationId: spec.organizationId,
          userId: spec.userId,
          kind: spec.kind,
          idempotencyKey: key,
          fingerprint,
          targetId: spec.targetId ?? null,
          amountPence: spec.amountPence ?? null,
          request: spec.request as object,
          state: 'pending',
        })
        .onConflictDoNothing()
        .returning();
      const row = inserted[0];
      if (row) return finish(row, spec);

      // The same key again: the browser retried, or the user double-clicked.
      const [existing] = await db
        .select()
        .from(xeroWrites)
        .where(and(eq(xeroWrites.organizationId, spec.organizationId), eq(xeroWrites.idempotencyKey, key)));
      if (!existing) throw new AppError('CONFLICT', 'This change is already being processed');
      if (existing.fingerprint !== fingerprint) {
        throw new AppError('VALIDATION_ERROR', 'This Idempotency-Key was already used for a different change');
      }
      if (existing.state === 'confirmed') {
        return { xeroId: existing.xeroId, response: existing.response as R, writeId: existing.id, replayed: true };
      }
      if (existing.state === 'failed') throw new AppError('XERO_REJECTED', existing.error ?? 'Xero refused this change');
      throw new AppError('CONFLICT', 'This change is already being processed. Refresh in a moment to see the result.', undefined, {
        writeId: existing.id,
        writeState: existing.state,
      });
    },

    /**
     * Settles writes left `pending`, `sent` or `unknown` for longer than `olderThanMs`: a pending write was
     * never sent (the server stopped first) and fails; the others are looked up in Xero and end confirmed,
     * failed (Xero does not have it), or needs_review when there is no way to tell.
     */
    async reconcile(olderThanMs = 2 * 60_000): Promise<Record<XeroWriteState, number>> {
      const counts: Record<XeroWriteState, number> = { pending: 0, sent: 0, confirmed: 0, failed: 0, unknown: 0, needs_review: 0 };
      const cutoff = new Date(Date.now() - olderThanMs);
      const rows = await db
        .select({ write: xeroWrites, tenantId: organizations.tenantId })
        .from(xeroWrites)
        .innerJoin(organizations, eq(organizations.id, xeroWrites.organizationId))
        .where(
          and(
            inArray(xeroWrites.state, ['pending', 'sent', 'unknown']),
            or(lt(xeroWrites.sentAt, cutoff), and(isNull(xeroWrites.sentAt), lt(xeroWrites.createdAt, cutoff))),
          ),
        );
      for (const { write, tenantId } of rows) {
        if (write.state === 'pending') {
          await update(write.id, { state: 'failed', error: 'Not sent: Ledgerlink stopped before sending it to Xero.', completedAt: new Date() });
          counts.failed += 1;
          continue;
        }
        const finder = finders.get(write.kind);
        if (!finder || write.userId === null) {
          await update(write.id, { state: 'needs_review', error: write.error ?? 'Outcome unknown: please check this in Xero.' });
          counts.needs_review += 1;
          continue;
        }
        try {
          const found = await finder({ userId: write.userId, tenantId, organizationId: write.organizationId }, write);
          if (found) {
            await update(write.id, { state: 'confirmed', xeroId: found.xeroId ?? null, response: found.response as object, completedAt: new Date(), error: null });
            counts.confirmed += 1;
          } else {
            await update(write.id, { state: 'failed', error: 'Xero does not have this change: it was not applied.', completedAt: new Date() });
            counts.failed += 1;
          }
        } catch (error) {
          deps.log?.warn({ err: error, writeId: write.id }, 'reconcile lookup failed; will try again');
        }
      }
      return counts;
    },

    async findById(id: number) {
      const [row] = await db.select().from(xeroWrites).where(eq(xeroWrites.id, id));
      return row ?? null;
    },
  };
}
export type WriteLedger = ReturnType<typeof createWriteLedger>;
