/**
 * Gathers the keys that arrive while the database is busy (or within one turn of the event loop) into one
 * query: a burst of ten requests then costs one round trip instead of ten, and equal keys in a batch (a
 * page's parallel requests on one session) are asked once. With PGlite every query runs on the app's own
 * thread, so its fixed cost per statement is what a batch saves; with PostgreSQL a few batches run at once.
 * A batch only ever starts after its keys arrived, so what it reads is as fresh as a query of its own.
 */
export function createBatchLoader<K, V>(options: {
  /** Answers distinct keys in order: `values[i]` belongs to `keys[i]`. */
  run: (keys: K[]) => Promise<V[]>;
  /** Equal identities are one key within a batch. */
  identify: (key: K) => string;
  maxInFlight: number;
  maxBatch: number;
}): { load(key: K): Promise<V> } {
  let queue: Array<{ key: K; resolve: (value: V) => void; reject: (error: unknown) => void }> = [];
  let inFlight = 0;
  let scheduled = false;

  function schedule(): void {
    if (scheduled || queue.length === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    // After the current poll phase: every request the event loop has just read joins this batch.
    setImmediate(flush);
  }

  function flush(): void {
    scheduled = false;
    if (inFlight >= options.maxInFlight || queue.length === 0) return;
    const batch = queue.length <= options.maxBatch ? queue : queue.slice(0, options.maxBatch);
    queue = queue.length <= options.maxBatch ? [] : queue.slice(options.maxBatch);
    inFlight += 1;
    const slots = new Map<string, number>();
    const keys: K[] = [];
    const slotOf = batch.map((item) => {
      const identity = options.identify(item.key);
      let slot = slots.get(identity);
      if (slot === undefined) {
        slot = keys.push(item.key) - 1;
        slots.set(identity, slot);
      }
      return slot;
    });
    options
      .run(keys)
      .then(
        (values) => batch.forEach((item, i) => item.resolve(values[slotOf[i] ?? -1] as V)),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      )
      .finally(() => {
        inFlight -= 1;
        schedule();
      });
    schedule();
  }

  return {
    load(key: K): Promise<V> {
      return new Promise<V>((resolve, reject) => {
        queue.push({ key, resolve, reject });
        schedule();
      });
    },
  };
}
