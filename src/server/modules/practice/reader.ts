import { AppError } from '../../lib/app-error';
import { readCacheOnly, runInBackground } from '../../xero/call-context';
import type { RequestContext } from '../organizations/tenancy';
import {
  CIS_FIGURES,
  computeFigures,
  figuresOf,
  missingReads,
  resourcesOf,
  warmUp,
  type FigureKey,
  type FigureSources,
  type OrgFigures,
} from './figures';
import type { PracticeRepository } from './practice.repository';

/** Organisations read at once by the background reader (each within its own Xero limits, all in the app's). */
export const READ_CONCURRENCY = 10;
/**
 * When reads start from none, the first organisation has this long to itself (or until its row is first shown):
 * the one database thread of PGlite and the organisation's first calls are its alone, so a first open shows a
 * row at once instead of ten rows together a few seconds later.
 */
export const HEAD_START_MS = 1_000;

/** What the reader tells the rows: figures (whole or so far), or why there are none. */
export type ReadOutcome =
  | { kind: 'figures'; figures: OrgFigures; complete: boolean; pending: FigureKey[]; stamp: string }
  | { kind: 'failed'; message: string; stamp: string };

interface Job {
  ctx: RequestContext;
  state: 'waiting' | 'reading';
}

/**
 * The Today page's background reads (issue 47): an organisation whose row cannot be answered from the cache is
 * read here, as a first visit of each of its screens would read it, under the gate's background priority, so a
 * person's own screen is never kept waiting by a practice-wide read. A few organisations at a time, in the order
 * they were asked for; each is tried from the cache first (after a restart most need no call). The row is
 * published after the first page of its invoice list, "so far", and again once everything is in.
 */
/** How long a shutdown waits for background reads going on (close()). */
export const CLOSE_GRACE_MS = 3_000;

export function createPracticeReader(deps: {
  sources: FigureSources;
  repo: PracticeRepository;
  /** The stamp of what an organisation's row is made of (change-notices.ts), taken before each read. */
  stampOf: (organizationId: number) => string;
  publish: (organizationId: number, outcome: ReadOutcome) => void;
  /** A job was queued, started or ended. */
  onStateChange: (organizationId: number) => void;
  concurrency?: number;
  log?: { warn: (o: object, m: string) => void };
}) {
  const { sources, repo, stampOf, publish, onStateChange } = deps;
  const concurrency = deps.concurrency ?? READ_CONCURRENCY;
  const jobs = new Map<number, Job>();
  const queue: number[] = [];
  const running = new Set<Promise<void>>();
  let active = 0;
  let closed = false;
  /** The first organisation of a run of reads is read alone until this is cleared (HEAD_START_MS). */
  let headStart: NodeJS.Timeout | undefined;
  const endHeadStart = () => {
    if (!headStart) return;
    clearTimeout(headStart);
    headStart = undefined;
    pump();
  };

  /** The figures from the cache alone, or null when something would have to be read from Xero. */
  async function fromCache(ctx: RequestContext): Promise<OrgFigures | null> {
    const states = await repo.findReadStates([ctx.organizationId], resourcesOf(ctx.organization));
    if (missingReads(ctx.organization, states.get(ctx.organizationId), false).length > 0) return null;
    return readCacheOnly(() => computeFigures(sources, ctx, 'cache'));
  }

  /** A row shown: the first one ends the head start of its run of reads. */
  function show(id: number, outcome: ReadOutcome): void {
    publish(id, outcome);
    endHeadStart();
  }

  async function read(ctx: RequestContext): Promise<void> {
    const id = ctx.organizationId;
    const cached = await fromCache(ctx);
    if (cached) {
      show(id, { kind: 'figures', figures: cached, complete: true, pending: [], stamp: stampOf(id) });
      return;
    }
    // Twice at most: something read meanwhile may need one more look (a subcontractor paid while reading).
    for (let pass = 0; pass < 2; pass++) {
      const stamp = stampOf(id);
      // The row is shown as its figures come ("so far"), each read side by side with the others: first the
      // invoice list's first page, then the drafts and the stock journal, then CIS Bills' reads and the
      // subcontractors' CIS settings (one call each) for the CIS figures.
      const all = figuresOf(ctx.organization);
      const showSoFar = async (shown: readonly FigureKey[]) => {
        const pending = all.filter((k) => !shown.includes(k));
        const quick = await readCacheOnly(() =>
          computeFigures(sources, ctx, 'cache', undefined, new Set<FigureKey>(pending)),
        );
        if (quick) show(id, { kind: 'figures', figures: quick, complete: false, pending, stamp });
      };
      const others = runInBackground(() => warmUp(sources, ctx, 'first'));
      if (all.includes('invoicesAwaiting')) {
        await runInBackground(() => warmUp(sources, ctx, 'list'));
        await showSoFar(['invoicesAwaiting']);
      }
      await others;
      await showSoFar(all.filter((k) => !CIS_FIGURES.includes(k)));
      await runInBackground(() => warmUp(sources, ctx, 'cis'));
      const first = await runInBackground(() => computeFigures(sources, ctx, 'read'));
      const listDone = first.invoicesAwaiting?.complete !== false;
      show(id, { kind: 'figures', figures: first, complete: listDone, pending: [], stamp });
      if (!listDone) await runInBackground(() => sources.payInvoices.readInvoiceList(ctx));
      const stampAfter = stampOf(id);
      const whole = await fromCache(ctx);
      if (whole) {
        show(id, { kind: 'figures', figures: whole, complete: true, pending: [], stamp: stampAfter });
        return;
      }
    }
    throw new AppError('XERO_UNAVAILABLE', 'Not everything could be read from Xero; it is tried again soon.');
  }

  function pump(): void {
    if (!closed && active === 0 && queue.length > 0 && !headStart) {
      headStart = setTimeout(endHeadStart, HEAD_START_MS);
      headStart.unref();
      startNext();
      return;
    }
    while (!closed && active < (headStart ? 1 : concurrency) && queue.length > 0) startNext();
  }

  function startNext(): void {
    const id = queue.shift();
    const job = id === undefined ? undefined : jobs.get(id);
    if (id === undefined || !job) return;
    active += 1;
    job.state = 'reading';
    onStateChange(id);
    const done: Promise<void> = read(job.ctx)
      .catch((error: unknown) => {
        const message =
          error instanceof AppError
            ? error.message
            : 'Reading this organisation from Xero failed; it is tried again soon.';
        // A read left going by close() fails as the database closes under it: not worth a warning.
        if (!(error instanceof AppError) && !closed)
          deps.log?.warn(
            { err: error, organizationId: id },
            'reading an organisation for the Today page failed',
          );
        publish(id, { kind: 'failed', message, stamp: stampOf(id) });
      })
      .finally(() => {
        active -= 1;
        jobs.delete(id);
        running.delete(done);
        onStateChange(id);
        pump();
      });
    running.add(done);
  }

  return {
    /** Queues the organisation's read (once: a read queued or going on is not queued again). */
    enqueue(ctx: RequestContext): void {
      if (closed || jobs.has(ctx.organizationId)) return;
      jobs.set(ctx.organizationId, { ctx, state: 'waiting' });
      queue.push(ctx.organizationId);
      onStateChange(ctx.organizationId);
      pump();
    },

    /** Where the organisation's read is: waiting in the queue, being read, or none. */
    stateOf(organizationId: number): 'waiting' | 'reading' | undefined {
      return jobs.get(organizationId)?.state;
    },

    /** Reads going on or waiting, on this instance. */
    get size(): number {
      return jobs.size;
    },

    /**
     * Stops starting reads and gives those going on `graceMs` to finish (their own reads stop after the page they
     * are on). A read still going after that is left, as a kill -9 would leave it: it writes no money, its sync
     * resumes from what was kept, and a shutdown (SIGTERM, 10 s in server.ts) must not wait on a large
     * organisation's first read (about 50 s for Demo Builders on a cold cache).
     */
    async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
      closed = true;
      if (headStart) clearTimeout(headStart);
      headStart = undefined;
      queue.length = 0;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
        timer.unref();
      });
      await Promise.race([Promise.allSettled([...running]), grace]);
      clearTimeout(timer);
    },
  };
}
export type PracticeReader = ReturnType<typeof createPracticeReader>;
