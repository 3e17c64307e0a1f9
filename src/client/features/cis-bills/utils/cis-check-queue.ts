import { MAX_CIS_CHECK_IDS, type CisContact } from '@/shared/cis-bills';

/**
 * Batches the subcontractors whose CIS settings the screen wants checked (issue 19): ids asked for within
 * `windowMs` of the first go in one request (at most `maxBatch` ids each); an id already queued or on its way
 * is not asked for twice; `immediate` sends at once (a subcontractor just picked). Each request's promise
 * settles when its ids are answered or failed.
 */
export function createCisCheckQueue(options: {
  send: (ids: string[]) => Promise<CisContact[]>;
  onChecked: (contacts: CisContact[]) => void;
  onFailed: (ids: string[], error: unknown) => void;
  windowMs: number;
  maxBatch?: number;
}) {
  const maxBatch = options.maxBatch ?? MAX_CIS_CHECK_IDS;
  const queued = new Set<string>();
  const running = new Map<string, Promise<void>>();
  let waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  function nextFlush() {
    if (!waiting) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      waiting = { promise, resolve };
    }
    return waiting.promise;
  }

  function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    const ids = [...queued];
    queued.clear();
    const flushed = waiting;
    waiting = null;
    const sent: Promise<void>[] = [];
    for (let start = 0; start < ids.length; start += maxBatch) {
      const chunk = ids.slice(start, start + maxBatch);
      const request = options
        .send(chunk)
        .then(options.onChecked, (error: unknown) => options.onFailed(chunk, error))
        .finally(() => {
          for (const id of chunk) running.delete(id);
        });
      for (const id of chunk) running.set(id, request);
      sent.push(request);
    }
    void Promise.all(sent).then(() => flushed?.resolve());
  }

  return {
    /** Asks for these ids to be checked; resolves once each has been answered (or failed). */
    request(ids: readonly string[], { immediate = false }: { immediate?: boolean } = {}): Promise<void> {
      const waits: Promise<void>[] = [];
      let added = false;
      let isQueued = false;
      for (const id of new Set(ids)) {
        const inFlight = running.get(id);
        if (inFlight) waits.push(inFlight);
        else {
          added ||= !queued.has(id);
          isQueued = true;
          queued.add(id);
        }
      }
      if (isQueued) {
        waits.push(nextFlush());
        if (immediate) flush();
        else if (added && !timer) timer = setTimeout(flush, options.windowMs);
      }
      return Promise.all(waits).then(() => undefined);
    },
    /** Drops what is queued (the screen went away); requests on their way still settle. */
    dispose() {
      if (timer) clearTimeout(timer);
      timer = null;
      queued.clear();
      waiting?.resolve();
      waiting = null;
    },
  };
}
export type CisCheckQueue = ReturnType<typeof createCisCheckQueue>;
