import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/app-error';
import {
  xeroAccounts,
  xeroCacheVersions,
  xeroContactGroups,
  xeroContacts,
  xeroInvoices,
  xeroSyncState,
  xeroTaxRates,
  xeroWebhookEvents,
} from '../../db/schema/index';
import type { XeroHttp } from '../xero-http/http';
import {
  xeroAccountsEnvelope,
  xeroContactGroupsEnvelope,
  xeroContactsEnvelope,
  xeroInvoicesEnvelope,
  xeroTaxRatesEnvelope,
} from '../xero-http/schemas';
import { toAccountRow, toContactRow, toInvoiceRow } from './mappers';

/** The organisation a sync works for, and whose Xero token it uses. */
export interface SyncContext {
  organizationId: number;
  tenantId: string;
  userId: number;
}

/**
 * The slices of Xero's invoices each screen needs. A view's first sync asks only for its statuses
 * (Pay Invoices: AUTHORISED sales invoices, 5 pages of 1,000 for 5,000 outstanding); later syncs ask for
 * every invoice of its type changed since the view's high-water mark, whatever its status, so an
 * invoice that was paid, approved, voided or deleted meanwhile is updated too. All views share one table.
 */
export type InvoiceView =
  | { key: 'sales-open' }
  | { key: 'sales-draft' }
  | { key: 'bills-draft' }
  | { key: 'bills-paid' }
  | { key: 'sales-contact'; contactId: string };

const ALL_STATUSES = 'DRAFT,SUBMITTED,AUTHORISED,PAID,VOIDED,DELETED';
const PAGE_SIZE = 1000;
const LEASE_MS = 120_000;
/** Ids per webhook read: keeps the URL short; Xero's webhook batches are usually smaller. */
const WEBHOOK_IDS_PER_CALL = 100;

function describeView(view: InvoiceView) {
  switch (view.key) {
    case 'sales-open':
      return {
        resource: 'invoices:sales-open',
        type: 'ACCREC',
        initialStatuses: ['AUTHORISED'],
        contactId: undefined,
        summaryOnly: true,
      };
    case 'sales-draft':
      return {
        resource: 'invoices:sales-draft',
        type: 'ACCREC',
        initialStatuses: ['DRAFT'],
        contactId: undefined,
        summaryOnly: true,
      };
    case 'bills-draft':
      return {
        resource: 'invoices:bills-draft',
        type: 'ACCPAY',
        initialStatuses: ['DRAFT'],
        contactId: undefined,
        // CIS Bills edits and approves the draft bills' lines: they are read whole.
        summaryOnly: false,
      };
    case 'bills-paid':
      return {
        resource: 'invoices:bills-paid',
        type: 'ACCPAY',
        // The CIS month-end (issue 29) counts payments on approved bills: their payments, lines (materials) and
        // Xero's CIS deduction are read whole. Later syncs bring every bill changed since, paid or not.
        initialStatuses: ['AUTHORISED', 'PAID'],
        contactId: undefined,
        summaryOnly: false,
      };
    case 'sales-contact':
      return {
        resource: `invoices:contact:${view.contactId}`,
        type: 'ACCREC',
        initialStatuses: ['AUTHORISED', 'PAID'],
        contactId: view.contactId,
        summaryOnly: true,
      };
  }
}

export interface SyncResult {
  /** Xero calls this sync made (0 when another request or instance was already syncing it). */
  calls: number;
  fetched: number;
  full: boolean;
}

/**
 * How far the read of a whole view has got (issue 19): a first visit answers after the first page and reads the
 * rest in the background, so screens say "1,000 of 5,048" until `complete`. From the database, so every
 * instance says the same.
 */
export interface InvoiceSyncProgress {
  complete: boolean;
  /** Invoices stored so far by the read of the whole view (all of them once complete). */
  fetched: number;
  /** How many Xero said there are (its `pagination.itemCount`), or null until it says. */
  total: number | null;
}

type SyncStateRow = typeof xeroSyncState.$inferSelect;

/** Complete: read whole once, and no read of the whole view left unfinished since (a crash, a forced refresh). */
function isComplete(state: SyncStateRow | null): boolean {
  return Boolean(state?.lastSyncAt) && state?.initialReadAt === null;
}

function describeProgress(state: SyncStateRow | null): InvoiceSyncProgress {
  if (state && isComplete(state))
    return { complete: true, fetched: state.itemsRead, total: state.itemsTotal ?? state.itemsRead };
  return { complete: false, fetched: state?.itemsRead ?? 0, total: state?.itemsTotal ?? null };
}

/** What a read of the whole view tells its starter as it goes, and whether it should stop between pages. */
interface ReadHooks {
  onPageStored?: () => void;
  shouldStop?: () => boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keeps Ledgerlink's copy of Xero's data fresh at the lowest cost in Xero calls: largest page size,
 * If-Modified-Since from a per-resource high-water mark, and a lease per organisation and resource so
 * concurrent requests (on this or another instance) never run the same sync twice: a latecomer waits
 * for the running sync and reads its result.
 */
export function createXeroSync(deps: {
  db: Db;
  http: XeroHttp;
  /**
   * Live updates (docs/decisions/018-webhooks.md, "Fallback"): may a standard refresh of a view last read
   * from Xero at `lastSyncAt` be answered from the cache, because Xero's webhooks keep it current? Without
   * it every refresh asks Xero (If-Modified-Since).
   */
  mayUseCache?: (ctx: SyncContext, lastSyncAt: Date | null) => Promise<boolean>;
  /** An incremental read found invoices changed in Xero since the view's last read (the earliest change). */
  onChangesRead?: (ctx: SyncContext, changedAt: Date) => void;
  /** A read carried on in the background failed after its first page (the next request carries it on). */
  onBackgroundError?: (ctx: SyncContext, error: unknown) => void;
}) {
  const { db, http } = deps;
  const local = new Map<string, Promise<SyncResult>>();
  /** Reads of a whole view going on in the background on this instance (awaited by `close`). */
  const background = new Map<string, Promise<unknown>>();
  let isClosing = false;

  async function readState(organizationId: number, resource: string) {
    const [row] = await db
      .select()
      .from(xeroSyncState)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
    return row ?? null;
  }

  /** Takes the lease when free; answers when the resource last finished syncing (and fully), or null when held. */
  async function acquireLease(organizationId: number, resource: string) {
    await db.insert(xeroSyncState).values({ organizationId, resource }).onConflictDoNothing();
    const [row] = await db
      .update(xeroSyncState)
      .set({ leaseUntil: new Date(Date.now() + LEASE_MS) })
      .where(
        and(
          eq(xeroSyncState.organizationId, organizationId),
          eq(xeroSyncState.resource, resource),
          or(isNull(xeroSyncState.leaseUntil), lt(xeroSyncState.leaseUntil, new Date())),
        ),
      )
      .returning({ lastSyncAt: xeroSyncState.lastSyncAt, lastFullSyncAt: xeroSyncState.lastFullSyncAt });
    return row ?? null;
  }

  async function releaseLease(
    organizationId: number,
    resource: string,
    values: Partial<typeof xeroSyncState.$inferInsert>,
  ) {
    await db
      .update(xeroSyncState)
      .set({ ...values, leaseUntil: null })
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
  }

  /**
   * Runs `work` holding the lease; if someone else holds it, waits for them and reports 0 calls. A sync that
   * finished after this request arrived was running (or started) by then, so it serves this request too, as
   * a sync already running on this instance does: two instances asked at once read Xero once, even when the
   * first lets go of the lease before the second asks for it. A full resync is served only by a full one.
   */
  function withLease(
    ctx: SyncContext,
    resource: string,
    work: () => Promise<SyncResult>,
    options: { full?: boolean } = {},
  ): Promise<SyncResult> {
    const localKey = `${ctx.organizationId}:${resource}`;
    const running = local.get(localKey);
    if (running) return running.then((r) => ({ ...r, calls: 0 }));
    const requestedAt = new Date();
    const servedBy = (state: { lastSyncAt: Date | null; lastFullSyncAt: Date | null }) => {
      const finished = options.full ? state.lastFullSyncAt : state.lastSyncAt;
      return finished !== null && finished >= requestedAt;
    };
    const promise = (async () => {
      const deadline = Date.now() + LEASE_MS;
      for (;;) {
        const acquired = await acquireLease(ctx.organizationId, resource);
        if (acquired && servedBy(acquired)) {
          await releaseLease(ctx.organizationId, resource, {});
          return { calls: 0, fetched: 0, full: false };
        }
        if (acquired) break;
        if (Date.now() > deadline)
          throw new AppError(
            'XERO_UNAVAILABLE',
            'Xero data is still being refreshed. Please try again in a minute.',
          );
        await sleep(150);
        // Another request or instance holds the lease: once it lets go, its result is in the cache.
        const state = await readState(ctx.organizationId, resource);
        if (state && state.leaseUntil === null) return { calls: 0, fetched: 0, full: false };
      }
      try {
        return await work();
      } catch (error) {
        await releaseLease(ctx.organizationId, resource, {});
        throw error;
      }
    })().finally(() => local.delete(localKey));
    local.set(localKey, promise);
    return promise;
  }

  /**
   * Writes invoices Xero just described. Newest wins: a row changes when Xero's UpdatedDateUTC is at least the
   * cached one's, or when nothing was written to the row since this read left (`readAt`: Xero's answer is then
   * the newest thing known, whatever Xero's clock says), so a read never puts back a state older than an
   * answer written while it was on its way.
   */
  async function upsertInvoices(
    organizationId: number,
    invoices: ReturnType<typeof toInvoiceRow>[],
    readAt: Date,
    options: { summaryOnly?: boolean } = {},
  ) {
    // A summaryOnly answer carries no lines or payments (docs/xero-api.md §4.1): what was known of them stays, and
    // `paymentsKnown` (src/shared/invoice-payments.ts) tells a complete payments list from one that is not.
    const detail = options.summaryOnly
      ? { lines: sql`${xeroInvoices.lines}`, payments: sql`${xeroInvoices.payments}` }
      : { lines: sql`excluded.lines`, payments: sql`excluded.payments` };
    for (let i = 0; i < invoices.length; i += 500) {
      const chunk = invoices.slice(i, i + 500);
      await db
        .insert(xeroInvoices)
        .values(chunk)
        .onConflictDoUpdate({
          target: [xeroInvoices.organizationId, xeroInvoices.invoiceId],
          set: {
            type: sql`excluded.type`,
            invoiceNumber: sql`excluded.invoice_number`,
            reference: sql`excluded.reference`,
            contactId: sql`excluded.contact_id`,
            contactName: sql`excluded.contact_name`,
            status: sql`excluded.status`,
            lineAmountTypes: sql`excluded.line_amount_types`,
            date: sql`excluded.date`,
            dueDate: sql`excluded.due_date`,
            subTotalPence: sql`excluded.sub_total_pence`,
            totalTaxPence: sql`excluded.total_tax_pence`,
            totalPence: sql`excluded.total_pence`,
            amountDuePence: sql`excluded.amount_due_pence`,
            amountPaidPence: sql`excluded.amount_paid_pence`,
            cisDeductionPence: sql`excluded.cis_deduction_pence`,
            cisRate: sql`excluded.cis_rate`,
            currencyCode: sql`excluded.currency_code`,
            sentToContact: sql`excluded.sent_to_contact`,
            hasAttachments: sql`excluded.has_attachments`,
            ...detail,
            updatedUtc: sql`excluded.updated_utc`,
            syncedAt: sql`excluded.synced_at`,
          },
          setWhere: sql`${xeroInvoices.updatedUtc} is null or excluded.updated_utc is null or excluded.updated_utc >= ${xeroInvoices.updatedUtc} or ${xeroInvoices.syncedAt} <= ${readAt.toISOString()}::timestamptz`,
        });
    }
  }

  async function writeProgress(
    organizationId: number,
    resource: string,
    values: Partial<typeof xeroSyncState.$inferInsert>,
  ) {
    await db
      .update(xeroSyncState)
      .set(values)
      .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
  }

  async function syncInvoicesNow(
    ctx: SyncContext,
    view: InvoiceView,
    full: boolean,
    hooks: ReadHooks = {},
  ): Promise<SyncResult> {
    const def = describeView(view);
    const state = await readState(ctx.organizationId, def.resource);
    // A read of the whole view left unfinished (the server stopped, Xero failed mid-way) carries on after the last
    // row it stored; a forced refresh starts again.
    const resuming = !full && state?.initialReadAt != null;
    const initial = full || !state?.highWater || resuming;
    // The view is walked in UpdatedDateUTC order with If-Modified-Since from the last row stored, not by page number:
    // an invoice paid or changed during a read of several pages leaves the set or moves to its end, and with page
    // numbers the rows after it would shift onto a page already read and be missed. Only rows sharing one second
    // (Xero's precision) are paged through by number. Xero's If-Modified-Since has second precision: the cursor
    // steps back a second and the upsert absorbs the repeats.
    const cursorOf = (at: Date | null | undefined) => (at ? new Date(at.getTime() - 1000) : undefined);
    let since = initial && !resuming ? undefined : cursorOf(state?.highWater);
    let pageOfCursor = 1;
    /** Rows of the last second read, by id: a repeat is not counted twice (on resuming, those already stored). */
    let recent = new Map<string, number>();
    if (resuming && since) {
      const stored = await db
        .select({ invoiceId: xeroInvoices.invoiceId, updatedUtc: xeroInvoices.updatedUtc })
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, ctx.organizationId),
            eq(xeroInvoices.type, def.type),
            sql`${xeroInvoices.updatedUtc} >= ${since.toISOString()}::timestamptz`,
          ),
        );
      recent = new Map(stored.map((r) => [r.invoiceId.toLowerCase(), r.updatedUtc?.getTime() ?? 0]));
    }
    let calls = 0;
    let fetched = 0;
    let highWater = initial && !resuming ? null : (state?.highWater ?? null);
    const previousHighWater = highWater;
    let earliestChange: Date | null = null;
    let pagesRead = resuming ? (state?.pagesRead ?? 0) : 0;
    let itemsRead = resuming ? (state?.itemsRead ?? 0) : 0;
    let itemsTotal = resuming ? (state?.itemsTotal ?? null) : null;
    if (initial && !resuming) {
      // Marked before anything is deleted or stored: until the last page is in, the cache is partial.
      await writeProgress(ctx.organizationId, def.resource, {
        initialReadAt: new Date(),
        pagesRead: 0,
        itemsRead: 0,
        itemsTotal: null,
        highWater: null,
      });
    }
    if (full) {
      await db
        .delete(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, ctx.organizationId),
            eq(xeroInvoices.type, def.type),
            inArray(xeroInvoices.status, def.initialStatuses),
            def.contactId ? eq(xeroInvoices.contactId, def.contactId) : sql`true`,
          ),
        );
    }
    for (;;) {
      const page = pageOfCursor;
      const readAt = new Date();
      const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Invoices',
        query: {
          page,
          pageSize: PAGE_SIZE,
          where: `Type=="${def.type}"`,
          Statuses: initial ? def.initialStatuses.join(',') : ALL_STATUSES,
          ContactIDs: def.contactId,
          order: 'UpdatedDateUTC ASC',
          ...(def.summaryOnly ? { summaryOnly: true } : {}),
        },
        ...(since ? { ifModifiedSince: since } : {}),
        schema: xeroInvoicesEnvelope,
      });
      calls += 1;
      if (status === 304 || !data) break;
      const rows = data.Invoices.map((inv) => toInvoiceRow(ctx.organizationId, inv));
      await upsertInvoices(ctx.organizationId, rows, readAt, { summaryOnly: def.summaryOnly });
      const fresh = rows.filter((r) => !recent.has(r.invoiceId.toLowerCase()));
      fetched += fresh.length;
      const highWaterBefore = highWater;
      for (const r of rows) {
        if (r.updatedUtc && (!highWater || r.updatedUtc > highWater)) highWater = r.updatedUtc;
        if (
          !initial &&
          r.updatedUtc &&
          previousHighWater &&
          r.updatedUtc > previousHighWater &&
          (!earliestChange || r.updatedUtc < earliestChange)
        )
          earliestChange = r.updatedUtc;
      }
      const lastSecond = (highWater?.getTime() ?? 0) - 1000;
      recent = new Map(
        [
          ...recent,
          ...rows.map((r) => [r.invoiceId.toLowerCase(), r.updatedUtc?.getTime() ?? 0] as const),
        ].filter(([, at]) => at >= lastSecond),
      );
      if (initial) {
        // Each page stored is recorded with the lease renewed, so a crash leaves where to carry on from.
        pagesRead += 1;
        itemsRead += fresh.length;
        // Xero's count of the whole view comes with the first answer; later answers count what follows the cursor.
        if (since === undefined) itemsTotal = data.pagination?.itemCount ?? itemsTotal;
        await writeProgress(ctx.organizationId, def.resource, {
          pagesRead,
          itemsRead,
          itemsTotal,
          highWater,
          leaseUntil: new Date(Date.now() + LEASE_MS),
        });
      }
      if (
        data.Invoices.length < PAGE_SIZE ||
        (data.pagination?.pageCount != null && page >= data.pagination.pageCount)
      )
        break;
      // The next rows follow the last one stored; a page all within the cursor's second goes on by page number.
      if (highWater && (!highWaterBefore || highWater > highWaterBefore)) {
        since = cursorOf(highWater);
        pageOfCursor = 1;
      } else pageOfCursor += 1;
      // More pages to come: whoever waits for the first one may go (a one-page read finishes first).
      hooks.onPageStored?.();
      if (hooks.shouldStop?.()) {
        // The server is stopping: the lease goes, the progress stays, and the next request carries on.
        await releaseLease(ctx.organizationId, def.resource, {});
        return { calls, fetched, full: initial };
      }
    }
    const now = new Date();
    await releaseLease(ctx.organizationId, def.resource, {
      highWater,
      lastSyncAt: now,
      ...(initial ? { lastFullSyncAt: now, initialReadAt: null, itemsTotal: itemsRead } : {}),
    });
    if (earliestChange) deps.onChangesRead?.(ctx, earliestChange);
    return { calls, fetched, full: initial };
  }

  return {
    /**
     * The organisation's invoice-cache version: database triggers move it on with every change to its cached
     * invoices and every forgotten view (migration 0005), so answers built from the cache can be kept under it.
     * Requests usually get it with their session (one query); this reads it after a sync.
     */
    async readCacheVersion(organizationId: number): Promise<number> {
      const [row] = await db
        .select({ version: xeroCacheVersions.version })
        .from(xeroCacheVersions)
        .where(eq(xeroCacheVersions.organizationId, organizationId));
      return row?.version ?? 0;
    },

    /**
     * Is a cached invoice, last described by Xero at `syncedAt`, as current as Xero's own news of it? Only while
     * Xero's webhooks keep the cache current (`mayUseCache`: live, read after webhooks began and after the last
     * trouble, no payment on its way) and no delivery naming the invoice waits to be applied. Without webhooks,
     * never: the caller asks Xero.
     */
    async isInvoiceKeptCurrent(ctx: SyncContext, invoiceId: string, syncedAt: Date): Promise<boolean> {
      if (!deps.mayUseCache) return false;
      const [waiting] = await db
        .select({ id: xeroWebhookEvents.id })
        .from(xeroWebhookEvents)
        .where(
          and(
            isNull(xeroWebhookEvents.processedAt),
            eq(xeroWebhookEvents.category, 'INVOICE'),
            sql`lower(${xeroWebhookEvents.tenantId}) = ${ctx.tenantId.toLowerCase()}`,
            sql`lower(${xeroWebhookEvents.resourceId}) = ${invoiceId.toLowerCase()}`,
          ),
        )
        .limit(1);
      if (waiting) return false;
      return deps.mayUseCache(ctx, syncedAt);
    },

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

    /**
     * First visit without the wait (issue 19): as `ensureInvoices`, but a read of the whole view answers once its
     * first page is stored (or, carrying on an unfinished one, its next page) and reads the rest in the
     * background under the view's lease, which each page renews: the read goes on when the browser leaves, a
     * second request or instance meanwhile reads nothing and gets the progress, and a crash leaves the progress
     * in the database for the next request to carry on from once the lease has run out. The cache is taken as
     * complete only after the last page.
     */
    async ensureInvoicesInBackground(ctx: SyncContext, view: InvoiceView): Promise<InvoiceSyncProgress> {
      const def = describeView(view);
      const key = `${ctx.organizationId}:${def.resource}`;
      const state = await readState(ctx.organizationId, def.resource);
      if (isComplete(state) || local.has(key) || isClosing) return describeProgress(state);
      // Another request or instance holds the lease: it is reading, and its progress is in the database.
      if (!(await acquireLease(ctx.organizationId, def.resource))) return describeProgress(state);
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
    },

    /** How far the view's read of the whole view has got (one query). */
    async readInvoiceProgress(ctx: SyncContext, view: InvoiceView): Promise<InvoiceSyncProgress> {
      return describeProgress(await readState(ctx.organizationId, describeView(view).resource));
    },

    /** Stops background reads after the page they are on (their progress stays for the next start). */
    async close(): Promise<void> {
      isClosing = true;
      await Promise.allSettled([...background.values()]);
    },

    /**
     * Re-reads one invoice from Xero into the cache; returns its row, or null when Xero has no such invoice.
     * One try: a person is waiting and the screens retry on their own (issue 17 item 18).
     */
    async refreshInvoice(ctx: SyncContext, invoiceId: string) {
      const readAt = new Date();
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: `/api.xro/2.0/Invoices/${encodeURIComponent(invoiceId)}`,
        schema: xeroInvoicesEnvelope,
        attempts: 1,
      });
      const inv = data.Invoices[0];
      if (!inv) return null;
      const row = toInvoiceRow(ctx.organizationId, inv);
      await upsertInvoices(ctx.organizationId, [row], readAt);
      return row;
    },

    /**
     * Re-reads the invoices a webhook named, in one call per 100 ids (`GET /Invoices?IDs=…`, paged so the lines
     * come too), into the cache under the newest-wins rule; ids Xero does not return are left alone. Answers
     * the rows Xero returned, in our vocabulary.
     */
    async refreshInvoicesByIds(
      ctx: SyncContext,
      invoiceIds: readonly string[],
    ): Promise<{ calls: number; rows: ReturnType<typeof toInvoiceRow>[] }> {
      const unique = [...new Set(invoiceIds.map((id) => id.toLowerCase()))];
      const rows: ReturnType<typeof toInvoiceRow>[] = [];
      let calls = 0;
      for (let i = 0; i < unique.length; i += WEBHOOK_IDS_PER_CALL) {
        const chunk = unique.slice(i, i + WEBHOOK_IDS_PER_CALL);
        const readAt = new Date();
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Invoices',
          query: { IDs: chunk.join(','), page: 1, pageSize: WEBHOOK_IDS_PER_CALL, Statuses: ALL_STATUSES },
          schema: xeroInvoicesEnvelope,
        });
        calls += 1;
        const chunkRows = data.Invoices.map((inv) => toInvoiceRow(ctx.organizationId, inv));
        if (chunkRows.length > 0) await upsertInvoices(ctx.organizationId, chunkRows, readAt);
        rows.push(...chunkRows);
      }
      return { calls, rows };
    },

    /** The contacts a webhook named, in one call per 100 ids; newest wins by Xero's UpdatedDateUTC. */
    async refreshContactsByIds(
      ctx: SyncContext,
      contactIds: readonly string[],
    ): Promise<{ calls: number; rows: ReturnType<typeof toContactRow>[] }> {
      const unique = [...new Set(contactIds.map((id) => id.toLowerCase()))];
      const rows: ReturnType<typeof toContactRow>[] = [];
      let calls = 0;
      for (let i = 0; i < unique.length; i += WEBHOOK_IDS_PER_CALL) {
        const chunk = unique.slice(i, i + WEBHOOK_IDS_PER_CALL);
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Contacts',
          query: { IDs: chunk.join(','), includeArchived: true },
          schema: xeroContactsEnvelope,
        });
        calls += 1;
        for (const c of data.Contacts) {
          const row = toContactRow(ctx.organizationId, c);
          await db
            .insert(xeroContacts)
            .values(row)
            .onConflictDoUpdate({
              target: [xeroContacts.organizationId, xeroContacts.contactId],
              set: row,
              setWhere: sql`${xeroContacts.updatedUtc} is null or excluded.updated_utc is null or excluded.updated_utc >= ${xeroContacts.updatedUtc}`,
            });
          rows.push(row);
        }
      }
      return { calls, rows };
    },

    /** Accounts (incremental with If-Modified-Since; bank, sales, cost and stock accounts all come from here). */
    syncAccounts(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'accounts', async () => {
        const state = await readState(ctx.organizationId, 'accounts');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'accounts', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const since = state?.highWater ? new Date(state.highWater.getTime() - 1000) : undefined;
        const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Accounts',
          ...(since ? { ifModifiedSince: since } : {}),
          schema: xeroAccountsEnvelope,
        });
        let highWater = state?.highWater ?? null;
        let fetched = 0;
        if (status !== 304 && data) {
          const rows = data.Accounts.map((a) => toAccountRow(ctx.organizationId, a));
          fetched = rows.length;
          for (const row of rows) {
            await db
              .insert(xeroAccounts)
              .values(row)
              .onConflictDoUpdate({
                target: [xeroAccounts.organizationId, xeroAccounts.accountId],
                set: row,
              });
            if (row.updatedUtc && (!highWater || row.updatedUtc > highWater)) highWater = row.updatedUtc;
          }
        }
        await releaseLease(ctx.organizationId, 'accounts', { highWater, lastSyncAt: new Date() });
        return { calls: 1, fetched, full: !since };
      });
    },

    /** Tax rates (not paged, no If-Modified-Since in Xero): fetched once, again only on request. */
    syncTaxRates(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'tax-rates', async () => {
        const state = await readState(ctx.organizationId, 'tax-rates');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'tax-rates', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/TaxRates',
          schema: xeroTaxRatesEnvelope,
        });
        await db.transaction(async (tx) => {
          await tx.delete(xeroTaxRates).where(eq(xeroTaxRates.organizationId, ctx.organizationId));
          if (data.TaxRates.length > 0) {
            await tx.insert(xeroTaxRates).values(
              data.TaxRates.map((t) => ({
                organizationId: ctx.organizationId,
                taxType: t.TaxType,
                name: t.Name,
                rate: String(Number(t.EffectiveRate ?? t.DisplayTaxRate ?? 0).toFixed(4)),
                status: t.Status,
                canApplyToRevenue: t.CanApplyToRevenue ?? false,
                canApplyToExpenses: t.CanApplyToExpenses ?? false,
              })),
            );
          }
        });
        await releaseLease(ctx.organizationId, 'tax-rates', { lastSyncAt: new Date() });
        return { calls: 1, fetched: data.TaxRates.length, full: true };
      });
    },

    /** Contacts (paged, If-Modified-Since) and contact groups (one call). Group membership comes from each contact. */
    syncContacts(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'contacts', async () => {
        const state = await readState(ctx.organizationId, 'contacts');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'contacts', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const since = state?.highWater ? new Date(state.highWater.getTime() - 1000) : undefined;
        let calls = 0;
        let fetched = 0;
        let highWater = state?.highWater ?? null;
        for (let page = 1; ; page += 1) {
          const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
            method: 'GET',
            path: '/api.xro/2.0/Contacts',
            query: { page, pageSize: PAGE_SIZE, includeArchived: true },
            ...(since ? { ifModifiedSince: since } : {}),
            schema: xeroContactsEnvelope,
          });
          calls += 1;
          if (status === 304 || !data) break;
          for (const c of data.Contacts) {
            const row = toContactRow(ctx.organizationId, c);
            await db
              .insert(xeroContacts)
              .values(row)
              .onConflictDoUpdate({
                target: [xeroContacts.organizationId, xeroContacts.contactId],
                set: row,
              });
            if (row.updatedUtc && (!highWater || row.updatedUtc > highWater)) highWater = row.updatedUtc;
          }
          fetched += data.Contacts.length;
          if (
            data.Contacts.length < PAGE_SIZE ||
            (data.pagination?.pageCount != null && page >= data.pagination.pageCount)
          )
            break;
        }
        const groups = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/ContactGroups',
          schema: xeroContactGroupsEnvelope,
        });
        calls += 1;
        await db.transaction(async (tx) => {
          await tx.delete(xeroContactGroups).where(eq(xeroContactGroups.organizationId, ctx.organizationId));
          if (groups.data.ContactGroups.length > 0) {
            await tx.insert(xeroContactGroups).values(
              groups.data.ContactGroups.map((g) => ({
                organizationId: ctx.organizationId,
                groupId: g.ContactGroupID,
                name: g.Name,
                status: g.Status,
                contactIds: (g.Contacts ?? []).map((c) => c.ContactID),
              })),
            );
          }
        });
        await releaseLease(ctx.organizationId, 'contacts', { highWater, lastSyncAt: new Date() });
        return { calls, fetched, full: !since };
      });
    },
  };
}
export type XeroSync = ReturnType<typeof createXeroSync>;
