import type pg from 'pg';

/** A connection of its own LISTENing on one channel. */
export interface PgListener {
  /** Ends the LISTEN by destroying the connection; onLost is not called. */
  stop(): void;
}

/**
 * Takes a connection from the pool and LISTENs on `channel`: each notice's payload goes to `onPayload`. If the
 * connection fails once listening, it is destroyed and `onLost` is called, once. A LISTENing connection never goes
 * back to the pool (a later query would inherit the LISTEN and these handlers): it is destroyed, once, whether it
 * failed or was stopped. Rejects, holding nothing, when the LISTEN itself fails.
 */
export async function listenOn(
  pool: pg.Pool,
  channel: string,
  handlers: { onPayload(payload: string): void; onLost(error: unknown): void },
): Promise<PgListener> {
  const client = await pool.connect();
  let listening = false;
  let released = false;
  const destroy = (): boolean => {
    if (released) return false;
    released = true;
    client.off('notification', onMessage);
    client.off('error', onError);
    // A late error of the dead connection must not be an uncaught exception.
    client.on('error', () => undefined);
    client.release(true);
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
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    destroy();
    throw error;
  }
  if (released) throw new Error(`the connection LISTENing on ${channel} was lost`);
  listening = true;
  return { stop: () => void destroy() };
}
