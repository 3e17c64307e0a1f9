import crypto from 'node:crypto';

/**
 * Gathers the items of one Xero batch call from several concurrent `ledger.execute` calls, so each item
 * keeps its own ledger row (recorded before sending, confirmed or failed on its own) while Xero sees one
 * request. Each item either joins (its ledger row asked to send) or leaves (the ledger answered without
 * sending: a replay, a conflict); once every item has done one or the other, the joined ones are sent
 * together and each gets its own element of the answer back.
 */
export function createBatchSender<E, A>(
  expected: number,
  sendBatch: (elements: E[], batchKey: string) => Promise<A[]>,
) {
  const joined: Array<{ key: string; element: E; resolve: (answer: A | undefined) => void; reject: (error: unknown) => void }> = [];
  let left = 0;
  let flushed = false;

  function flushWhenComplete() {
    if (flushed || joined.length + left < expected) return;
    flushed = true;
    if (joined.length === 0) return;
    // Sorted by item key so a retried action sends the very same body under the very same key: Xero
    // refuses a known Idempotency-Key with a different body.
    joined.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const batchKey = crypto
      .createHash('sha256')
      .update(joined.map((j) => j.key).join('\n'))
      .digest('hex');
    sendBatch(
      joined.map((j) => j.element),
      batchKey,
    ).then(
      (answers) => joined.forEach((j, i) => j.resolve(answers[i])),
      (error: unknown) => joined.forEach((j) => j.reject(error)),
    );
  }

  return {
    /** Called from the ledger's `send`: waits for the batch and returns this item's element (undefined if Xero sent none). */
    join(key: string, element: E): Promise<A | undefined> {
      return new Promise((resolve, reject) => {
        joined.push({ key, element, resolve, reject });
        flushWhenComplete();
      });
    },
    /** Called when an item's ledger call ended without sending. */
    leave(): void {
      left += 1;
      flushWhenComplete();
    },
  };
}

export type BatchSender<E, A> = ReturnType<typeof createBatchSender<E, A>>;

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
