import crypto from 'node:crypto';
import type pg from 'pg';
import type { Database } from '../../db/client';
import { hearLocalChanges } from '../../db/local-notices';
import { listenOn } from '../../lib/pg-listen';

/** The channel migration 0019's triggers announce changes on. */
export const PRINCIPAL_CHANNEL = 'ledgerlink_principals';

/**
 * How often a PostgreSQL listener sends itself a ping through the database. A ping that comes back says every
 * notice committed before it has been heard here, so it renews the lease below.
 */
const PING_EVERY_MS = 1_000;

/**
 * How long after sending a ping that came back an instance may answer from memory (PostgreSQL). Past it, `get`
 * misses (the database is read) until a newer ping is back. The lease bounds how long any instance can serve
 * what a change took away: a writer whose peer does not say it heard waits this long at most (`peersHeard`).
 */
export const PRINCIPAL_LEASE_MS = 3_000;

/** No ping back for this long: the listening connection has stopped delivering; listen again. */
const DEAF_AFTER_MS = 10_000;

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
  /** Milliseconds a ping that came back keeps the cache on (PostgreSQL); `PRINCIPAL_LEASE_MS` by default. */
  leaseMs?: number;
}

/**
 * Who-asks answers (a session's principal for one organisation) kept in this instance's memory, so a small
 * request needs no database read (issue 32). Correctness never depends on it:
 *
 * - every change to a table a principal is read from is announced by a trigger (migration 0019) on a
 *   PostgreSQL channel every instance LISTENs on (on PGlite, the one instance listens in process), and each
 *   notice drops the entries it names;
 * - the cache is off (`get` misses, `set` keeps nothing) until the LISTEN is established and whenever its
 *   connection is lost or stops delivering (no ping of its own back for 10 s), and it starts empty each time
 *   it comes back on, so nothing missed while deaf is ever served;
 * - a read that was in flight when a notice arrived is not kept (`generation`): it may predate the change.
 *
 * A change is refused on every instance before the writer's answer leaves (decision 032). The writer's own
 * instance is told in process as the write commits (db/local-notices.ts `announceLocalChange`); on PGlite (one
 * instance) that is all. On PostgreSQL another instance hears of it when its notice arrives, which is after the
 * commit and can be after the writer's answer (stop 52's CI check: a demoted administrator's next request on the
 * other instance was served as before). So, on PostgreSQL:
 *
 * - every instance pings itself through the database every second, and every instance hears every ping: each knows
 *   its peers;
 * - an instance answers from memory only for `PRINCIPAL_LEASE_MS` after sending a ping that came back (notices
 *   arrive in commit order, so by then it had heard everything committed before that ping): one that falls
 *   behind, stalls or is cut off stops serving from memory within the lease;
 * - a request that changed who may do what (`announceLocalChange` during it) holds its answer until each peer
 *   says it heard (`sync:` out, `heard:` back, after the change's own notice), or until that peer's lease has
 *   certainly run out (`peersHeard`): a millisecond or two on a healthy cluster, the lease at most.
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
  const leaseMs = options.leaseMs ?? PRINCIPAL_LEASE_MS;
  const postgres = database.kind === 'postgres' && database.pool !== undefined;
  let pingSent = 0;
  let pingSeen = 0;
  /** When each ping still out was sent (performance.now()). */
  const pingSentAt = new Map<number, number>();
  /** When the newest ping that came back was sent: the cache serves until this plus the lease (PostgreSQL). */
  let leaseFrom = -Infinity;
  /** When this instance started listening: nothing came back before, so it is deaf past DEAF_AFTER_MS of it. */
  let listeningSince = 0;
  let waiters: { n: number; resolve: () => void }[] = [];
  let stopHearing: (() => void) | undefined;
  /** Changes to who may do what this instance's writers announced (db/local-notices.ts). */
  let localChanges = 0;
  /** Peers: other instances listening on the channel, and when their newest ping was heard here. */
  const peers = new Map<string, number>();
  let syncSent = 0;
  let syncSeen = 0;
  let syncWaiters: { n: number; resolve: () => void }[] = [];
  /** The newest of this instance's syncs each peer said it heard. */
  const heardBy = new Map<string, number>();
  let heardWaiters: Array<() => void> = [];

  function wakeWaiters(all: boolean): void {
    const still: typeof waiters = [];
    for (const w of waiters) {
      if (all || w.n <= pingSeen) w.resolve();
      else still.push(w);
    }
    waiters = still;
    const stillSync: typeof syncWaiters = [];
    for (const w of syncWaiters) {
      if (all || w.n <= syncSeen) w.resolve();
      else stillSync.push(w);
    }
    syncWaiters = stillSync;
    if (all) wakeHeardWaiters();
  }

  function wakeHeardWaiters(): void {
    const woken = heardWaiters;
    heardWaiters = [];
    for (const wake of woken) wake();
  }

  /** Sends `payload` on the channel through the pool; a failure turns the cache off (it may miss notices too). */
  function notify(payload: string): void {
    database.pool
      ?.query('select pg_notify($1, $2)', [PRINCIPAL_CHANNEL, payload])
      .catch((error: unknown) => deaf('cannot reach the database', error));
  }

  /** The protocol's own notices (pings, syncs and their answers); false for a change notice. */
  function onProtocolNotice(payload: string): boolean {
    const [kind, who, n, peer] = payload.split(':');
    if (kind === 'ping') {
      if (who === instance) {
        const number = Number(n);
        const sentAt = pingSentAt.get(number);
        if (sentAt !== undefined) leaseFrom = Math.max(leaseFrom, sentAt);
        for (const k of pingSentAt.keys()) if (k <= number) pingSentAt.delete(k);
        pingSeen = Math.max(pingSeen, number);
        wakeWaiters(false);
      } else if (who) peers.set(who, performance.now());
      return true;
    }
    if (kind === 'sync') {
      // Every notice committed before this sync has been handled here (commit order): say so.
      if (who === instance) {
        syncSeen = Math.max(syncSeen, Number(n));
        wakeWaiters(false);
      } else if (listening) notify(`heard:${who}:${n}:${instance}`);
      return true;
    }
    if (kind === 'heard') {
      if (who === instance && peer) {
        heardBy.set(peer, Math.max(heardBy.get(peer) ?? 0, Number(n)));
        wakeHeardWaiters();
      }
      return true;
    }
    return false;
  }

  function forgetAll(): void {
    generation++;
    entries.clear();
  }

  function onNotice(payload: string): void {
    if (onProtocolNotice(payload)) return;
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
    leaseFrom = -Infinity;
    pingSentAt.clear();
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
    leaseFrom = -Infinity;
    listeningSince = performance.now();
    // Serving starts with the first ping back: everything committed before it has been heard.
    ping();
    pinger = setInterval(() => {
      // No ping back for a while: notices may be lost too.
      if (performance.now() - Math.max(leaseFrom, listeningSince) > DEAF_AFTER_MS) {
        deaf('listening connection stopped delivering');
        return;
      }
      for (const [peer, seenAt] of peers)
        if (performance.now() - seenAt > 2 * leaseMs) {
          peers.delete(peer);
          heardBy.delete(peer);
        }
      ping();
    }, pingEveryMs);
    pinger.unref();
  }

  /** Sends this instance a ping through the database; returns its number. */
  function ping(): number {
    const n = ++pingSent;
    pingSentAt.set(n, performance.now());
    notify(`ping:${instance}:${n}`);
    return n;
  }

  /** Whether a kept answer may be served now: listening, and on PostgreSQL within the lease of a ping back. */
  function serving(): boolean {
    return listening && (!postgres || performance.now() - leaseFrom <= leaseMs);
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
  }

  /**
   * Resolves once every other instance has heard every change committed before the call, or can no longer be
   * serving from before it (its lease ran out). PostgreSQL only; at once on PGlite.
   */
  async function peersHeard(): Promise<void> {
    if (!postgres || closed) return;
    // A tenth and 50 ms more than the lease: the instances' clocks measure the same second a little differently.
    const leaseOutMs = leaseMs * 1.1 + 50;
    const calledAt = performance.now();
    if (!listening) {
      // Deaf here, so no answers can be heard: wait until every lease taken before this call has run out.
      await sleep(leaseOutMs);
      return;
    }
    const n = ++syncSent;
    const back = new Promise<void>((resolve) => syncWaiters.push({ n, resolve }));
    notify(`sync:${instance}:${n}`);
    // Our own sync back: every ping committed before it has been heard here, so every peer that may be serving
    // is in `peers`.
    await Promise.race([back, sleep(leaseOutMs)]);
    if (syncSeen < n) {
      await sleep(Math.max(0, leaseOutMs - (performance.now() - calledAt)));
      return;
    }
    // A peer's lease was taken at most at its newest ping we heard; pings after our sync come back to it only
    // after the change's notice.
    const waiting = new Map<string, number>();
    for (const [peer, seenAt] of peers) {
      const until = seenAt + leaseOutMs;
      if (until > performance.now()) waiting.set(peer, until);
      else peers.delete(peer);
    }
    while (waiting.size > 0 && !closed) {
      for (const [peer, until] of waiting)
        if ((heardBy.get(peer) ?? 0) >= n || until <= performance.now()) waiting.delete(peer);
      if (waiting.size === 0) break;
      const soonest = Math.min(...waiting.values()) - performance.now();
      let wake: () => void = () => undefined;
      const heard = new Promise<void>((resolve) => heardWaiters.push((wake = resolve)));
      await Promise.race([heard, sleep(Math.max(1, soonest))]);
      // Woken by the timer: its resolver is not left behind for the next answer.
      heardWaiters = heardWaiters.filter((w) => w !== wake);
    }
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
      stopHearing ??= hearLocalChanges(database.db, (key) => {
        localChanges++;
        onNotice(key);
      });
      return listen();
    },

    /** Whether entries are kept and served (the LISTEN is in place, and on PostgreSQL a ping came back lately). */
    get on(): boolean {
      return serving();
    },

    /** How many changes to who may do what this instance's writers have announced; `peersHeard` after one. */
    get localChanges(): number {
      return localChanges;
    },

    peersHeard,

    /** Taken before a read from the database; `set` keeps the read only if no notice came meanwhile. */
    get generation(): number {
      return generation;
    },

    get(key: string): T | undefined {
      if (!serving()) return undefined;
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
