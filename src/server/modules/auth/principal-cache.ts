import crypto from 'node:crypto';
import type pg from 'pg';
import type { Database } from '../../db/client';
import { hearLocalChanges } from '../../db/local-notices';
import { listenOn } from '../../lib/pg-listen';

/** The channel migration 0019's triggers announce changes on. */
export const PRINCIPAL_CHANNEL = 'ledgerlink_principals';

/** How often a PostgreSQL listener checks that its connection still delivers (a ping it sends itself). */
const PING_EVERY_MS = 10_000;

interface Logger {
  warn(obj: object, msg: string): void;
}

/** What an entry was read from, so a notice about any of it drops the entry. */
export interface PrincipalTags {
  sessionId: string;
  userId: number;
  /** The organisation the entry holds, if any. */
  organizationId: number | null;
}

export interface PrincipalCacheOptions {
  database: Database;
  log: Logger;
  /** Entries kept at most, least recently used dropped first. */
  maxEntries?: number;
  /** Milliseconds between the listener's self-pings (PostgreSQL). */
  pingEveryMs?: number;
}

/**
 * Who-asks answers (a session's principal for one organisation) kept in this instance's memory, so a small
 * request needs no database read (issue 32). Correctness never depends on it:
 *
 * - every change to a table a principal is read from is announced by a trigger (migration 0019) on a
 *   PostgreSQL channel every instance LISTENs on (on PGlite, the one instance listens in process), and each
 *   notice drops the entries it names;
 * - the cache is off (`get` misses, `set` keeps nothing) until the LISTEN is established and whenever its
 *   connection is lost or stops delivering (a ping it sends itself every 10 s must come back before the
 *   next), and it starts empty each time it comes back on, so nothing missed while deaf is ever served;
 * - a read that was in flight when a notice arrived is not kept (`generation`): it may predate the change.
 *
 * A change is refused on another instance as soon as its notice arrives there. PostgreSQL hands notices to the
 * listening connections after the writer commits, not before the writer's answer: under load a request can reach
 * another instance before it has read the notice, and be answered as before the change (stop 52's CI check: a
 * demoted administrator's next request on the other instance, a window of the notice's delivery). On PGlite
 * (one instance) it is told before the write returns, and on the writer's own instance before it answers: the
 * writer announces it in process once it commits (db/local-notices.ts `announceLocalChange`).
 */
export function createPrincipalCache<T>(options: PrincipalCacheOptions) {
  const { database, log } = options;
  const maxEntries = options.maxEntries ?? 5_000;
  const pingEveryMs = options.pingEveryMs ?? PING_EVERY_MS;
  const entries = new Map<string, { value: T; tags: PrincipalTags }>();
  let listening = false;
  let closed = false;
  let generation = 0;
  let stopListening: (() => Promise<void>) | undefined;
  let retry: NodeJS.Timeout | undefined;
  let pinger: NodeJS.Timeout | undefined;
  const instance = crypto.randomBytes(6).toString('hex');
  let pingSent = 0;
  let pingSeen = 0;
  let pingAtLastTick = 0;
  let waiters: { n: number; resolve: () => void }[] = [];
  let stopHearing: (() => void) | undefined;

  function wakeWaiters(all: boolean): void {
    const still: typeof waiters = [];
    for (const w of waiters) {
      if (all || w.n <= pingSeen) w.resolve();
      else still.push(w);
    }
    waiters = still;
  }

  function forgetAll(): void {
    generation++;
    entries.clear();
  }

  function onNotice(payload: string): void {
    if (payload.startsWith('ping:')) {
      const [, who, n] = payload.split(':');
      if (who === instance) {
        pingSeen = Math.max(pingSeen, Number(n));
        wakeWaiters(false);
      }
      return;
    }
    generation++;
    if (payload === '*') {
      entries.clear();
      return;
    }
    const kind = payload.slice(0, 2);
    const key = payload.slice(2);
    for (const [k, entry] of entries) {
      const { tags } = entry;
      if (
        (kind === 's:' && tags.sessionId === key) ||
        (kind === 'u:' && String(tags.userId) === key) ||
        (kind === 'o:' && String(tags.organizationId) === key)
      )
        entries.delete(k);
    }
  }

  /** Turns the cache off and empty; listens again shortly unless closed. */
  function deaf(reason: string, error?: unknown): void {
    listening = false;
    forgetAll();
    wakeWaiters(true);
    if (pinger) clearInterval(pinger);
    pinger = undefined;
    const stop = stopListening;
    stopListening = undefined;
    if (stop) void stop().catch(() => undefined);
    if (closed) return;
    log.warn({ err: error }, `principal cache off (${reason}); listening again`);
    if (retry) clearTimeout(retry);
    retry = setTimeout(() => void listen(), 1000);
  }

  async function listenPglite(): Promise<void> {
    if (!database.pglite) return;
    const unlisten = await database.pglite.listen(PRINCIPAL_CHANNEL, onNotice);
    stopListening = () => unlisten();
    forgetAll();
    listening = true;
  }

  async function listenPostgres(pool: pg.Pool): Promise<void> {
    const listener = await listenOn(pool, PRINCIPAL_CHANNEL, {
      onPayload: onNotice,
      onLost: (error) => {
        if (stopListening === stop) deaf('listening connection lost', error);
      },
    });
    const stop = async () => listener.stop();
    if (closed) {
      listener.stop();
      return;
    }
    stopListening = stop;
    forgetAll();
    listening = true;
    pingSent = pingSeen = pingAtLastTick = 0;
    pinger = setInterval(() => {
      // The previous tick's ping never came back: notices may be lost too.
      if (pingSeen < pingAtLastTick) {
        deaf('listening connection stopped delivering');
        return;
      }
      pingAtLastTick = ping();
    }, pingEveryMs);
    pinger.unref();
  }

  /** Sends this instance a ping through the database; returns its number. */
  function ping(): number {
    const n = ++pingSent;
    database.pool
      ?.query('select pg_notify($1, $2)', [PRINCIPAL_CHANNEL, `ping:${instance}:${n}`])
      .catch((error: unknown) => deaf('cannot reach the database', error));
    return n;
  }

  async function listen(): Promise<void> {
    if (closed || listening) return;
    try {
      if (database.kind === 'postgres' && database.pool) await listenPostgres(database.pool);
      else await listenPglite();
    } catch (error) {
      deaf('cannot LISTEN', error);
    }
  }

  return {
    /**
     * Starts listening; the cache stays off until the LISTEN is in place. This instance's own writers are
     * heard at once (db/local-notices.ts): a change is forgotten here as soon as it commits, so the writer's
     * answer never waits for its notice to come back (issue 32).
     */
    start(): Promise<void> {
      stopHearing ??= hearLocalChanges(database.db, onNotice);
      return listen();
    },

    /** Whether entries are kept and served (the LISTEN is in place). */
    get on(): boolean {
      return listening;
    },

    /** Taken before a read from the database; `set` keeps the read only if no notice came meanwhile. */
    get generation(): number {
      return generation;
    },

    get(key: string): T | undefined {
      if (!listening) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      // Least recently used last: move it to the end.
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },

    set(key: string, value: T, tags: PrincipalTags, readAt: number): void {
      if (!listening || readAt !== generation) return;
      entries.delete(key);
      entries.set(key, { value, tags });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },

    delete(key: string): void {
      entries.delete(key);
    },

    /**
     * Resolves once every notice committed before the call has reached this instance (PostgreSQL delivers a
     * listener's notices in commit order, so its own ping coming back is the mark), or the cache went off.
     * On PGlite notices arrive before the write returns: resolves at once. Only tests that write to the
     * database directly and inject the next request in the same tick need it (`settleNoticesFirst`).
     */
    settled(): Promise<void> {
      if (!listening || !database.pool || database.kind !== 'postgres') return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push({ n: ping(), resolve });
      });
    },

    /** Drops what a notice names (`s:<session>`, `u:<user>`, `o:<organisation>`, `*`), as its arrival would. */
    forget: onNotice,

    get size(): number {
      return entries.size;
    },

    async close(): Promise<void> {
      closed = true;
      stopHearing?.();
      listening = false;
      if (retry) clearTimeout(retry);
      if (pinger) clearInterval(pinger);
      entries.clear();
      wakeWaiters(true);
      const stop = stopListening;
      stopListening = undefined;
      if (stop) await stop().catch(() => undefined);
    },
  };
}
export type PrincipalCache<T> = ReturnType<typeof createPrincipalCache<T>>;
