import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/app-error';
import { isCacheOnly } from '../call-context';
import { xeroSyncState } from '../../db/schema/index';
import type { SyncContext, SyncResult } from './context';

export const LEASE_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Each resource's sync state (`xero_sync_state`) and its lease per organisation and resource, so concurrent
 * requests (on this or another instance) never run the same sync twice: a latecomer waits for the running sync
 * and reads its result. `local` holds the syncs running on this instance.
 */
export function createSyncState(db: Db) {
  const local = new Map<string, Promise<SyncResult>>();

  async function readState(organizationId: number, resource: string) {
    const [row] = await db
      .select()
      .from(xeroSyncState)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
    return row ?? null;
  }

  /** Takes the lease when free; answers when the resource last finished syncing (and fully), or null when held. */
  async function acquireLease(organizationId: number, resource: string) {
    await db.insert(xeroSyncState).values({ organizationId, resource }).onConflictDoNothing();
    const [row] = await db
      .update(xeroSyncState)
      .set({ leaseUntil: new Date(Date.now() + LEASE_MS) })
      .where(
        and(
          eq(xeroSyncState.organizationId, organizationId),
          eq(xeroSyncState.resource, resource),
          or(isNull(xeroSyncState.leaseUntil), lt(xeroSyncState.leaseUntil, new Date())),
        ),
      )
      .returning({ lastSyncAt: xeroSyncState.lastSyncAt, lastFullSyncAt: xeroSyncState.lastFullSyncAt });
    return row ?? null;
  }

  async function releaseLease(
    organizationId: number,
    resource: string,
    values: Partial<typeof xeroSyncState.$inferInsert>,
  ) {
    await writeProgress(organizationId, resource, { ...values, leaseUntil: null });
  }

  /**
   * Runs `work` holding the lease; if someone else holds it, waits for them and reports 0 calls. A sync that
   * finished after this request arrived was running (or started) by then, so it serves this request too, as
   * a sync already running on this instance does: two instances asked at once read Xero once, even when the
   * first lets go of the lease before the second asks for it. A full resync is served only by a full one.
   */
  function withLease(
    ctx: SyncContext,
    resource: string,
    work: () => Promise<SyncResult>,
    options: { full?: boolean } = {},
  ): Promise<SyncResult> {
    const localKey = `${ctx.organizationId}:${resource}`;
    const running = local.get(localKey);
    if (running) return running.then((r) => ({ ...r, calls: 0 }));
    const requestedAt = new Date();
    const servedBy = (state: { lastSyncAt: Date | null; lastFullSyncAt: Date | null }) => {
      const finished = options.full ? state.lastFullSyncAt : state.lastSyncAt;
      return finished !== null && finished >= requestedAt;
    };
    const promise = (async () => {
      const deadline = Date.now() + LEASE_MS;
      for (;;) {
        const acquired = await acquireLease(ctx.organizationId, resource);
        if (acquired && servedBy(acquired)) {
          await releaseLease(ctx.organizationId, resource, {});
          return { calls: 0, fetched: 0, full: false };
        }
        if (acquired) break;
        if (Date.now() > deadline)
          throw new AppError(
            'XERO_UNAVAILABLE',
            'Xero data is still being refreshed. Please try again in a minute.',
          );
        await sleep(150);
        // Another request or instance holds the lease: once it lets go having finished, its result is in the
        // cache. One that let go without finishing (its read of Xero failed, or a full read was asked for and it
        // read only what changed) served nothing: the loop takes the lease and reads Xero itself, rather than
        // answer a refresh from a cache nobody refreshed.
        const state = await readState(ctx.organizationId, resource);
        if (state && state.leaseUntil === null && servedBy(state))
          return { calls: 0, fetched: 0, full: false };
      }
      try {
        return await work();
      } catch (error) {
        await releaseLease(ctx.organizationId, resource, {});
        throw error;
      }
    })().finally(() => {
      if (local.get(localKey) === promise) local.delete(localKey);
    });
    // A run allowed no Xero call (the Today page answering from the cache, call-context.ts) is not shared: a
    // person's read arriving meanwhile would be answered with its refusal ("Not read from Xero now"). It still
    // holds the lease, so that read waits for it to let go and then reads Xero itself.
    if (!isCacheOnly()) local.set(localKey, promise);
    return promise;
  }

  async function writeProgress(
    organizationId: number,
    resource: string,
    values: Partial<typeof xeroSyncState.$inferInsert>,
  ) {
    await db
      .update(xeroSyncState)
      .set(values)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
  }

  return { local, readState, acquireLease, releaseLease, withLease, writeProgress };
}
export type SyncState = ReturnType<typeof createSyncState>;
