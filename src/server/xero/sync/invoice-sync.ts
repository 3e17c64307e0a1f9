import {
  FIRST_PAGE_SIZE,
  type InvoiceSyncProgress,
  type SyncContext,
  type SyncResult,
  type XeroSyncDeps,
} from './context';
import type { InvoiceRead } from './invoice-read';
import { describeProgress, describeView, isComplete, type InvoiceView } from './invoice-views';
import type { SyncState } from './sync-state';

/** How long a first visit waits for another instance's first page before answering with the progress alone. */
const OTHER_FIRST_PAGE_WAIT_MS = 5_000;
const LEASE_POLL_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Invoice views kept current (incremental, or full on request), read whole once, and a first visit that
 * answers after the first page while the rest is read in the background.
 */
export function createInvoiceSync(
  deps: Pick<XeroSyncDeps, 'mayUseCache' | 'onBackgroundError'>,
  { local, readState, acquireLease, releaseLease, withLease }: SyncState,
  { syncInvoicesNow }: InvoiceRead,
) {
  /** Reads of a whole view going on in the background on this instance (awaited by `close`). */
  const background = new Map<string, Promise<unknown>>();
  /** First visits being started on this instance (until their first page is in), by organisation and view. */
  const starting = new Map<string, Promise<InvoiceSyncProgress>>();
  let isClosing = false;

  return {
    /**
     * Brings one invoice view up to date (incremental unless `full`). While Xero's webhooks keep the view
     * current (`mayUseCache`), an incremental refresh of a view read before costs no call.
     */
    async syncInvoices(
      ctx: SyncContext,
      view: InvoiceView,
      options: { full?: boolean } = {},
    ): Promise<SyncResult> {
      const def = describeView(view);
      if (!options.full && deps.mayUseCache) {
        const state = await readState(ctx.organizationId, def.resource);
        if (isComplete(state) && (await deps.mayUseCache(ctx, state?.lastSyncAt ?? null)))
          return { calls: 0, fetched: 0, full: false };
      }
      return withLease(ctx, def.resource, () => syncInvoicesNow(ctx, view, options.full === true), {
        full: options.full === true,
      });
    },

    /**
     * Syncs the view only if it has never been read whole, or its last read of the whole view is unfinished;
     * otherwise serves the cache. Waits for every page.
     */
    async ensureInvoices(ctx: SyncContext, view: InvoiceView): Promise<SyncResult> {
      const state = await readState(ctx.organizationId, describeView(view).resource);
      if (isComplete(state)) return { calls: 0, fetched: 0, full: false };
      return this.syncInvoices(ctx, view);
    },

    /** First visit without the wait (issues 19 and 32): answers once the first page is in (see below). */
    ensureInvoicesInBackground: ensureInBackground,

    /** How far the view's read of the whole view has got (one query). */
    async readInvoiceProgress(ctx: SyncContext, view: InvoiceView): Promise<InvoiceSyncProgress> {
      return describeProgress(await readState(ctx.organizationId, describeView(view).resource));
    },

    /** Stops background reads after the page they are on (their progress stays for the next start). */
    async close(): Promise<void> {
      isClosing = true;
      await Promise.allSettled([...background.values()]);
    },
  };

  /**
   * First visit without the wait (issue 19): as `ensureInvoices`, but a read of the whole view answers once its
   * first page is stored (or, carrying on an unfinished one, its next page) and reads the rest in the
   * background under the view's lease, which each page renews: the read goes on when the browser leaves, a
   * second request or instance meanwhile reads nothing and gets the progress, and a crash leaves the progress
   * in the database for the next request to carry on from once the lease has run out. The cache is taken as
   * complete only after the last page.
   */
  function ensureInBackground(ctx: SyncContext, view: InvoiceView): Promise<InvoiceSyncProgress> {
    // A request arriving while one on this instance is starting the read (the page's own request after the
    // page asked for it: issue 32) waits for the same first page instead of answering an empty list; if that
    // start fails (another user's token, Xero down a moment), it tries once itself, as it would have alone.
    const key = `${ctx.organizationId}:${describeView(view).resource}`;
    const joined = starting.get(key);
    if (joined) return joined.catch(() => ensureInBackground(ctx, view));
    const started = startInBackground(ctx, view, key).finally(() => starting.delete(key));
    starting.set(key, started);
    return started;
  }

  async function startInBackground(
    ctx: SyncContext,
    view: InvoiceView,
    key: string,
  ): Promise<InvoiceSyncProgress> {
    const def = describeView(view);
    const state = await readState(ctx.organizationId, def.resource);
    if (isComplete(state) || local.has(key) || isClosing) return describeProgress(state);
    // Another instance holds the lease: it is reading, and its progress is in the database. Until its first page
    // is in there is nothing to show (the page's HTML may have started the read there, issue 32): wait for that
    // page, briefly, as a request here waits for a start here; a lease let go unfinished is taken over.
    const deadline = Date.now() + OTHER_FIRST_PAGE_WAIT_MS;
    while (!(await acquireLease(ctx.organizationId, def.resource))) {
      const held = await readState(ctx.organizationId, def.resource);
      if (isComplete(held) || (held?.pagesRead ?? 0) > 0 || Date.now() >= deadline || isClosing)
        return describeProgress(held);
      await sleep(LEASE_POLL_MS);
    }
    const current = await readState(ctx.organizationId, def.resource);
    if (isComplete(current)) {
      await releaseLease(ctx.organizationId, def.resource, {});
      return describeProgress(current);
    }
    let isFirstPageIn = false;
    let settleFirstPage: (error?: unknown) => void = () => undefined;
    const firstPage = new Promise<void>((resolve, reject) => {
      settleFirstPage = (error) => {
        if (isFirstPageIn) return;
        isFirstPageIn = true;
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(String(error)));
      };
    });
    const run = (async () => {
      try {
        return await syncInvoicesNow(ctx, view, false, {
          // The answer waits for this page only: a small one (issue 32).
          firstPageSize: FIRST_PAGE_SIZE,
          onPageStored: () => settleFirstPage(),
          shouldStop: () => isClosing,
        });
      } catch (error) {
        await releaseLease(ctx.organizationId, def.resource, {});
        throw error;
      }
    })().finally(() => {
      local.delete(key);
      background.delete(key);
    });
    local.set(key, run);
    background.set(
      key,
      run.then(
        () => settleFirstPage(),
        (error: unknown) => {
          if (isFirstPageIn) deps.onBackgroundError?.(ctx, error);
          else settleFirstPage(error);
        },
      ),
    );
    await firstPage;
    return describeProgress(await readState(ctx.organizationId, def.resource));
  }
}
