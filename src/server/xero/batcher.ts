import crypto from 'node:crypto';

/**
 * The one batcher for batched Xero writes (Add Invoices' approvals and cash payments, CIS Bills' creates): gathers the
 * items of one Xero batch call from several concurrent `ledger.execute` calls, so each item keeps its own
 * ledger row (recorded before sending, settled on its own) while Xero sees one request.
 *
 * Each item either joins (its ledger row asked to send) or leaves (the ledger answered without sending: a
 * replay, a conflict); once every expected item has done one or the other, the joined ones are sent together
 * and each gets its own element of the answer back.
 *
 * The one rule for batch keys: the elements are sorted by their items' keys and the batch key is a hash of
 * those keys, so a retry of the same items sends the very same body under the very same key (Xero refuses a
 * known Idempotency-Key with a different body, and replays the first answer for the same one).
 *
 * Xero's answer must hold exactly one element per element sent: answers are matched to items by position,
 * so an answer with more or fewer elements cannot be matched safely and fails every item of the batch with
 * an error the ledger treats as an unknown outcome (each write is then settled by look-up, never taken as
 * refused or as another item's answer).
 */
export function createBatcher<E, A>(
  expected: number,
  sendBatch: (elements: E[], batchKey: string) => Promise<A[]>,
) {
  const joined: Array<{
    key: string;
    element: E;
    resolve: (answer: A) => void;
    reject: (error: unknown) => void;
  }> = [];
  let left = 0;
  let flushed = false;

  function flushWhenComplete() {
    if (flushed || joined.length + left < expected) return;
    flushed = true;
    if (joined.length === 0) return;
    joined.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    sendBatch(
      joined.map((j) => j.element),
      batchKeyOf(joined.map((j) => j.key)),
    ).then(
      (answers) => {
        if (answers.length !== joined.length) {
          const error = new Error(`Xero answered ${answers.length} elements for ${joined.length} sent`);
          joined.forEach((j) => j.reject(error));
          return;
        }
        joined.forEach((j, i) => j.resolve(answers[i] as A));
      },
      (error: unknown) => joined.forEach((j) => j.reject(error)),
    );
  }

  return {
    /** Called from the ledger's `send`: waits for the batch and returns this item's element of the answer. */
    join(key: string, element: E): Promise<A> {
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

export type Batcher<E, A> = ReturnType<typeof createBatcher<E, A>>;

/** The batch key of a batch made of these item keys (in any order): the same items, the same key. */
export function batchKeyOf(itemKeys: readonly string[]): string {
  return crypto
    .createHash('sha256')
    .update([...itemKeys].sort().join('\n'))
    .digest('hex');
}

/** Splits a list into chunks of at most `size` (Xero advises about 50 elements a batch). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
