/**
 * Gathers the writes of one request into a single Xero call. Each bill goes through the write ledger on its
 * own (its own row, key and outcome), but Xero takes up to 50 invoices in one `PUT /Invoices`, so instead of
 * sending, each ledger write hands its element to the batch. Once every bill of the request has either
 * handed over its element or settled without sending (an idempotent replay, a conflict), the batch is sent
 * once and each element's answer goes back to the write that handed it over.
 */
export interface WriteBatch<E, R> {
  /** Queues an element; resolves with its own answer once the batch has been sent. */
  submit(key: string, element: E): Promise<R>;
  /** Tells the batch that one of the expected writes will not send anything. */
  skip(): void;
}

export function createWriteBatch<E, R>(
  expected: number,
  flush: (entries: { key: string; element: E }[]) => Promise<R[]>,
): WriteBatch<E, R> {
  const queue: { key: string; element: E; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  let decided = 0;

  function flushWhenComplete(): void {
    if (decided < expected || queue.length === 0) return;
    const entries = queue.splice(0);
    flush(entries.map(({ key, element }) => ({ key, element }))).then(
      (answers) => {
        if (answers.length !== entries.length) {
          const error = new Error(`Xero answered ${answers.length} elements for ${entries.length} sent`);
          for (const entry of entries) entry.reject(error);
          return;
        }
        entries.forEach((entry, i) => entry.resolve(answers[i] as R));
      },
      (error: unknown) => {
        for (const entry of entries) entry.reject(error);
      },
    );
  }

  return {
    submit(key, element) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ key, element, resolve, reject });
        decided += 1;
        flushWhenComplete();
      });
    },
    skip() {
      decided += 1;
      flushWhenComplete();
    },
  };
}
