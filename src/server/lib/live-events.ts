import { EventEmitter } from 'node:events';
import { and, asc, eq, gt, inArray, lt, max } from 'drizzle-orm';
import type { Database } from '../db/client';
import { liveEvents } from '../db/schema/index';
import { listenOn, type PgListener } from './pg-listen';

/** What an open screen is told: something of this organisation changed in Xero. */
export interface LiveEvent {
  id: number;
  organizationId: number;
  /** 'invoices' or 'contacts'. */
  kind: string;
  payload: unknown;
}

const CHANNEL = 'ledgerlink_live_events';
/** NOTIFY's payload limit is 8000 bytes; a larger event is announced by id and read from the table. */
const NOTIFY_MAX_BYTES = 7000;
const KEEP_MS = 24 * 3_600_000;

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * Live events, numbered in the database (`live_events`) so a browser that reconnects asks for what it missed.
 * With PostgreSQL every instance LISTENs on one channel and the publisher NOTIFYs it, so a change processed on
 * one instance reaches the screens open on all of them (docs/decisions/018-webhooks.md). With PGlite there is
 * one instance (DATA_DIR lock) and events are passed on in process.
 */
export function createLiveEvents(deps: { database: Database; log: Logger }) {
  const { database, log } = deps;
  const { db } = database;
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const pool = database.kind === 'postgres' ? database.pool : undefined;
  let listener: PgListener | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  async function readById(id: number): Promise<LiveEvent | null> {
    const [row] = await db.select().from(liveEvents).where(eq(liveEvents.id, id));
    return row
      ? { id: row.id, organizationId: row.organizationId, kind: row.kind, payload: row.payload }
      : null;
  }

  async function onNotification(payload: string) {
    try {
      const parsed = JSON.parse(payload) as Partial<LiveEvent>;
      const event =
        'payload' in parsed
          ? (parsed as LiveEvent)
          : typeof parsed.id === 'number'
            ? await readById(parsed.id)
            : null;
      if (event) emitter.emit('event', event);
    } catch (error) {
      log.warn({ err: error }, 'live event notification not understood');
    }
  }

  async function listen(): Promise<void> {
    if (!pool || closed) return;
    try {
      const started = await listenOn(pool, CHANNEL, {
        onPayload: (payload) => void onNotification(payload),
        onLost: () => {
          // The connection was lost: listen again on a fresh one.
          if (listener === started) listener = undefined;
          if (!closed) retry = setTimeout(() => void listen(), 1000);
        },
      });
      if (closed) started.stop();
      else listener = started;
    } catch (error) {
      log.warn({ err: error }, 'cannot LISTEN for live events; retrying');
      if (!closed) retry = setTimeout(() => void listen(), 2000);
    }
  }

  return {
    start: listen,

    /** Records the event and tells every instance's subscribers. */
    async publish(organizationId: number, kind: string, payload: unknown): Promise<LiveEvent> {
      const [row] = await db
        .insert(liveEvents)
        .values({ organizationId, kind, payload })
        .returning({ id: liveEvents.id });
      const event: LiveEvent = { id: row!.id, organizationId, kind, payload };
      if (pool) {
        const text = JSON.stringify(event);
        await pool.query('select pg_notify($1, $2)', [
          CHANNEL,
          Buffer.byteLength(text) <= NOTIFY_MAX_BYTES ? text : JSON.stringify({ id: event.id }),
        ]);
      } else {
        emitter.emit('event', event);
      }
      return event;
    },

    /** Calls `fn` with every event published from now on, on any instance; returns the unsubscribe. */
    subscribe(fn: (event: LiveEvent) => void): () => void {
      emitter.on('event', fn);
      return () => emitter.off('event', fn);
    },

    /** Events of these organisations after `afterId` (a reconnect's Last-Event-ID), oldest first. */
    async readSince(organizationIds: readonly number[], afterId: number, limit = 500): Promise<LiveEvent[]> {
      if (organizationIds.length === 0) return [];
      const rows = await db
        .select()
        .from(liveEvents)
        .where(and(inArray(liveEvents.organizationId, [...organizationIds]), gt(liveEvents.id, afterId)))
        .orderBy(asc(liveEvents.id))
        .limit(limit);
      return rows.map((r) => ({
        id: r.id,
        organizationId: r.organizationId,
        kind: r.kind,
        payload: r.payload,
      }));
    },

    /** The newest event id (a fresh stream starts after it). */
    async lastId(): Promise<number> {
      const [row] = await db.select({ id: max(liveEvents.id) }).from(liveEvents);
      return Number(row?.id ?? 0);
    },

    async purgeOld(): Promise<void> {
      await db.delete(liveEvents).where(lt(liveEvents.createdAt, new Date(Date.now() - KEEP_MS)));
    },

    async close(): Promise<void> {
      closed = true;
      if (retry) clearTimeout(retry);
      emitter.removeAllListeners();
      listener?.stop();
      listener = undefined;
    },
  };
}
export type LiveEvents = ReturnType<typeof createLiveEvents>;
