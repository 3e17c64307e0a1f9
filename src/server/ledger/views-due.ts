import { and, eq, inArray } from 'drizzle-orm';
import { organizations, xeroWrites } from '../db/schema/index';
import type { WriteLedgerDeps, WriteRow } from './types';

/**
 * Writes settled without the request that made them (issue 44: a look-up, the reconciler, a step it finished,
 * an administrator's decision), flagged `views_due` in the settling transaction: the cache has not taken what
 * they changed. The catch-up (src/server/xero/sync/settled-write-catch-up.ts) reads those changes into the cache, tells
 * the open screens, and clears the flag. A crash in between leaves the flag for the next pass.
 */
export function createLedgerViews({ db }: WriteLedgerDeps) {
  return {
    /** Up to `limit` writes whose views are due, oldest first, with their organisation's Xero tenant. */
    async listViewsDue(limit = 200): Promise<Array<{ write: WriteRow; tenantId: string }>> {
      return db
        .select({ write: xeroWrites, tenantId: organizations.tenantId })
        .from(xeroWrites)
        .innerJoin(organizations, eq(organizations.id, xeroWrites.organizationId))
        .where(eq(xeroWrites.viewsDue, true))
        .orderBy(xeroWrites.id)
        .limit(limit);
    },

    /** The cache has taken these writes (or there was nothing to take). */
    async clearViewsDue(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(xeroWrites)
        .set({ viewsDue: false })
        .where(and(inArray(xeroWrites.id, [...ids]), eq(xeroWrites.viewsDue, true)));
    },
  };
}
