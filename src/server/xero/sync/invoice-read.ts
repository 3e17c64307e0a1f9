import { and, eq, getTableColumns, inArray, lt, sql } from 'drizzle-orm';
import { xeroInvoices } from '../../db/schema/index';
import { xeroInvoicesEnvelope } from '../xero-http/schemas';
import {
  ALL_STATUSES,
  IDS_PER_CALL,
  PAGE_SIZE,
  type SyncContext,
  type SyncResult,
  type XeroSyncDeps,
} from './context';
import { describeView, type InvoiceView } from './invoice-views';
import { toInvoiceRow } from './mappers';
import { LEASE_MS, type SyncState } from './sync-state';

/**
 * The moment a call was sent, on Xero's clock, or earlier: Xero's answer is dated (`Date`, whole seconds, rounded
 * down) after it read its data, and that read came after the call was sent, so going back from the date by the
 * whole time the call took (retries and waits included) never lands after the read. Null without a usable date.
 */
export function xeroTimeSent(
  headers: Headers | undefined,
  sentAt: Date,
  answeredAt = new Date(),
): Date | null {
  const dated = Date.parse(headers?.get('date') ?? '');
  if (!Number.isFinite(dated)) return null;
  return new Date(dated - Math.max(0, answeredAt.getTime() - sentAt.getTime()));
}

const INVOICE_COLUMNS = Object.entries(getTableColumns(xeroInvoices)).map(([key, column]) => ({
  key: key as keyof typeof xeroInvoices.$inferInsert,
  name: column.name,
}));

/** An invoice row keyed by its columns' names, as `json_populate_recordset` reads it. */
function toColumnRecord(row: typeof xeroInvoices.$inferInsert): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const { key, name } of INVOICE_COLUMNS) record[name] = row[key];
  return record;
}

/**
 * The newest-wins upsert as one statement per 500 rows, the rows as one JSON parameter: Postgres unpacks them
 * (`json_populate_recordset`), where building a statement of 25 parameters a row cost the first visit about
 * 0.3 s of the server's thread per 250 invoices, cold (issue 32). `head` + rows + `middle` + the read's time
 * + `tail`. A summaryOnly answer carries no lines or payments (docs/xero-api.md §4.1): what was known of them
 * stays, and `paymentsKnown` (src/shared/invoice-payments.ts) tells a complete payments list from one that is not.
 */
function buildUpsert(summaryOnly: boolean) {
  const names = INVOICE_COLUMNS.map((c) => `"${c.name}"`).join(', ');
  const keep = new Set(['organization_id', 'invoice_id', ...(summaryOnly ? ['lines', 'payments'] : [])]);
  const set = INVOICE_COLUMNS.filter((c) => !keep.has(c.name))
    .map((c) => `"${c.name}" = excluded."${c.name}"`)
    .join(', ');
  return {
    head: `insert into xero_invoices (${names}) select ${names} from json_populate_recordset(null::xero_invoices, `,
    middle: `::json) on conflict (organization_id, invoice_id) do update set ${set} where xero_invoices.updated_utc is null or excluded.updated_utc is null or excluded.updated_utc >= xero_invoices.updated_utc or xero_invoices.synced_at <= `,
    tail: '::timestamptz',
  };
}
const UPSERT_WHOLE = buildUpsert(false);
const UPSERT_SUMMARIES = buildUpsert(true);

/** What a read of the whole view tells its starter as it goes, and whether it should stop between pages. */
interface ReadHooks {
  onPageStored?: () => void;
  shouldStop?: () => boolean;
  /** Rows asked for in the first page of a read of the whole view started afresh (then PAGE_SIZE). */
  firstPageSize?: number;
}

/**
 * Reads an invoice view from Xero into the cache: a read of the whole view (the first, a forced refresh, or one
 * carried on after a crash) or the invoices changed since the view's high-water mark, and the newest-wins
 * upsert every read of invoices writes through.
 */
export function createInvoiceRead(
  deps: Pick<XeroSyncDeps, 'db' | 'http' | 'onChangesRead'>,
  { readState, releaseLease, writeProgress }: SyncState,
) {
  const { db, http } = deps;
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
    const statement = options.summaryOnly ? UPSERT_SUMMARIES : UPSERT_WHOLE;
    for (let i = 0; i < invoices.length; i += 500) {
      const rows = invoices.slice(i, i + 500).map((invoice) => {
        if (invoice.organizationId !== organizationId)
          throw new Error('an invoice row of another organisation was given to upsertInvoices');
        return toColumnRecord(invoice);
      });
      await db.execute(
        sql`${sql.raw(statement.head)}${JSON.stringify(rows)}${sql.raw(statement.middle)}${readAt.toISOString()}${sql.raw(statement.tail)}`,
      );
    }
  }

  /**
   * Reads the named invoices from Xero, one call per IDS_PER_CALL ids (`GET /Invoices?IDs=…`, paged so the lines
   * come too), into the cache under the newest-wins rule; ids Xero does not return are left to the caller.
   * Answers the calls made and the rows Xero returned, in our vocabulary.
   */
  async function readInvoicesByIds(
    ctx: SyncContext,
    invoiceIds: readonly string[],
  ): Promise<{ calls: number; rows: ReturnType<typeof toInvoiceRow>[] }> {
    const unique = [...new Set(invoiceIds.map((id) => id.toLowerCase()))];
    const rows: ReturnType<typeof toInvoiceRow>[] = [];
    let calls = 0;
    for (let i = 0; i < unique.length; i += IDS_PER_CALL) {
      const chunk = unique.slice(i, i + IDS_PER_CALL);
      const readAt = new Date();
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Invoices',
        query: { IDs: chunk.join(','), page: 1, pageSize: IDS_PER_CALL, Statuses: ALL_STATUSES },
        schema: xeroInvoicesEnvelope,
      });
      calls += 1;
      const chunkRows = data.Invoices.map((inv) => toInvoiceRow(ctx.organizationId, inv));
      if (chunkRows.length > 0) await upsertInvoices(ctx.organizationId, chunkRows, readAt);
      rows.push(...chunkRows);
    }
    return { calls, rows };
  }

  /**
   * After a read of the whole view, the invoices the cache holds in the view's statuses that neither the read
   * nor anything since it began (`began`) wrote: Xero did not list them in those statuses, so the cache's copy
   * is older than Xero's. They were written by something other than a read of this view (a write's answer, a
   * read of one invoice, another view, a restored backup), and a later "what changed?" read would not bring
   * them back, as their change may predate the read. Each is read again by id (one call per IDS_PER_CALL; none
   * on a first visit of an empty cache); one Xero no longer has leaves the cache. Answers the calls made.
   */
  async function recheckUnlisted(
    ctx: SyncContext,
    def: ReturnType<typeof describeView>,
    began: Date,
  ): Promise<number> {
    const unlisted = and(
      eq(xeroInvoices.organizationId, ctx.organizationId),
      eq(xeroInvoices.type, def.type),
      inArray(xeroInvoices.status, def.initialStatuses),
      def.contactId ? eq(xeroInvoices.contactId, def.contactId) : sql`true`,
      lt(xeroInvoices.syncedAt, began),
    );
    const ids = (await db.select({ id: xeroInvoices.invoiceId }).from(xeroInvoices).where(unlisted)).map(
      (r) => r.id,
    );
    const { calls, rows } = await readInvoicesByIds(ctx, ids);
    const answered = new Set(rows.map((r) => r.invoiceId.toLowerCase()));
    const gone = ids.filter((id) => !answered.has(id.toLowerCase()));
    for (let i = 0; i < gone.length; i += 500)
      await db
        .delete(xeroInvoices)
        .where(and(unlisted, inArray(xeroInvoices.invoiceId, gone.slice(i, i + 500))));
    return calls;
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
    /**
     * When a read of the whole view began, on Xero's clock (its first answer's `Date`, less the time the call
     * took): the view's high-water mark once the read is done, so the next "what changed?" asks only for what
     * changed since the view was read, not for every invoice of its type changed since the newest one in the
     * view (for the drafts, weeks of payments on other invoices: issue 32). Null when Xero sent no date.
     */
    let readBegan: Date | null = null;
    let highWater = initial && !resuming ? null : (state?.highWater ?? null);
    const previousHighWater = highWater;
    let earliestChange: Date | null = null;
    let pagesRead = resuming ? (state?.pagesRead ?? 0) : 0;
    let itemsRead = resuming ? (state?.itemsRead ?? 0) : 0;
    let itemsTotal = resuming ? (state?.itemsTotal ?? null) : null;
    let pageSize = initial && !resuming && hooks.firstPageSize ? hooks.firstPageSize : PAGE_SIZE;
    /** When this read of the whole view began (carried on after a crash: when the first part began). */
    const wholeReadBegan = resuming ? (state?.initialReadAt ?? new Date(0)) : new Date();
    if (initial && !resuming) {
      // Marked before anything is deleted or stored: until the last page is in, the cache is partial.
      await writeProgress(ctx.organizationId, def.resource, {
        initialReadAt: wholeReadBegan,
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
      const firstOfWholeRead = initial && !resuming && since === undefined && page === 1;
      const { data, status, headers } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Invoices',
        query: {
          page,
          pageSize,
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
      if (firstOfWholeRead) readBegan = xeroTimeSent(headers, readAt);
      if (status === 304 || !data) break;
      const rows = data.Invoices.map((inv) => toInvoiceRow(ctx.organizationId, inv));
      if (firstOfWholeRead && readBegan)
        for (const r of rows) if (r.updatedUtc && r.updatedUtc > readBegan) readBegan = r.updatedUtc;
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
        data.Invoices.length < pageSize ||
        (data.pagination?.pageCount != null && page >= data.pagination.pageCount)
      )
        break;
      // After a smaller first page the walk goes on from its cursor at PAGE_SIZE (page numbers of another size
      // would not line up).
      const wasSmaller = pageSize !== PAGE_SIZE;
      pageSize = PAGE_SIZE;
      // The next rows follow the last one stored; a page all within the cursor's second goes on by page number.
      if (wasSmaller || (highWater && (!highWaterBefore || highWater > highWaterBefore))) {
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
    // The view is whole only once what the cache holds in it and Xero did not list is read again.
    if (initial) calls += await recheckUnlisted(ctx, def, wholeReadBegan);
    const now = new Date();
    await releaseLease(ctx.organizationId, def.resource, {
      highWater: readBegan ?? highWater,
      lastSyncAt: now,
      ...(initial ? { lastFullSyncAt: now, initialReadAt: null, itemsTotal: itemsRead } : {}),
    });
    if (earliestChange) deps.onChangesRead?.(ctx, earliestChange);
    return { calls, fetched, full: initial };
  }

  return { upsertInvoices, readInvoicesByIds, syncInvoicesNow };
}
export type InvoiceRead = ReturnType<typeof createInvoiceRead>;
