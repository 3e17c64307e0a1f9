import crypto from 'node:crypto';
import type pg from 'pg';
import type { Database } from '../../db/client';
import { hearLocalChanges } from '../../db/local-notices';
import { listenOn, type PgListener } from '../../lib/pg-listen';
import { PRINCIPAL_CHANNEL } from '../auth/principal-cache';

/**
 * The channel migration 0029's triggers announce what the Today page's rows are made of beyond who may see them:
 * contacts (their CIS settings and groups), CIS filings and settings, the CIS month's counted payments, supplier
 * credit notes and nil-month marks, stock-journal entries, writes entering or leaving Needs review and what has
 * been read of Xero (xero_sync_state, leases left out).
 */
export const PRACTICE_CHANNEL = 'ledgerlink_practice';

/** How often a PostgreSQL listener checks that its connection still delivers. */
const PING_EVERY_MS = 10_000;

interface Logger {
  warn(obj: object, msg: string): void;
}

/** What changed: an organisation's data, a user's connections, or everything (a TRUNCATE, a listener back). */
export type Change = { kind: 'org'; id: number } | { kind: 'user'; id: number } | { kind: 'all' };

/**
 * Every change the database announces about what the Today page shows (issue 47), counted per organisation and
 * per user, so a row computed before a change is never served after it: on the principals' channel (migration
 * 0019: organisations' flags and defaults, memberships, tokens, the invoice-cache version) and the practice
 * channel (migration 0029). Like the principal cache (decision 032) it is off until its LISTEN is in place and
 * whenever the connection stops delivering (a ping it sends itself), and every count moves when it comes back,
 * so nothing kept from before is trusted.
 */
export function createChangeNotices(options: { database: Database; log: Logger; pingEveryMs?: number }) {
  const { database, log } = options;
  const pingEveryMs = options.pingEveryMs ?? PING_EVERY_MS;
  const orgCounts = new Map<number, number>();
  const userCounts = new Map<number, number>();
  const subscribers = new Set<(change: Change) => void>();
  const instance = crypto.randomBytes(6).toString('hex');
  let epoch = 0;
  let generation = 0;
  let listening = false;
  let closed = false;
  let stops: Array<() => Promise<void> | void> = [];
  let stopHearing: (() => void) | undefined;
  let retry: NodeJS.Timeout | undefined;
  let pinger: NodeJS.Timeout | undefined;
  let pingSent = 0;
  let pingSeen = 0;
  let pingAtLastTick = 0;

  function tell(change: Change): void {
    generation++;
    for (const fn of subscribers) {
      try {
        fn(change);
      } catch (error) {
        log.warn({ err: error }, 'a Today page subscriber failed');
      }
    }
  }

  function onNotice(payload: string): void {
    if (payload.startsWith('ping:')) {
      const [, who, n] = payload.split(':');
      if (who === instance) pingSeen = Math.max(pingSeen, Number(n));
      return;
    }
    if (payload === '*') {
      epoch++;
      tell({ kind: 'all' });
      return;
    }
    const kind = payload.slice(0, 2);
    const id = Number(payload.slice(2));
    if (!Number.isInteger(id)) return;
    if (kind === 'o:') {
      orgCounts.set(id, (orgCounts.get(id) ?? 0) + 1);
      tell({ kind: 'org', id });
    } else if (kind === 'u:') {
      userCounts.set(id, (userCounts.get(id) ?? 0) + 1);
      tell({ kind: 'user', id });
    }
  }

  function deaf(reason: string, error?: unknown): void {
    listening = false;
    epoch++;
    if (pinger) clearInterval(pinger);
    pinger = undefined;
    const current = stops;
    stops = [];
    for (const stop of current) void Promise.resolve(stop()).catch(() => undefined);
    tell({ kind: 'all' });
    if (closed) return;
    log.warn({ err: error }, `Today page rows not kept (${reason}); listening again`);
    if (retry) clearTimeout(retry);
    retry = setTimeout(() => void listen(), 1000);
  }

  async function listen(): Promise<void> {
    if (closed || listening) return;
    try {
      if (database.kind === 'postgres' && database.pool) {
        const pool: pg.Pool = database.pool;
        const opened: PgListener[] = [];
        for (const channel of [PRINCIPAL_CHANNEL, PRACTICE_CHANNEL]) {
          opened.push(
            await listenOn(pool, channel, {
              onPayload: onNotice,
              onLost: (error) => {
                if (stops.length > 0) deaf('listening connection lost', error);
              },
            }),
          );
        }
        if (closed) {
          for (const l of opened) l.stop();
          return;
        }
        stops = opened.map((l) => () => l.stop());
        pingSent = pingSeen = pingAtLastTick = 0;
        pinger = setInterval(() => {
          if (pingSeen < pingAtLastTick) {
            deaf('listening connection stopped delivering');
            return;
          }
          const n = ++pingSent;
          pingAtLastTick = n;
          pool
            .query('select pg_notify($1, $2)', [PRACTICE_CHANNEL, `ping:${instance}:${n}`])
            .catch((error: unknown) => deaf('cannot reach the database', error));
        }, pingEveryMs);
        pinger.unref();
      } else if (database.pglite) {
        const pglite = database.pglite;
        const opened: Array<() => Promise<void>> = [];
        for (const channel of [PRINCIPAL_CHANNEL, PRACTICE_CHANNEL])
          opened.push(await pglite.listen(channel, onNotice));
        stops = opened;
      } else {
        return;
      }
      epoch++;
      listening = true;
      tell({ kind: 'all' });
    } catch (error) {
      deaf('cannot LISTEN', error);
    }
  }

  return {
    /** Starts listening (this instance's own writers of what principals are read from are heard at once). */
    start(): Promise<void> {
      stopHearing ??= hearLocalChanges(database.db, onNotice);
      return listen();
    },

    /** Whether changes are heard: only then may a row computed earlier be served. */
    get on(): boolean {
      return listening;
    },

    /** Moves with every change heard: taken before a read, a different value after it means the read may be old. */
    get generation(): number {
      return generation;
    },

    /** A stamp of everything an organisation's row is made of; a different stamp means it changed. */
    stampOf(organizationId: number): string {
      return `${epoch}.${orgCounts.get(organizationId) ?? 0}`;
    },

    /** A stamp of a user's tokens and memberships. */
    userStampOf(userId: number): string {
      return `${epoch}.${userCounts.get(userId) ?? 0}`;
    },

    /** Calls `fn` with every change heard from now on; returns the unsubscribe. */
    subscribe(fn: (change: Change) => void): () => void {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },

    async close(): Promise<void> {
      closed = true;
      stopHearing?.();
      listening = false;
      if (retry) clearTimeout(retry);
      if (pinger) clearInterval(pinger);
      subscribers.clear();
      const current = stops;
      stops = [];
      for (const stop of current) await Promise.resolve(stop()).catch(() => undefined);
    },
  };
}
export type ChangeNotices = ReturnType<typeof createChangeNotices>;
