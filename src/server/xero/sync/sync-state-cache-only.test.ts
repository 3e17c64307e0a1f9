import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import { readCacheOnly, refuseIfCacheOnly } from '../call-context';
import type { SyncContext, SyncResult } from './context';
import { createSyncState, type SyncState } from './sync-state';

/**
 * The Today page answers from the cache inside `readCacheOnly` (issue 47), running each feature's own code, whose
 * syncs may start a read Xero then refuses before anything leaves (CIS Returns' credit-notes check, issue 42). A
 * person's read of the same resource arriving meanwhile must read Xero itself, not be handed that refusal.
 */
describe('a sync started where no Xero call may go', () => {
  let database: TestDatabase;
  let ctx: SyncContext;
  let state: SyncState;
  const RESOURCE = 'credit-notes:supplier';

  beforeAll(async () => {
    database = await createTestDatabase();
    const [org] = await database.db
      .insert(organizations)
      .values({ tenantId: 'cache-only-test' })
      .returning({ id: organizations.id });
    ctx = { organizationId: org!.id, tenantId: 'cache-only-test', userId: 1 };
    state = createSyncState(database.db);
  });
  afterAll(() => database?.destroy());

  it("is not joined by a person's read: that read waits for the lease and reads Xero itself", async () => {
    let letGo: () => void = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    // From the cache: the sync takes the lease, and its call to Xero is refused (as xero-http/http.ts does).
    const fromCache = readCacheOnly(() =>
      state.withLease(ctx, RESOURCE, async () => {
        await gate;
        if (refuseIfCacheOnly()) throw new AppError('XERO_UNAVAILABLE', 'Not read from Xero now');
        return { calls: 1, fetched: 0, full: false };
      }),
    );
    for (let held = false; !held;) {
      held = Boolean((await state.readState(ctx.organizationId, RESOURCE))?.leaseUntil);
      if (!held) await new Promise((r) => setTimeout(r, 10));
    }
    // A person opens CIS Returns meanwhile.
    const read: Promise<SyncResult> = state.withLease(ctx, RESOURCE, async () => {
      await state.releaseLease(ctx.organizationId, RESOURCE, { lastSyncAt: new Date() });
      return { calls: 1, fetched: 3, full: false };
    });
    letGo();
    expect(await fromCache).toBeNull();
    expect(await read).toEqual({ calls: 1, fetched: 3, full: false });
  });
});
