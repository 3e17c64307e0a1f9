import pg from 'pg';

/**
 * A pool may carry, under this key, the way its listeners' connections are made: tests slow their notices down
 * (src/server/test/slow-notices.ts). Without it a listener's connection is a plain `pg.Client` with the pool's
 * settings.
 */
export const LISTENER_CLIENT = Symbol.for('ledgerlink.listenerClient');

/** A connection of its own LISTENing on one channel. */
export interface PgListener {
  /** Ends the LISTEN by destroying the connection; onLost is not called. */
  stop(): void;
}

/**
 * Opens a connection of its own, with the pool's settings, and LISTENs on `channel`: each notice's payload goes to
 * `onPayload`. If the connection fails once listening, it is closed and `onLost` is called, once. The connection is
 * never one of the pool's: a listener holds its connection for the life of the instance, and the principals, live
 * events and the Today page (two channels) listen at once, so taking them from the pool left half of its ten
 * connections to queries, and a write waiting on Xero's lost answer then waited 5 s for a connection and failed
 * (issue 47's listeners on PostgreSQL). It is closed, once, whether it failed or was stopped. Rejects, holding
 * nothing, when the LISTEN itself fails.
 */
export async function listenOn(
  pool: pg.Pool,
  channel: string,
  handlers: { onPayload(payload: string): void; onLost(error: unknown): void },
): Promise<PgListener> {
  const make = (pool as { [LISTENER_CLIENT]?: () => pg.Client })[LISTENER_CLIENT];
  const client = make ? make() : new pg.Client(pool.options);
  let listening = false;
  let released = false;
  const destroy = (): boolean => {
    if (released) return false;
    released = true;
    client.off('notification', onMessage);
    client.off('error', onError);
    // A late error of the dead connection must not be an uncaught exception.
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    return true;
  };
  const onMessage = (message: pg.Notification) => {
    if (message.channel === channel && message.payload) handlers.onPayload(message.payload);
  };
  const onError = (error: unknown) => {
    if (destroy() && listening) handlers.onLost(error);
  };
  client.on('notification', onMessage);
  client.on('error', onError);
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    destroy();
    throw error;
  }
  if (released) throw new Error(`the connection LISTENing on ${channel} was lost`);
  listening = true;
  return { stop: () => void destroy() };
}
