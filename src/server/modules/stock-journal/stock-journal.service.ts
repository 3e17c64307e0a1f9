import { convertXeroDate } from '../../../shared/dates';
import { fromPence, formatMoney, roundPoundsToPence } from '../../../shared/money';
import {
  ALL_CUSTOMERS,
  getJournalAmountPence,
  getStockJournalKey,
  getStockJournalReference,
  getWeeklySalesRange,
  groupSalesByWeek,
  isJournalPeriod,
  JOURNAL_SERVER_MESSAGES,
  parseStockJournalReference,
  type Customer,
  type JournalCreateRequest,
  type JournalCreateResponse,
  type SalesLineInput,
  type SalesPeriod,
  type SalesQuery,
  type StockJournalEntry,
} from '../../../shared/stock-journal';
import { AppError } from '../../lib/app-error';
import type { BodyCache, CachedBody } from '../../lib/body-cache';
import type { TenantContext } from '../organizations/tenancy';
import type { AuditLog } from '../audit/audit';
import type { XeroSync } from '../../xero/sync/sync.service';
import { toDateOrNull, toPenceFromXero } from '../../xero/sync/mappers';
import type { WriteLedger, WriteOutcome, WriteRow } from '../../xero/write-ledger';
import type { XeroHttp } from '../../xero/xero-http/http';
import { xeroInvoicesEnvelope } from '../../xero/xero-http/schemas';
import {
  buildManualJournalBody,
  whereJournalByNarration,
  whereSalesInRange,
  xeroManualJournalsEnvelope,
  type StockTransferJournal,
  type XeroManualJournal,
} from '../../xero/xero-http/stock-journal';
import type { XeroContext } from '../../xero/xero-port';
import { MANUAL_JOURNALS_RESOURCE, SALES_STATUSES, type SalesInvoiceRow, type StockJournalEntryRow, type StockJournalRepository } from './stock-journal.repository';

/** The kind the write ledger files journal creations under (and finds lost ones by). */
export const JOURNAL_WRITE_KIND = 'journal.create';
/** An entry's status while its journal is being sent, or when Xero's answer was lost. */
export const PENDING_STATUS = 'PENDING';
/** A write still in flight is left alone this long before its outcome is looked up in Xero. */
const IN_FLIGHT_MS = 2 * 60_000;
const PAGE_SIZE = 1000;
const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Texts the client maps by keyword (001 §8 "Invalid Journal Data"). */
export const JOURNAL_MESSAGES = JOURNAL_SERVER_MESSAGES;

/** What the write ledger stores for a journal creation: enough for the finder to look it up again. */
interface JournalWriteRequest extends StockTransferJournal {
  periodStart: string;
  periodEnd: string;
  netPence: number;
  marginRate: number;
}

export interface StockJournalServiceDeps {
  repo: StockJournalRepository;
  sync: XeroSync;
  http: XeroHttp;
  ledger: WriteLedger;
  audit: AuditLog;
  /** Serialised weekly sales per organisation, customer, weeks and cache version. */
  bodies: BodyCache;
  /** Makes sure the user's Xero token is usable before a write is recorded (a refused token is no unknown outcome). */
  checkToken: (userId: number) => Promise<unknown>;
}

function toSyncContext(tenant: TenantContext) {
  return { organizationId: tenant.organizationId, tenantId: tenant.tenantId, userId: tenant.user.id };
}

/** Invoice rows to the grouping's lines: gross = Total, VAT = TotalTax, net = SubTotal, as Xero computed them. */
export function buildSalesPeriods(rows: readonly SalesInvoiceRow[]): SalesPeriod[] {
  const lines: SalesLineInput[] = rows.map((r) => ({
    customerName: r.contactName,
    invoiceNumber: r.invoiceNumber,
    date: r.date,
    grossAmount: fromPence(r.totalPence),
    vatAmount: fromPence(r.totalTaxPence),
    netAmount: fromPence(r.subTotalPence),
  }));
  return groupSalesByWeek(lines);
}

/** An entry as the client reads it (001 §3), status in lower case ("draft", "posted", "pending"…). */
export function toEntryDto(row: StockJournalEntryRow): StockJournalEntry {
  // Journals adopted from Xero carry no rate: their net is unknown, not zero.
  const known = row.marginRate !== '';
  return {
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    journalId: row.journalId,
    status: row.status.toLowerCase(),
    amount: fromPence(row.amountPence),
    netAmount: known ? fromPence(row.netPence) : null,
    marginRate: known ? Number(row.marginRate) : null,
    reference: row.reference,
  };
}

function toJournalOutcome(journal: XeroManualJournal, fallbackStatus: string): WriteOutcome<JournalCreateResponse> {
  return { xeroId: journal.ManualJournalID, response: { journalId: journal.ManualJournalID, status: journal.Status ?? fallbackStatus } };
}

/** The debit side of a journal, in pence (an adopted journal's amount). */
function getDebitPence(journal: XeroManualJournal): number {
  return (journal.JournalLines ?? []).reduce((sum, l) => {
    const pence = toPenceFromXero(l.LineAmount);
    return pence > 0 ? sum + pence : sum;
  }, 0);
}

/**
 * Stock Journal (001 Stock Journal; DESIGN §4): weekly sales from the invoice cache, the local entries of
 * posted journals, journal creation through the write ledger, and the status sync with Xero.
 */
export function createStockJournalService(deps: StockJournalServiceDeps) {
  const { repo, sync, http, ledger, audit, bodies } = deps;
  const statusSyncs = new Map<number, Promise<{ updatedCount: number }>>();

  /** Looks a journal up in Xero by narration and date: how a create whose answer was lost is found. */
  async function findJournal(ctx: XeroContext, narration: string, date: string): Promise<XeroManualJournal | null> {
    const { data } = await http.send(ctx.userId, ctx.tenantId, {
      method: 'GET',
      path: '/api.xro/2.0/ManualJournals',
      query: { where: whereJournalByNarration(narration, date) },
      schema: xeroManualJournalsEnvelope,
    });
    return data.ManualJournals.find((j) => j.Status !== 'DELETED' && j.Status !== 'VOIDED') ?? null;
  }

  /** The write ledger's finder for 'journal.create'. */
  async function findJournalWrite(ctx: XeroContext, row: WriteRow): Promise<WriteOutcome<unknown> | null> {
    const request = row.request as JournalWriteRequest;
    const found = await findJournal(ctx, request.narration, request.date);
    return found ? toJournalOutcome(found, request.status) : null;
  }

  /** Every customer's sales in a range, read from Xero directly (the invoice cache keeps one customer per view). */
  async function fetchAllCustomerSales(tenant: TenantContext, fromDate: string, toDate: string): Promise<SalesInvoiceRow[]> {
    const rows: SalesInvoiceRow[] = [];
    for (let page = 1; ; page += 1) {
      const { data } = await http.send(tenant.user.id, tenant.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Invoices',
        query: { page, pageSize: PAGE_SIZE, where: whereSalesInRange(fromDate, toDate), Statuses: SALES_STATUSES.join(','), order: 'Date ASC' },
        schema: xeroInvoicesEnvelope,
      });
      for (const inv of data.Invoices) {
        const date = convertXeroDate(inv.Date);
        if (!date || date < fromDate || date > toDate) continue;
        rows.push({
          invoiceNumber: inv.InvoiceNumber ?? null,
          contactName: inv.Contact?.Name ?? null,
          date,
          totalPence: toPenceFromXero(inv.Total),
          totalTaxPence: toPenceFromXero(inv.TotalTax),
          subTotalPence: toPenceFromXero(inv.SubTotal),
        });
      }
      if (data.Invoices.length < PAGE_SIZE) break;
    }
    return rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }

  function buildWriteSpec(tenant: TenantContext, request: JournalWriteRequest, idempotencyKey: string) {
    return {
      organizationId: tenant.organizationId,
      tenantId: tenant.tenantId,
      userId: tenant.user.id,
      kind: JOURNAL_WRITE_KIND,
      targetId: getStockJournalKey(request.periodStart, request.periodEnd),
      amountPence: request.amountPence,
      idempotencyKey,
      request,
      send: async (key: string): Promise<WriteOutcome<JournalCreateResponse>> => {
        const { data } = await http.send(tenant.user.id, tenant.tenantId, {
          method: 'PUT',
          path: '/api.xro/2.0/ManualJournals',
          body: buildManualJournalBody(request),
          idempotencyKey: key,
          schema: xeroManualJournalsEnvelope,
        });
        const journal = data.ManualJournals[0];
        if (!journal) throw new AppError('XERO_UNAVAILABLE', JOURNAL_MESSAGES.noAnswer);
        return toJournalOutcome(journal, request.status);
      },
    };
  }

  /** A post whose period is already taken: the same action retried (same key) replays; anything else is a 409. */
  async function handleTakenPeriod(tenant: TenantContext, request: JournalWriteRequest, idempotencyKey: string | undefined) {
    if (idempotencyKey) {
      // The first request may have claimed the period a moment before recording its write.
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const write = await repo.findJournalWrite(tenant.organizationId, idempotencyKey);
        if (write) {
          if (write.targetId !== getStockJournalKey(request.periodStart, request.periodEnd)) break;
          const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey));
          return outcome.response;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new AppError('CONFLICT', JOURNAL_MESSAGES.alreadyExists);
  }

  /**
   * The ledger row of a pending entry: by its id once known, else the period's newest write made after the
   * entry (an older write of the period belongs to an earlier, settled post).
   */
  async function findEntryWrite(organizationId: number, entry: StockJournalEntryRow): Promise<WriteRow | null> {
    if (entry.writeId) return repo.findWriteById(organizationId, entry.writeId);
    const latest = await repo.findLatestWriteForPeriod(organizationId, getStockJournalKey(entry.periodStart, entry.periodEnd));
    return latest && latest.createdAt >= entry.createdAt ? latest : null;
  }

  async function settlePendingEntry(tenant: TenantContext, entry: StockJournalEntryRow): Promise<'updated' | 'removed' | 'waiting'> {
    const write = await findEntryWrite(tenant.organizationId, entry);
    if (write?.state === 'confirmed' && write.xeroId) {
      const response = write.response as JournalCreateResponse | null;
      await repo.updateEntry(tenant.organizationId, entry.id, { journalId: write.xeroId, status: response?.status ?? 'DRAFT', writeId: write.id });
      return 'updated';
    }
    const since = write?.sentAt ?? write?.createdAt ?? entry.createdAt;
    const inFlight = (!write || write.state === 'pending' || write.state === 'sent') && Date.now() - since.getTime() < IN_FLIGHT_MS;
    if (inFlight) return 'waiting';
    const request = write?.request as JournalWriteRequest | undefined;
    const found = await findJournal({ userId: tenant.user.id, tenantId: tenant.tenantId }, entry.reference, request?.date ?? entry.periodEnd);
    if (found) {
      await repo.updateEntry(tenant.organizationId, entry.id, { journalId: found.ManualJournalID, status: found.Status ?? 'DRAFT' });
      return 'updated';
    }
    // Xero does not have it: the post never happened, so the period is free to post again.
    await repo.deleteEntry(tenant.organizationId, entry.id);
    return 'removed';
  }

  async function syncStatusNow(tenant: TenantContext): Promise<{ updatedCount: number }> {
    const orgId = tenant.organizationId;
    const changes: Array<{ period: string; from: string; to: string; journalId: string | null }> = [];

    for (const entry of await repo.listEntries(orgId)) {
      if (entry.status !== PENDING_STATUS) continue;
      const result = await settlePendingEntry(tenant, entry);
      if (result !== 'waiting') {
        changes.push({ period: getStockJournalKey(entry.periodStart, entry.periodEnd), from: PENDING_STATUS, to: result === 'removed' ? 'NONE' : 'FOUND', journalId: entry.journalId });
      }
    }

    // One pass over the journals Xero changed since the last look (If-Modified-Since), usually one call.
    const highWater = await repo.readHighWater(orgId, MANUAL_JOURNALS_RESOURCE);
    const since = highWater ? new Date(highWater.getTime() - 1000) : undefined;
    let newHighWater = highWater;
    const entries = await repo.listEntries(orgId);
    const byJournal = new Map(entries.filter((e) => e.journalId).map((e) => [e.journalId?.toLowerCase() ?? '', e]));
    const byPeriod = new Map(entries.map((e) => [getStockJournalKey(e.periodStart, e.periodEnd), e]));
    for (let page = 1; ; page += 1) {
      const { data, status } = await http.send(tenant.user.id, tenant.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/ManualJournals',
        query: { page, pageSize: PAGE_SIZE, order: 'UpdatedDateUTC ASC' },
        ...(since ? { ifModifiedSince: since } : {}),
        schema: xeroManualJournalsEnvelope,
      });
      if (status === 304 || !data) break;
      for (const journal of data.ManualJournals) {
        const updated = toDateOrNull(journal.UpdatedDateUTC);
        if (updated && (!newHighWater || updated > newHighWater)) newHighWater = updated;
        const xeroStatus = journal.Status ?? '';
        const entry = byJournal.get(journal.ManualJournalID.toLowerCase());
        if (entry) {
          if (entry.status === xeroStatus) continue;
          const period = getStockJournalKey(entry.periodStart, entry.periodEnd);
          if (xeroStatus === 'DELETED' || xeroStatus === 'VOIDED') {
            // A deleted or voided journal no longer records the transfer: the period may be posted again.
            await repo.deleteEntry(orgId, entry.id);
            byPeriod.delete(period);
          } else {
            await repo.updateEntry(orgId, entry.id, { status: xeroStatus });
          }
          byJournal.delete(journal.ManualJournalID.toLowerCase());
          changes.push({ period, from: entry.status, to: xeroStatus, journalId: journal.ManualJournalID });
          continue;
        }
        // A stock transfer journal posted outside Ledgerlink: adopt it, so its period is not posted twice.
        const period = parseStockJournalReference(journal.Narration);
        if (!period || (xeroStatus !== 'DRAFT' && xeroStatus !== 'POSTED')) continue;
        const key = getStockJournalKey(period.periodStart, period.periodEnd);
        if (byPeriod.has(key)) continue;
        const adopted = await repo.claimPeriod({
          organizationId: orgId,
          customerId: null,
          periodStart: period.periodStart,
          periodEnd: period.periodEnd,
          journalId: journal.ManualJournalID,
          status: xeroStatus,
          netPence: 0,
          amountPence: getDebitPence(journal),
          marginRate: '',
          reference: journal.Narration ?? getStockJournalReference(period.periodStart, period.periodEnd),
          userId: tenant.user.id,
        });
        if (adopted) {
          byPeriod.set(key, adopted);
          byJournal.set(journal.ManualJournalID.toLowerCase(), adopted);
          changes.push({ period: key, from: 'NONE', to: xeroStatus, journalId: journal.ManualJournalID });
        }
      }
      if (data.ManualJournals.length < PAGE_SIZE) break;
    }
    await repo.writeHighWater(orgId, MANUAL_JOURNALS_RESOURCE, newHighWater);
    if (changes.length > 0) {
      await audit.record({
        userId: tenant.user.id,
        username: tenant.user.username,
        organizationId: orgId,
        action: 'stock-journal.sync-status',
        target: `${changes.length} journal(s)`,
        result: 'success',
        detail: { changes },
      });
    }
    return { updatedCount: changes.length };
  }

  return {
    findJournalWrite,

    /** Customers for the filter (001 §2), from the contacts cache (synced once, again on `refresh`). */
    async listCustomers(tenant: TenantContext, options: { refresh?: boolean } = {}): Promise<Customer[]> {
      await sync.syncContacts(toSyncContext(tenant), { force: options.refresh === true });
      return repo.listCustomers(tenant.organizationId, tenant.organization.defaultStockJournalContactId);
    },

    /**
     * Weekly periods (001 §2, §3) of whole Monday–Sunday weeks around the range. For one customer, from the
     * invoice cache (`refresh` first brings it up to date: one call, answered 304 when nothing changed).
     */
    async getSales(tenant: TenantContext, query: SalesQuery): Promise<SalesPeriod[]> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      if (!customerId) return buildSalesPeriods(await fetchAllCustomerSales(tenant, range.fromDate, range.toDate));
      if (!GUID_RE.test(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      if (query.refresh === 'true') await sync.syncInvoices(toSyncContext(tenant), view);
      else await sync.ensureInvoices(toSyncContext(tenant), view);
      return buildSalesPeriods(await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate));
    },

    /**
     * One customer's weekly sales (as `getSales`), serialised and kept under the organisation's invoice-cache
     * version, so a repeated read is answered without reading or grouping the invoices again. Null for every
     * customer at once: that is read from Xero itself, never from the cache.
     */
    async getSalesBody(tenant: TenantContext, query: SalesQuery): Promise<CachedBody | null> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      if (!customerId) return null;
      if (!GUID_RE.test(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      const refresh = query.refresh === 'true';
      if (refresh) await sync.syncInvoices(toSyncContext(tenant), view);
      const version = refresh || tenant.cacheVersion === undefined ? await sync.readCacheVersion(tenant.organizationId) : tenant.cacheVersion;
      return bodies.get(`sales:${tenant.organizationId}:${view.contactId}:${range.fromDate}:${range.toDate}`, version, async () => {
        await sync.ensureInvoices(toSyncContext(tenant), view);
        return buildSalesPeriods(await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate));
      });
    },

    /**
     * The organisation's entries (001 §3). A pending entry whose write the ledger has since settled (its
     * reconciler runs every minute) takes that outcome here, from the database alone.
     */
    async listEntries(tenant: TenantContext): Promise<StockJournalEntry[]> {
      const rows = await repo.listEntries(tenant.organizationId);
      const out: StockJournalEntry[] = [];
      for (const row of rows) {
        if (row.status === PENDING_STATUS) {
          const write = await findEntryWrite(tenant.organizationId, row);
          if (write?.state === 'confirmed' && write.xeroId) {
            const response = write.response as JournalCreateResponse | null;
            const updated = await repo.updateEntry(tenant.organizationId, row.id, { journalId: write.xeroId, status: response?.status ?? 'DRAFT', writeId: write.id });
            if (updated) out.push(toEntryDto(updated));
            continue;
          }
          if (row.writeId && write?.state === 'failed') {
            // Settled as "Xero does not have it" by the ledger's lookup: the period is free again.
            await repo.deleteEntry(tenant.organizationId, row.id);
            continue;
          }
        }
        out.push(toEntryDto(row));
      }
      return out;
    },

    /**
     * Posts the stock transfer journal of a period (DESIGN §4): net sales re-read from the cache must match
     * what the user saw; cost = net ÷ margin rate to the penny; debit cost, credit stock, dated in the
     * period; DRAFT or POSTED from the organisation's setting. One journal per period (409 otherwise),
     * claimed before anything is sent; the write goes through the ledger with the action's idempotency key.
     */
    async createJournal(
      tenant: TenantContext,
      body: JournalCreateRequest,
      options: { idempotencyKey?: string | undefined; ip?: string | null } = {},
    ): Promise<JournalCreateResponse> {
      const orgId = tenant.organizationId;
      const { periodStart, periodEnd } = body;
      const periodKey = getStockJournalKey(periodStart, periodEnd);
      if (!isJournalPeriod(periodStart, periodEnd)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.badPeriod);
      if (body.stockAccountId.toLowerCase() === body.costAccountId.toLowerCase()) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.sameAccounts);
      if (!GUID_RE.test(body.contactId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const contactId = body.contactId.toLowerCase();
      if (!(await repo.findContact(orgId, contactId)) && (await repo.hasSynced(orgId, 'contacts'))) {
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      }
      // The server is the authority on money: the net comes from Xero's figures in the cache, not the browser.
      await sync.ensureInvoices(toSyncContext(tenant), { key: 'sales-contact', contactId });
      const netPence = await repo.sumNetPence(orgId, contactId, periodStart, periodEnd);
      if (netPence !== roundPoundsToPence(body.netAmount)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.salesChanged);
      const amountPence = getJournalAmountPence(netPence, body.marginRate);
      if (amountPence === null || amountPence <= 0) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.zeroAmount);

      const narration = getStockJournalReference(periodStart, periodEnd);
      const status = tenant.organization.defaultStockJournalPostingStatus === 'posted' ? 'POSTED' : 'DRAFT';
      const request: JournalWriteRequest = {
        periodStart,
        periodEnd,
        netPence,
        marginRate: body.marginRate,
        narration,
        date: body.journalDate ?? periodEnd,
        status,
        amountPence,
        costAccountId: body.costAccountId,
        stockAccountId: body.stockAccountId,
        costDescription: `Cost of sales: net sales ${formatMoney(netPence)} ÷ ${body.marginRate}`,
        stockDescription: 'Transfer from stock',
      };
      // A token Xero will refuse is found out here, before anything is recorded as sent.
      await deps.checkToken(tenant.user.id);

      const auditBase = {
        userId: tenant.user.id,
        username: tenant.user.username,
        organizationId: orgId,
        action: 'stock-journal.create',
        target: narration,
        ip: options.ip ?? null,
      };
      const entry = await repo.claimPeriod({
        organizationId: orgId,
        customerId: contactId,
        periodStart,
        periodEnd,
        journalId: null,
        status: PENDING_STATUS,
        netPence,
        amountPence,
        marginRate: String(body.marginRate),
        reference: narration,
        userId: tenant.user.id,
      });
      if (!entry) return handleTakenPeriod(tenant, request, options.idempotencyKey);

      try {
        const outcome = await ledger.execute(buildWriteSpec(tenant, request, options.idempotencyKey ?? crypto.randomUUID()));
        const journalStatus = outcome.response.status || status;
        await repo.updateEntry(orgId, entry.id, { journalId: outcome.xeroId ?? outcome.response.journalId ?? null, status: journalStatus, writeId: outcome.writeId });
        await audit.record({
          ...auditBase,
          result: 'success',
          detail: { period: periodKey, journalId: outcome.xeroId, status: journalStatus, netPence, amountPence, marginRate: body.marginRate, date: request.date },
        });
        return { journalId: outcome.xeroId ?? outcome.response.journalId ?? null, status: journalStatus.toLowerCase() };
      } catch (error) {
        const writeState = error instanceof AppError ? error.extra?.writeState : undefined;
        const writeId = error instanceof AppError ? error.extra?.writeId : undefined;
        if (writeState === 'unknown' || writeState === 'sent' || writeState === 'pending') {
          // Xero may have it: keep the period claimed ("Journal Status Unclear") until the status sync looks it up.
          if (typeof writeId === 'number') await repo.updateEntry(orgId, entry.id, { writeId });
        } else {
          await repo.deleteEntry(orgId, entry.id);
        }
        await audit.record({
          ...auditBase,
          result: 'failure',
          detail: { period: periodKey, error: error instanceof Error ? error.message : String(error), writeState: writeState ?? 'failed' },
        });
        throw error;
      }
    },

    /** Re-reads the journals from Xero and updates local statuses (001 §7 sync-status); one run per organisation at a time. */
    syncStatus(tenant: TenantContext): Promise<{ updatedCount: number }> {
      const running = statusSyncs.get(tenant.organizationId);
      if (running) return running;
      const promise = syncStatusNow(tenant).finally(() => statusSyncs.delete(tenant.organizationId));
      statusSyncs.set(tenant.organizationId, promise);
      return promise;
    },
  };
}
export type StockJournalService = ReturnType<typeof createStockJournalService>;
