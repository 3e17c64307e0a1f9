import { and, desc, eq, inArray, isNotNull, lt, ne, sql } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import { OPEN_WRITE_STATES, type WriteKind, type XeroWriteState } from './rules';
import type { Tx, WriteLedgerDeps, WriteRow } from './types';

/** What the features ask of the ledger's rows: writes by key, by Xero id, by target, and its housekeeping. */
export function createLedgerQueries({ db }: WriteLedgerDeps) {
  return {
    /** The writes recorded under these keys, by key. */
    async findByKeys(organizationId: number, keys: readonly string[]): Promise<Map<string, WriteRow>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .select()
        .from(xeroWrites)
        .where(
          and(eq(xeroWrites.organizationId, organizationId), inArray(xeroWrites.idempotencyKey, [...keys])),
        );
      return new Map(rows.map((r) => [r.idempotencyKey, r]));
    },

    /** The confirmed write of this kind that created (or acted on) this Xero object. */
    async findConfirmedByXeroId(
      organizationId: number,
      kind: WriteKind,
      xeroId: string,
    ): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            eq(xeroWrites.state, 'confirmed'),
            sql`lower(${xeroWrites.xeroId}) = ${xeroId.toLowerCase()}`,
          ),
        );
      return row ?? null;
    },

    /**
     * Xero ids other writes of this kind already account for (confirmed, or held for review), lower-cased: a
     * finder must never claim one Xero object for two writes. `targetId` narrows it to one target.
     */
    async claimedXeroIds(
      organizationId: number,
      kind: WriteKind,
      exceptWriteId: number,
      targetId?: string,
    ): Promise<Set<string>> {
      const rows = await db
        .select({ xeroId: xeroWrites.xeroId })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            inArray(xeroWrites.state, ['confirmed', 'needs_review']),
            isNotNull(xeroWrites.xeroId),
            ne(xeroWrites.id, exceptWriteId),
            ...(targetId ? [eq(xeroWrites.targetId, targetId)] : []),
          ),
        );
      return new Set(rows.map((r) => (r.xeroId as string).toLowerCase()));
    },

    /**
     * Targets among `targetIds` with a write of this kind in one of `states` (open ones unless told) under a
     * key other than `ownKeys`.
     */
    async findTargetsWritten(
      organizationId: number,
      kind: WriteKind,
      targetIds: readonly string[],
      ownKeys: readonly string[],
      states: readonly XeroWriteState[] = OPEN_WRITE_STATES,
    ): Promise<Set<string>> {
      if (targetIds.length === 0) return new Set();
      const rows = await db
        .select({ targetId: xeroWrites.targetId, key: xeroWrites.idempotencyKey })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            inArray(xeroWrites.targetId, [...targetIds]),
            inArray(xeroWrites.state, [...states]),
          ),
        );
      const own = new Set(ownKeys);
      return new Set(rows.filter((r) => r.targetId && !own.has(r.key)).map((r) => r.targetId as string));
    },

    /**
     * In `tx`: the confirmed writes of these kinds on a target (any case of its id), but `exceptId` (issue 44:
     * what Ledgerlink's own settled writes account for, to tell whether an older version applied a local write).
     */
    async findConfirmedOnTarget(
      tx: Tx,
      scope: { organizationId: number; targetId: string; kinds: readonly WriteKind[]; exceptId: number },
    ): Promise<WriteRow[]> {
      return tx
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, scope.organizationId),
            eq(xeroWrites.state, 'confirmed'),
            inArray(xeroWrites.kind, [...scope.kinds]),
            ne(xeroWrites.id, scope.exceptId),
            sql`lower(${xeroWrites.targetId}) = ${scope.targetId.toLowerCase()}`,
          ),
        );
    },

    /** The newest write of this kind on a target, whatever its state (null when there is none). */
    async findLatestOnTarget(scope: {
      organizationId: number;
      kind: WriteKind;
      targetId: string;
    }): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, scope.organizationId),
            eq(xeroWrites.kind, scope.kind),
            eq(xeroWrites.targetId, scope.targetId),
          ),
        )
        .orderBy(desc(xeroWrites.id))
        .limit(1);
      return row ?? null;
    },

    /**
     * Forgets the confirmed writes of these kinds settled before the cut-off (housekeeping of an
     * organisation's ledger); open, failed and held writes are always kept. Returns how many it forgot.
     */
    async forgetConfirmedBefore(
      organizationId: number,
      kinds: readonly WriteKind[],
      completedBefore: Date,
    ): Promise<number> {
      if (kinds.length === 0) return 0;
      const rows = await db
        .delete(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.state, 'confirmed'),
            inArray(xeroWrites.kind, [...kinds]),
            lt(xeroWrites.completedAt, completedBefore),
          ),
        )
        .returning({ id: xeroWrites.id });
      return rows.length;
    },
  };
}
