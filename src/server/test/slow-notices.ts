import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { LISTENER_CLIENT } from '../lib/pg-listen';
import { PRINCIPAL_CHANNEL } from '../modules/auth/principal-cache';
import type { TestDatabase } from './database';

type Listener = (...args: unknown[]) => void;

/** Calls to the target's methods go to the target itself (private fields, `this`), whatever the proxy. */
function bound<T extends object>(target: T, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? (value as Listener).bind(target) : value;
}

/**
 * The same database, but the principal cache's change notices reach the app `delayMs` late, as they might
 * from a busy PostgreSQL server: what the app does before they arrive is what it knows without them (issue 32,
 * decision 032: a writer's own instance must not depend on its notice coming back). Other channels are untouched.
 */
export function withSlowPrincipalNotices(database: TestDatabase, delayMs: number): TestDatabase {
  const late = (channel: string, deliver: () => void) => {
    if (channel === PRINCIPAL_CHANNEL) setTimeout(deliver, delayMs);
    else deliver();
  };
  if (database.pglite) {
    const pglite = database.pglite;
    const slow = new Proxy(pglite, {
      get(target, prop) {
        if (prop !== 'listen') return bound(target, prop);
        return (channel: string, callback: (payload: string) => void) =>
          target.listen(channel, (payload) => late(channel, () => callback(payload)));
      },
    }) as PGlite;
    return { ...database, pglite: slow };
  }
  const pool = database.pool;
  if (!pool) return database;
  const slowClient = <C extends pg.ClientBase>(client: C): C => {
    const wrapped = new Map<Listener, Listener>();
    return new Proxy(client, {
      get(target, prop) {
        if (prop === 'on')
          return (event: string, listener: Listener) => {
            if (event !== 'notification') return target.on(event as 'error', listener);
            const slow: Listener = (...args) =>
              late((args[0] as pg.Notification).channel, () => listener(...args));
            wrapped.set(listener, slow);
            return target.on('notification', slow);
          };
        if (prop === 'off')
          return (event: string, listener: Listener) =>
            target.off(event as 'error', wrapped.get(listener) ?? listener);
        return bound(target, prop);
      },
    });
  };
  const slowPool = new Proxy(pool, {
    get(target, prop) {
      // Listeners hold connections of their own, made with the pool's settings (lib/pg-listen.ts).
      if (prop === LISTENER_CLIENT) return () => slowClient(new pg.Client(target.options));
      if (prop !== 'connect') return bound(target, prop);
      return async () => slowClient(await target.connect());
    },
  });
  return { ...database, pool: slowPool };
}
