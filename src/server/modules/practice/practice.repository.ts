import { and, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroSyncState } from '../../db/schema/index';

/** What has been read of Xero for one organisation: each resource's last read, and a read of a whole view left unfinished. */
export type ReadState = Map<string, { lastSyncAt: Date | null; initialReadAt: Date | null }>;

/** The Today page's own queries (issue 47); the figures themselves come from each feature's code. */
export function createPracticeRepository(db: Db) {
  return {
    /** What has been read of Xero for these organisations and resources (xero_sync_state), by organisation. */
    async findReadStates(
      organizationIds: readonly number[],
      resources: readonly string[],
    ): Promise<Map<number, ReadState>> {
      const byOrg = new Map<number, ReadState>();
      if (organizationIds.length === 0 || resources.length === 0) return byOrg;
      const rows = await db
        .select({
          organizationId: xeroSyncState.organizationId,
          resource: xeroSyncState.resource,
          lastSyncAt: xeroSyncState.lastSyncAt,
          initialReadAt: xeroSyncState.initialReadAt,
        })
        .from(xeroSyncState)
        .where(
          and(
            inArray(xeroSyncState.organizationId, [...organizationIds]),
            inArray(xeroSyncState.resource, [...resources]),
          ),
        );
      for (const row of rows) {
        let state = byOrg.get(row.organizationId);
        if (!state) {
          state = new Map();
          byOrg.set(row.organizationId, state);
        }
        state.set(row.resource, { lastSyncAt: row.lastSyncAt, initialReadAt: row.initialReadAt });
      }
      return byOrg;
    },
  };
}
export type PracticeRepository = ReturnType<typeof createPracticeRepository>;
