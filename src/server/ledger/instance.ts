import crypto from 'node:crypto';
import { desc, eq, lt, sql } from 'drizzle-orm';
import { ledgerInstances, ledgerRestores } from '../db/schema/index';
import { HEARTBEAT_INTERVAL_MS, isSenderAlive, type SenderFacts } from './rules';
import type { WriteLedgerDeps, WriteRow } from './types';

/**
 * This server instance in the ledger: its id, its heartbeat in ledger_instances (so a dead instance's writes are
 * settled in seconds), whether the instance holding a write is alive, and when the database was last restored.
 */
export function createLedgerInstance(deps: WriteLedgerDeps) {
  const { db } = deps;
  const instanceId = deps.instanceId ?? crypto.randomUUID();
  let heartbeat: NodeJS.Timeout | null = null;
  /** When the database was last restored (read at start: every instance is stopped for a restore). */
  let lastRestoreMs: number | null | undefined;

  async function findLastRestoreMs(): Promise<number | null> {
    if (lastRestoreMs !== undefined) return lastRestoreMs;
    const [row] = await db
      .select({ at: ledgerRestores.restoredAt })
      .from(ledgerRestores)
      .orderBy(desc(ledgerRestores.restoredAt))
      .limit(1);
    const at = row?.at.getTime() ?? null;
    if (heartbeat) lastRestoreMs = at;
    return at;
  }

  /** This instance is alive: its row in ledger_instances, stamped by the database's clock. */
  async function beat() {
    await db
      .insert(ledgerInstances)
      .values({ id: instanceId })
      .onConflictDoUpdate({ target: ledgerInstances.id, set: { beatAt: sql`now()` } });
  }

  /**
   * Whether the instance holding an open write is alive. Ages are read on the database's clock, the one
   * every instance shares. A write recorded before heartbeats existed has no instance: only the in-flight
   * limit applies to it.
   */
  async function senderOf(row: WriteRow): Promise<SenderFacts> {
    if (!row.instanceId) return { alive: true, beatAgeMs: null };
    if (row.instanceId === instanceId && heartbeat) return { alive: true, beatAgeMs: 0 };
    const [found] = await db
      .select({
        ageMs: sql<number>`(extract(epoch from (now() - ${ledgerInstances.beatAt})) * 1000)::float8`,
      })
      .from(ledgerInstances)
      .where(eq(ledgerInstances.id, row.instanceId));
    if (row.instanceId === instanceId) return { alive: true, beatAgeMs: found ? Number(found.ageMs) : 0 };
    if (!found) return { alive: false, beatAgeMs: null };
    const beatAgeMs = Number(found.ageMs);
    return { alive: isSenderAlive(beatAgeMs), beatAgeMs };
  }

  return {
    senderOf,
    findLastRestoreMs,
    /** This instance's id in ledger_instances. */
    instanceId,

    /**
     * Starts this instance's heartbeat (every HEARTBEAT_INTERVAL_MS): while it beats, the writes it sent are
     * in flight; when it stops beating, any instance settles them at once.
     */
    async start() {
      if (heartbeat) return;
      await beat();
      lastRestoreMs = undefined;
      heartbeat = setInterval(() => {
        beat().catch((error: unknown) => deps.log?.warn({ err: error }, 'ledger heartbeat failed'));
      }, HEARTBEAT_INTERVAL_MS);
      heartbeat.unref();
    },

    /** Stops the heartbeat and removes this instance's row: a clean stop (requests already drained). */
    async stop() {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      await db.delete(ledgerInstances).where(eq(ledgerInstances.id, instanceId));
      // Instances gone for a day (killed, never stopped cleanly) are only history.
      await db.delete(ledgerInstances).where(lt(ledgerInstances.beatAt, sql`now() - interval '1 day'`));
    },

    /** Records a restore of the database (db:restore does, after restoring): see RESTORE_LOOKUP_MS. */
    async recordRestore(backupFile: string | null) {
      await db.insert(ledgerRestores).values({ backupFile });
      lastRestoreMs = undefined;
    },
  };
}
export type LedgerInstance = ReturnType<typeof createLedgerInstance>;
