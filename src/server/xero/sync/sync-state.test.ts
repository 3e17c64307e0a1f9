import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import type { SyncContext, SyncResult } from './context';
import { createSyncState, type SyncState } from './sync-state';

/**
 * Two instances refreshing one list at once read Xero once: the second waits behind the first's lease and is
 * served by its read. When the first's read fails, the second must not answer from a cache nobody refreshed.
 */
describe("a sync that waits behind another's lease", () => {
  let database: TestDatabase;
  let ctx: SyncContext;
  let first: SyncState;
  let second: SyncState;

  beforeAll(async () => {
    database = await createTestDatabase();
    const [org] = await database.db
      .insert(organizations)
      .values({ tenantId: 'lease-test' })
      .returning({ id: organizations.id });
    ctx = { organizationId: org!.id, tenantId: 'lease-test', userId: 1 };
    // Two instances: each its own state (its own map of running syncs), one database.
    first = createSyncState(database.db);
    second = createSyncState(database.db);
  });
  afterAll(() => database?.destroy());

  /** A read of Xero that ends when told to, counting itself, finishing as invoice-read does. */
  function controlledRead(state: SyncState, resource: string, reads: string[], who: string, full = false) {
    let finish: (outcome: 'ok' | 'fail') => void = () => {};
    const outcome = new Promise<'ok' | 'fail'>((resolve) => (finish = resolve));
    const work = async (): Promise<SyncResult> => {
      reads.push(who);
      if ((await outcome) === 'fail') throw new Error('Xero answered 503');
      const now = new Date();
      await state.releaseLease(ctx.organizationId, resource, {
        lastSyncAt: now,
        ...(full ? { lastFullSyncAt: now } : {}),
      });
      return { calls: 1, fetched: 0, full };
    };
    return { work, finish };
  }
  /**
   * Lets the waiter find the lease held and start waiting (its first try is a query or two; the wait only makes
   * the case certain: were the waiter slower, it would take the free lease and the case would not arise).
   */
  const waiting = () => new Promise((r) => setTimeout(r, 400));
  /** Whether the waiter starts its own read of Xero, or answers without one. */
  async function readsOrAnswers(waiter: Promise<SyncResult>, reads: string[]) {
    const answered = waiter.then((r) => `answered ${JSON.stringify(r)} without reading`);
    const reading = (async () => {
      while (!reads.includes('second')) await new Promise((r) => setTimeout(r, 10));
      return 'reads Xero';
    })();
    return Promise.race([answered, reading]);
  }
  const untilHeld = async (resource: string) => {
    for (;;) {
      const row = await first.readState(ctx.organizationId, resource);
      if (row?.leaseUntil) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it("is served by the other's finished read: Xero is read once", async () => {
    const reads: string[] = [];
    const a = controlledRead(first, 'invoices:a', reads, 'first');
    const b = controlledRead(second, 'invoices:a', reads, 'second');
    const one = first.withLease(ctx, 'invoices:a', a.work);
    await untilHeld('invoices:a');
    const two = second.withLease(ctx, 'invoices:a', b.work);
    await waiting();
    a.finish('ok');
    await one;
    expect((await two).calls).toBe(0);
    expect(reads).toEqual(['first']);
  });

  it("reads Xero itself when the other's read failed, instead of answering from the cache", async () => {
    const reads: string[] = [];
    const a = controlledRead(first, 'invoices:b', reads, 'first');
    const b = controlledRead(second, 'invoices:b', reads, 'second');
    const one = first.withLease(ctx, 'invoices:b', a.work);
    await untilHeld('invoices:b');
    const two = second.withLease(ctx, 'invoices:b', b.work);
    await waiting();
    a.finish('fail');
    await expect(one).rejects.toThrow('503');
    // The second now holds the lease and reads; its read finishing is what answers it.
    expect(await readsOrAnswers(two, reads)).toBe('reads Xero');
    b.finish('ok');
    expect((await two).calls).toBe(1);
    expect(reads).toEqual(['first', 'second']);
  });

  it('a full read asked for while an incremental one runs is not served by it', async () => {
    const reads: string[] = [];
    const a = controlledRead(first, 'invoices:c', reads, 'first');
    const b = controlledRead(second, 'invoices:c', reads, 'second', true);
    const one = first.withLease(ctx, 'invoices:c', a.work);
    await untilHeld('invoices:c');
    const two = second.withLease(ctx, 'invoices:c', b.work, { full: true });
    await waiting();
    a.finish('ok');
    await one;
    expect(await readsOrAnswers(two, reads)).toBe('reads Xero');
    b.finish('ok');
    expect(await two).toEqual({ calls: 1, fetched: 0, full: true });
  });
});
