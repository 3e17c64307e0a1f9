import crypto from 'node:crypto';
import { fromPence, formatMoney, roundPoundsToPence } from '../../../shared/money';
import { isXeroId } from '../../../shared/input';
import {
  ALL_CUSTOMERS,
  getJournalAmountPence,
  getJournalPeriodLabel,
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
import { explainUnconfirmed } from '../../xero/write-failure';
import type { BodyCache, CachedBody } from '../../lib/body-cache';
import type { RequestContext } from '../organizations/tenancy';
import type { AuditLog } from '../audit/audit';
import type { XeroSync } from '../../xero/sync/sync.service';
import {
  isLiveJournal,
  type Journal,
  type JournalsPort,
  type SaleInvoice,
  type SalesPort,
  type StockTransferJournal,
  type XeroContext,
} from '../../xero/xero-port';
import {
  describeBusyDocument,
  HELD_USER_GONE,
  isOpenWriteState,
  MAX_IN_FLIGHT_MS,
  type DocumentRef,
  type RetryActor,
  type WriteKind,
  type WriteLedger,
  type WriteOutcome,
  type WriteRow,
  hasWriteMark,
  withoutWriteMark,
  withWriteMark,
} from '../../xero/write-ledger';
import {
  MANUAL_JOURNALS_RESOURCE,
  type NewStockJournalEntry,
  type StockJournalEntryRow,
  type StockJournalRepository,
} from './stock-journal.repository';

/** The kind the write ledger files journal creations under (and finds lost ones by). */
export const JOURNAL_WRITE_KIND = 'journal.create' as const satisfies WriteKind;
/** An entry's status while its journal is being sent, or when Xero's answer was lost. */
export const PENDING_STATUS = 'PENDING';

/** Texts the client maps by keyword (docs/product/features.md §8 "Invalid Journal Data"). */
export const JOURNAL_MESSAGES = {
  ...JOURNAL_SERVER_MESSAGES,
  /** A create Xero did not apply (its answer failed, and a look-up found nothing): nothing is held. */
  notPosted:
    'Xero did not create the journal, so nothing was posted for this period. Please try again in a few minutes.',
} as const;

/**
 * What the write ledger stores for a journal creation: enough for the finder to look it up again. Its
 * narration is the one sent, the period's reference with the write's mark after it (issue 28; writes recorded
 * before marks carry none).
 */
interface JournalWriteRequest extends StockTransferJournal {
  periodStart: string;
  periodEnd: string;
  netPence: number;
  marginRate: number;
}

export interface StockJournalServiceDeps {
  repo: StockJournalRepository;
  sync: XeroSync;
  /** Xero's manual journals and every customer's sales, in our vocabulary (src/server/xero/xero-port.ts). */
  journals: JournalsPort;
  sales: SalesPort;
  ledger: WriteLedger;
  audit: AuditLog;
  /** Serialised weekly sales per organisation, customer, weeks and cache version. */
  bodies: BodyCache;
  /** Makes sure the user's Xero token is usable before a write is recorded (a refused token is no unknown outcome). */
  checkToken: (userId: number) => Promise<unknown>;
  log?: { warn: (o: object, m: string) => void };
}

/**
 * The document a journal post holds while it is open (issue 28, one writer per document): the organisation's
 * period (a week, or one side of a week split at a month end), named as people name it.
 */
export function journalPeriodDocument(periodStart: string, periodEnd: string): DocumentRef {
  return {
    key: `journal-week:${getStockJournalKey(periodStart, periodEnd)}`,
    label: getJournalPeriodLabel(periodStart, periodEnd),
  };
}

function toSyncContext(tenant: RequestContext) {
  return { organizationId: tenant.organizationId, tenantId: tenant.tenantId, userId: tenant.userId };
}

/** Who writes a journal: the request's tenant, or an administrator sending a held one again as its user. */
type JournalActor = Pick<RequestContext, 'organizationId' | 'tenantId' | 'userId' | 'username'>;

function toXeroContext(tenant: JournalActor): XeroContext {
  return { userId: tenant.userId, tenantId: tenant.tenantId };
}

/** Invoice rows to the grouping's lines: gross = Total, VAT = TotalTax, net = SubTotal, as Xero computed them. */
export function buildSalesPeriods(rows: readonly SaleInvoice[]): SalesPeriod[] {
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

/**
 * An entry as the client reads it (docs/product/features.md §3), status in lower case ("draft", "posted",
 * "pending"…).
 */
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

/** The journal of a period among journals Xero holds: a live stock transfer journal whose narration names that period. */
export function findPeriodJournal(
  journals: readonly Journal[],
  periodStart: string,
  periodEnd: string,
): Journal | null {
  return (
    journals.find((j) => {
      if (!isLiveJournal(j)) return false;
      const period = parseStockJournalReference(j.narration);
      return period?.periodStart === periodStart && period.periodEnd === periodEnd;
    }) ?? null
  );
}

function toJournalOutcome(journal: Journal, fallbackStatus: string): WriteOutcome<JournalCreateResponse> {
  return {
    xeroId: journal.journalId,
    response: { journalId: journal.journalId, status: journal.status || fallbackStatus },
  };
}

/**
 * Stock Journal (001 Stock Journal; docs/architecture.md §4): weekly sales from the invoice cache, the local
 * entries of posted journals kept level with Xero's journals, journal creation through the write ledger, and
 * the status sync with Xero. Every Xero call goes through the journals and sales ports.
 */
/**
 * Journal changes read from Xero this recently are not read again when the entries are listed or a week is
 * posted: a run of posts costs one read of Xero's journals (issue 32).
 */
export const JOURNALS_FRESH_MS = 10_000;

export function createStockJournalService(deps: StockJournalServiceDeps) {
  const { repo, sync, journals, sales, ledger, bodies } = deps;
  const statusSyncs = new Map<number, Promise<{ updatedCount: number }>>();
  const journalReads = new Map<number, Promise<JournalChange[]>>();
  /** When this instance last read an organisation's journal changes from Xero (see listEntries). */
  const lastJournalRead = new Map<number, number>();

  /** Live journals Xero holds for a period (read just before a post, and when a lost post is looked up). */
  async function findJournalInXero(
    ctx: XeroContext,
    periodStart: string,
    periodEnd: string,
  ): Promise<Journal | null> {
    return findPeriodJournal(await journals.listDated(ctx, periodStart, periodEnd), periodStart, periodEnd);
  }

  /**
   * The journal this write made, by the mark its narration carries (issue 28): exact, whatever the journal's
   * status now (deleted or voided since, it was still made). The write ledger asks it, for a day after a
   * `db:restore`, before a post under a key the restored database does not know is sent, or refused.
   */
  async function findJournalByMark(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<JournalCreateResponse> | null> {
    const request = row.request as JournalWriteRequest;
    const dated = await journals.listDated(ctx, request.periodStart, request.periodEnd);
    const found = dated.find((j) => hasWriteMark(j.narration, row.idempotencyKey));
    return found ? toJournalOutcome(found, request.status) : null;
  }

  /**
   * The write ledger's finder for 'journal.create' (a lost answer): the journal carrying this write's mark;
   * for a write recorded before marks, the period's journal, unless another write already accounts for it.
   */
  async function findJournalWrite(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<unknown> | null> {
    const request = row.request as JournalWriteRequest;
    if (hasWriteMark(request.narration, row.idempotencyKey)) return findJournalByMark(ctx, row);
    const claimed = await ledger.claimedXeroIds(ctx.organizationId, JOURNAL_WRITE_KIND, row.id);
    const dated = await journals.listDated(ctx, request.periodStart, request.periodEnd);
    const found = findPeriodJournal(
      dated.filter((j) => !claimed.has(j.journalId.toLowerCase())),
      request.periodStart,
      request.periodEnd,
    );
    return found ? toJournalOutcome(found, request.status) : null;
  }

  function buildWriteSpec(
    tenant: JournalActor,
    request: JournalWriteRequest,
    idempotencyKey: string,
    ip: string | null,
  ) {
    return {
      organizationId: tenant.organizationId,
      tenantId: tenant.tenantId,
      userId: tenant.userId,
      kind: JOURNAL_WRITE_KIND,
      targetId: getStockJournalKey(request.periodStart, request.periodEnd),
      amountPence: request.amountPence,
      idempotencyKey,
      request,
      // The period is held while this write is open: a second writer of it, on any instance, is refused naming
      // who is posting it (an administrator's "Send again" as much as a post).
      document: journalPeriodDocument(request.periodStart, request.periodEnd),
      // The ledger writes this line once, when Xero's outcome is settled (by the answer or by a look-up).
      audit: {
        action: 'stock-journal.create',
        // The activity log shows the narration as people read it, without the write's mark.
        target: withoutWriteMark(request.narration),
        username: tenant.username,
        ip,
        detail: {
          period: getStockJournalKey(request.periodStart, request.periodEnd),
          status: request.status,
          netPence: request.netPence,
          amountPence: request.amountPence,
          marginRate: request.marginRate,
          date: request.date,
        },
      },
      send: async (key: string): Promise<WriteOutcome<JournalCreateResponse>> =>
        toJournalOutcome(await journals.create(toXeroContext(tenant), request, key), request.status),
    };
  }

  /**
   * An administrator sends a held journal again (Admin → Needs review, issue 28): the ledger has asked Xero
   * for this write's journal and Xero does not have it; the period is checked again, as a post is, so a
   * journal posted for it meanwhile (by a person in Xero, or another write) is never doubled. The period's
   * entry follows the new write.
   */
  async function retryHeldJournal(
    row: WriteRow,
    by: RetryActor,
    idempotencyKey: string,
  ): Promise<{ writeId: number; xeroId: string | null }> {
    if (row.userId === null) throw new AppError('CONFLICT', HELD_USER_GONE);
    const held = row.request as JournalWriteRequest;
    // A new write, so a new mark: Xero has none of the held one's.
    const request = { ...held, narration: withWriteMark(withoutWriteMark(held.narration), idempotencyKey) };
    const actor: JournalActor = {
      organizationId: row.organizationId,
      tenantId: by.tenantId,
      userId: row.userId,
      username: by.username,
    };
    if (await findJournalInXero(toXeroContext(actor), request.periodStart, request.periodEnd))
      throw new AppError('CONFLICT', JOURNAL_MESSAGES.alreadyExists);
    const outcome = await ledger.execute(buildWriteSpec(actor, request, idempotencyKey, by.ip ?? null));
    const journalId = outcome.xeroId ?? outcome.response.journalId ?? null;
    const entry = await repo.findEntry(row.organizationId, request.periodStart, request.periodEnd);
    if (entry)
      await repo.updateEntry(row.organizationId, entry.id, {
        journalId,
        status: outcome.response.status || request.status,
        writeId: outcome.writeId,
      });
    return { writeId: outcome.writeId, xeroId: journalId };
  }

  /** A ledger row of this organisation, by id. */
  async function findWrite(organizationId: number, writeId: number): Promise<WriteRow | null> {
    const row = await ledger.findById(writeId);
    return row && row.organizationId === organizationId ? row : null;
  }

  /** The ledger row of a pending entry: by its id once known, else the period's newest write made after the entry. */
  async function findEntryWrite(
    organizationId: number,
    entry: StockJournalEntryRow,
  ): Promise<WriteRow | null> {
    if (entry.writeId) return findWrite(organizationId, entry.writeId);
    const latest = await ledger.findLatestOnTarget({
      organizationId,
      kind: JOURNAL_WRITE_KIND,
      targetId: getStockJournalKey(entry.periodStart, entry.periodEnd),
    });
    return latest && latest.createdAt >= entry.createdAt ? latest : null;
  }

  /**
   * Settles a pending entry against Xero: from its write's settled outcome, by settling the write when the
   * ledger's staleness rule calls it stale (its answer was lost, or its instance stopped), or, when the entry
   * never got its write (a crash between the two), by looking for the period's journal. 'waiting' while a
   * write is still in flight.
   */
  async function settlePendingEntry(
    tenant: RequestContext,
    entry: StockJournalEntryRow,
  ): Promise<'updated' | 'removed' | 'waiting'> {
    const orgId = tenant.organizationId;
    let write = await findEntryWrite(orgId, entry);
    if (write) {
      if (isOpenWriteState(write.state)) {
        write = (await ledger.settleIfStale(write, tenant.tenantId)).row;
        if (isOpenWriteState(write.state)) return 'waiting';
      }
      if (write.state === 'confirmed' && write.xeroId) {
        const response = write.response as JournalCreateResponse | null;
        await repo.updateEntry(orgId, entry.id, {
          journalId: write.xeroId,
          status: response?.status ?? 'DRAFT',
          writeId: write.id,
        });
        return 'updated';
      }
      if (write.state === 'failed') {
        // Xero certainly does not have it: the period is free to post again.
        await repo.deleteEntry(orgId, entry.id);
        return 'removed';
      }
      return 'waiting';
    }
    // An entry without a write: its request may yet record one, for as long as any write may be in flight.
    if (Date.now() - entry.createdAt.getTime() < MAX_IN_FLIGHT_MS) return 'waiting';
    const targetId = getStockJournalKey(entry.periodStart, entry.periodEnd);
    const { open } = await ledger.settleOpenOnTarget({
      organizationId: orgId,
      tenantId: tenant.tenantId,
      kind: JOURNAL_WRITE_KIND,
      targetId,
    });
    if (open.length > 0) return 'waiting';
    const found = await findJournalInXero(toXeroContext(tenant), entry.periodStart, entry.periodEnd);
    if (found) {
      await repo.updateEntry(orgId, entry.id, {
        journalId: found.journalId,
        status: found.status || 'DRAFT',
      });
      return 'updated';
    }
    await repo.deleteEntry(orgId, entry.id);
    return 'removed';
  }

  /**
   * One pass over the journals Xero changed since the last look (If-Modified-Since: one call, answered
   * 304 when nothing changed): status changes of our entries, deleted or voided journals free their
   * period, and stock transfer journals made outside Ledgerlink are adopted so their period is not posted twice.
   */
  async function readJournalChangesNow(tenant: RequestContext): Promise<JournalChange[]> {
    const orgId = tenant.organizationId;
    const changes: JournalChange[] = [];
    const highWater = await repo.readHighWater(orgId, MANUAL_JOURNALS_RESOURCE);
    const since = highWater ? new Date(highWater.getTime() - 1000) : undefined;
    const { journals: changed, notModified } = await journals.list(
      toXeroContext(tenant),
      since ? { since } : {},
    );
    if (notModified) return changes;
    let newHighWater = highWater;
    const entries = await repo.listEntries(orgId);
    const byJournal = new Map(
      entries.filter((e) => e.journalId).map((e) => [e.journalId?.toLowerCase() ?? '', e]),
    );
    const byPeriod = new Map(entries.map((e) => [getStockJournalKey(e.periodStart, e.periodEnd), e]));
    for (const journal of changed) {
      if (journal.updatedAt && (!newHighWater || journal.updatedAt > newHighWater))
        newHighWater = journal.updatedAt;
      const entry = byJournal.get(journal.journalId.toLowerCase());
      if (entry) {
        if (entry.status === journal.status) continue;
        const period = getStockJournalKey(entry.periodStart, entry.periodEnd);
        if (!isLiveJournal(journal)) {
          // A deleted or voided journal no longer records the transfer: the period may be posted again.
          await repo.deleteEntry(orgId, entry.id);
          byPeriod.delete(period);
        } else {
          await repo.updateEntry(orgId, entry.id, { status: journal.status });
        }
        byJournal.delete(journal.journalId.toLowerCase());
        changes.push({ period, from: entry.status, to: journal.status, journalId: journal.journalId });
        continue;
      }
      const period = parseStockJournalReference(journal.narration);
      if (!period || (journal.status !== 'DRAFT' && journal.status !== 'POSTED')) continue;
      const key = getStockJournalKey(period.periodStart, period.periodEnd);
      if (byPeriod.has(key)) continue;
      const adopted = await repo.claimPeriod({
        organizationId: orgId,
        customerId: null,
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        journalId: journal.journalId,
        reference: journal.narration
          ? withoutWriteMark(journal.narration)
          : getStockJournalReference(period.periodStart, period.periodEnd),
        status: journal.status,
        netPence: 0,
        amountPence: journal.debitPence,
        marginRate: '',
        userId: tenant.userId,
      });
      if (adopted) {
        byPeriod.set(key, adopted);
        byJournal.set(journal.journalId.toLowerCase(), adopted);
        changes.push({ period: key, from: 'NONE', to: journal.status, journalId: journal.journalId });
      }
    }
    await repo.writeHighWater(orgId, MANUAL_JOURNALS_RESOURCE, newHighWater);
    return changes;
  }

  /** Whether this instance read the organisation's journal changes from Xero in the last JOURNALS_FRESH_MS. */
  function readRecently(organizationId: number): boolean {
    const last = lastJournalRead.get(organizationId);
    if (last === undefined) return false;
    // A read "in the future" (the clock was set back) is not trusted.
    const age = Date.now() - last;
    return age >= 0 && age < JOURNALS_FRESH_MS;
  }

  /** readJournalChangesNow, one run per organisation at a time (the screen and the status sync share it). */
  function readJournalChanges(tenant: RequestContext): Promise<JournalChange[]> {
    const running = journalReads.get(tenant.organizationId);
    if (running) return running;
    const promise = readJournalChangesNow(tenant)
      .then((changes) => {
        lastJournalRead.set(tenant.organizationId, Date.now());
        return changes;
      })
      .finally(() => journalReads.delete(tenant.organizationId));
    journalReads.set(tenant.organizationId, promise);
    return promise;
  }

  async function recordChanges(tenant: RequestContext, changes: JournalChange[]) {
    if (changes.length === 0) return;
    await deps.audit.record({
      userId: tenant.userId,
      username: tenant.username,
      organizationId: tenant.organizationId,
      action: 'stock-journal.sync-status',
      target: `${changes.length} journal(s)`,
      result: 'success',
      detail: { changes },
    });
  }

  async function syncStatusNow(tenant: RequestContext): Promise<{ updatedCount: number }> {
    const changes: JournalChange[] = [];
    for (const entry of await repo.listEntries(tenant.organizationId)) {
      if (entry.status !== PENDING_STATUS) continue;
      const result = await settlePendingEntry(tenant, entry);
      if (result !== 'waiting') {
        changes.push({
          period: getStockJournalKey(entry.periodStart, entry.periodEnd),
          from: PENDING_STATUS,
          to: result === 'removed' ? 'NONE' : 'FOUND',
          journalId: entry.journalId,
        });
      }
    }
    changes.push(...(await readJournalChanges(tenant)));
    await recordChanges(tenant, changes);
    return { updatedCount: changes.length };
  }

  /**
   * The refusal of a post while another post of the period is open (issue 28, one writer per document): a 409
   * naming who is posting it, by the open write's own line, or, in the moment between the period's claim and
   * its write being recorded, by the user who claimed it.
   */
  async function refuseBusyPeriod(entry: StockJournalEntryRow, write: WriteRow | null): Promise<never> {
    const document = journalPeriodDocument(entry.periodStart, entry.periodEnd);
    const username = write ? null : entry.userId === null ? null : await repo.findUsername(entry.userId);
    const message = describeBusyDocument({
      kind: JOURNAL_WRITE_KIND,
      documentLabel: write?.documentLabel ?? document.label,
      audit: write?.audit ?? (username ? { username } : null),
    });
    throw new AppError('CONFLICT', message, undefined, {
      ...(write ? { writeId: write.id } : {}),
      writeState: 'busy',
    });
  }

  /**
   * A post whose period already has an entry. The same action retried (same key) replays its outcome. A
   * pending entry left by a post whose outcome was unknown is settled now (look-up): if Xero does not have
   * it, the period is free and the new post claims it. A post of the period still open (another person's, on
   * any instance) refuses this one at once, naming who is posting it. Anything else is a 409 "already exists".
   */
  async function handleTakenPeriod(
    tenant: RequestContext,
    request: JournalWriteRequest,
    entry: NewStockJournalEntry,
    idempotencyKey: string | undefined,
    ip: string | null,
  ): Promise<{ replay: JournalCreateResponse } | { entry: StockJournalEntryRow }> {
    const orgId = tenant.organizationId;
    const targetId = getStockJournalKey(request.periodStart, request.periodEnd);
    if (idempotencyKey) {
      // The first request of this same action may have claimed the period a moment before recording its write:
      // waited for while the pending entry is this user's and no write is recorded for it yet (another key's
      // write, or another user's claim, is not this action's).
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const write = await ledger.findByKey(orgId, idempotencyKey);
        if (write) {
          if (write.kind !== JOURNAL_WRITE_KIND || write.targetId !== targetId) break;
          const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
          return { replay: outcome.response };
        }
        const existing = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
        if (existing?.status !== PENDING_STATUS || existing.userId !== tenant.userId) break;
        if (await findEntryWrite(orgId, existing)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const existing = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
    if (existing?.status === PENDING_STATUS) {
      const settled = await settlePendingEntry(tenant, existing);
      if (settled === 'removed') {
        const claimed = await repo.claimPeriod(entry);
        if (claimed) return { entry: claimed };
      }
      if (settled === 'waiting') {
        // Still in flight, or claimed a moment ago and its write not recorded yet: being posted now. A write
        // held for review is not "being posted": the period is taken until an administrator settles it.
        const write = await findEntryWrite(orgId, existing);
        if (write && idempotencyKey && write.idempotencyKey === idempotencyKey) {
          // This same action, recorded while it was looked for above.
          const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
          return { replay: outcome.response };
        }
        if (!write || isOpenWriteState(write.state)) await refuseBusyPeriod(existing, write);
      }
    }
    if (!existing) {
      const claimed = await repo.claimPeriod(entry);
      if (claimed) return { entry: claimed };
    }
    if (idempotencyKey) {
      // The period has a journal. After a restore, it may be this very post's, sent under a key the restored
      // database forgot: Xero is asked for the key's mark, and the resend is answered with the first result.
      const recalled = await ledger.findForgotten(buildWriteSpec(tenant, request, idempotencyKey, ip));
      if (recalled) {
        const now = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
        if (now?.journalId && now.journalId.toLowerCase() === recalled.xeroId?.toLowerCase())
          // Adopted from Xero after the restore, without its figures: this write's are known again.
          await repo.updateEntry(orgId, now.id, {
            writeId: recalled.writeId,
            customerId: entry.customerId,
            netPence: entry.netPence,
            marginRate: entry.marginRate,
            userId: entry.userId,
          });
        return { replay: recalled.response };
      }
    }
    throw new AppError('CONFLICT', JOURNAL_MESSAGES.alreadyExists);
  }

  /**
   * After a create whose answer was lost or failed: looks it up in Xero before telling the user anything.
   * Xero has it → the entry takes it; Xero does not → the entry goes (the period is free) and the answer
   * says nothing was posted; Xero cannot be asked → the period stays pending and the error stands.
   */
  async function settleAfterFailedSend(
    tenant: RequestContext,
    entry: StockJournalEntryRow,
    writeId: number,
    error: unknown,
  ): Promise<JournalCreateResponse> {
    const orgId = tenant.organizationId;
    await repo.updateEntry(orgId, entry.id, { writeId });
    let write = await findWrite(orgId, writeId);
    if (!write) throw explainUnconfirmed(error);
    try {
      write = await ledger.lookUp(write, tenant.tenantId);
    } catch (lookupError) {
      deps.log?.warn(
        { err: lookupError, writeId },
        'look-up of a journal create failed; the period stays pending',
      );
      throw explainUnconfirmed(error);
    }
    if (write.state === 'confirmed' && write.xeroId) {
      const response = write.response as JournalCreateResponse | null;
      const status = response?.status ?? 'DRAFT';
      await repo.updateEntry(orgId, entry.id, { journalId: write.xeroId, status, writeId });
      return { journalId: write.xeroId, status: status.toLowerCase() };
    }
    if (write.state === 'failed') {
      await repo.deleteEntry(orgId, entry.id);
      const cause = error instanceof AppError ? error.detail : undefined;
      throw new AppError(
        'XERO_UNAVAILABLE',
        JOURNAL_MESSAGES.notPosted,
        typeof cause === 'string' ? cause : undefined,
      );
    }
    throw explainUnconfirmed(error);
  }

  return {
    findJournalWrite,
    findJournalByMark,
    retryHeldJournal,

    /**
     * Customers for the filter (docs/product/features.md §2), from the contacts cache (synced once, again on
     * `refresh`).
     */
    async listCustomers(tenant: RequestContext, options: { refresh?: boolean } = {}): Promise<Customer[]> {
      await sync.syncContacts(toSyncContext(tenant), { force: options.refresh === true });
      return repo.listCustomers(tenant.organizationId, tenant.organization.defaultStockJournalContactId);
    },

    /**
     * Weekly periods (docs/product/features.md §2, §3) of whole Monday–Sunday weeks around the range. For one
     * customer, from the invoice cache (`refresh` first brings it up to date: one call, answered 304 when
     * nothing changed).
     */
    async getSales(tenant: RequestContext, query: SalesQuery): Promise<SalesPeriod[]> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      if (!customerId)
        return buildSalesPeriods(
          await sales.listInRange(toXeroContext(tenant), range.fromDate, range.toDate),
        );
      if (!isXeroId(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      if (query.refresh) await sync.syncInvoices(toSyncContext(tenant), view);
      else await sync.ensureInvoices(toSyncContext(tenant), view);
      return buildSalesPeriods(
        await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate),
      );
    },

    /**
     * One customer's weekly sales (as `getSales`), serialised and kept under the organisation's invoice-cache
     * version, so a repeated read is answered without reading or grouping the invoices again. Null for every
     * customer at once: that is read from Xero itself, never from the cache.
     */
    async getSalesBody(tenant: RequestContext, query: SalesQuery): Promise<CachedBody | null> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      if (!customerId) return null;
      if (!isXeroId(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      const refresh = query.refresh;
      if (refresh) await sync.syncInvoices(toSyncContext(tenant), view);
      const version =
        refresh || tenant.cacheVersion === undefined
          ? await sync.readCacheVersion(tenant.organizationId)
          : tenant.cacheVersion;
      return bodies.get(
        `sales:${tenant.organizationId}:${view.contactId}:${range.fromDate}:${range.toDate}`,
        version,
        async () => {
          await sync.ensureInvoices(toSyncContext(tenant), view);
          return buildSalesPeriods(
            await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate),
          );
        },
      );
    },

    /**
     * The organisation's entries (docs/product/features.md §3), level with Xero's journals: the screen reads
     * this when it opens, so first the journals Xero changed since the last look are read (If-Modified-Since,
     * usually a 304), and a week Xero already has a journal for shows it instead of offering Post. If Xero
     * cannot be reached the entries are still listed (the post itself checks Xero again). A pending entry
     * whose write the ledger has since settled takes that outcome, from the database alone.
     */
    async listEntries(tenant: RequestContext): Promise<StockJournalEntry[]> {
      try {
        // Read again right after a read (the list re-read after each post, say) it is served as it stands:
        // the post itself always checks Xero, and Sync Status always reads.
        if (!readRecently(tenant.organizationId))
          await recordChanges(tenant, await readJournalChanges(tenant));
      } catch (error) {
        deps.log?.warn(
          { err: error, organizationId: tenant.organizationId },
          'reading the journals from Xero failed; listing the entries as they are',
        );
      }
      const rows = await repo.listEntries(tenant.organizationId);
      const out: StockJournalEntry[] = [];
      for (const row of rows) {
        if (row.status === PENDING_STATUS) {
          const write = await findEntryWrite(tenant.organizationId, row);
          if (write?.state === 'confirmed' && write.xeroId) {
            const response = write.response as JournalCreateResponse | null;
            const updated = await repo.updateEntry(tenant.organizationId, row.id, {
              journalId: write.xeroId,
              status: response?.status ?? 'DRAFT',
              writeId: write.id,
            });
            if (updated) out.push(toEntryDto(updated));
            continue;
          }
          if (write?.state === 'failed') {
            // Settled as "Xero does not have it": the period is free again.
            await repo.deleteEntry(tenant.organizationId, row.id);
            continue;
          }
        }
        out.push(toEntryDto(row));
      }
      return out;
    },

    /**
     * Posts the stock transfer journal of a period (docs/architecture.md §4): net sales re-read from the
     * cache must match what the user saw; cost = net ÷ margin rate to the penny; debit cost, credit stock,
     * dated in the period; DRAFT or POSTED from the organisation's setting. One journal per period: claimed
     * here before anything is sent (409 when taken), then checked against Xero's journals of the period (409,
     * and the entry takes Xero's journal, when Xero already has one), then written through the ledger with
     * the action's idempotency key. A create whose answer failed is looked up before the user is told.
     */
    async createJournal(
      tenant: RequestContext,
      body: JournalCreateRequest,
      options: { idempotencyKey?: string | undefined; ip?: string | null } = {},
    ): Promise<JournalCreateResponse> {
      const orgId = tenant.organizationId;
      const { periodStart, periodEnd } = body;
      if (!isJournalPeriod(periodStart, periodEnd))
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.badPeriod);
      if (body.stockAccountId.toLowerCase() === body.costAccountId.toLowerCase())
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.sameAccounts);
      if (!isXeroId(body.contactId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const contactId = body.contactId.toLowerCase();
      if (!(await repo.findContact(orgId, contactId)) && (await repo.hasSynced(orgId, 'contacts'))) {
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      }
      // The server is the authority on money: the net comes from Xero's figures in the cache, not the browser.
      await sync.ensureInvoices(toSyncContext(tenant), { key: 'sales-contact', contactId });
      const netPence = await repo.sumNetPence(orgId, contactId, periodStart, periodEnd);
      if (netPence !== roundPoundsToPence(body.netAmount))
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.salesChanged);
      const amountPence = getJournalAmountPence(netPence, body.marginRate);
      if (amountPence === null || amountPence <= 0)
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.zeroAmount);

      const narration = getStockJournalReference(periodStart, periodEnd);
      const status = tenant.organization.defaultStockJournalPostingStatus === 'posted' ? 'POSTED' : 'DRAFT';
      const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
      const request: JournalWriteRequest = {
        periodStart,
        periodEnd,
        netPence,
        marginRate: body.marginRate,
        // The write's mark after the reference: Xero keeps it, so a resend after a restore finds this journal.
        narration: withWriteMark(narration, idempotencyKey),
        date: body.journalDate ?? periodEnd,
        status,
        amountPence,
        costAccountId: body.costAccountId,
        stockAccountId: body.stockAccountId,
        costDescription: `Cost of sales: net sales ${formatMoney(netPence)} ÷ ${body.marginRate}`,
        stockDescription: 'Transfer from stock',
      };
      // A token Xero will refuse is found out here, before anything is recorded as sent.
      await deps.checkToken(tenant.userId);

      const ip = options.ip ?? null;
      const newEntry: NewStockJournalEntry = {
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
        userId: tenant.userId,
      };
      // The check against Xero's journals, before the period is claimed. Xero sends no webhooks for manual
      // journals (decision 018: INVOICE and CONTACT only), so they are read: once for a run of posts (issue 32),
      // as what Xero changed since the last look (If-Modified-Since), unless this instance read that in the
      // last JOURNALS_FRESH_MS (the screen listing the entries, the post before). A journal Xero holds for the
      // period is then an entry, and the claim below is refused with a 409. If Xero cannot be asked, nothing
      // is claimed or sent.
      if (!readRecently(orgId)) await recordChanges(tenant, await readJournalChanges(tenant));
      let entry = await repo.claimPeriod(newEntry);
      if (!entry) {
        const taken = await handleTakenPeriod(tenant, request, newEntry, options.idempotencyKey, ip);
        if ('replay' in taken)
          return { journalId: taken.replay.journalId, status: taken.replay.status.toLowerCase() };
        entry = taken.entry;
      }

      try {
        const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
        const journalStatus = outcome.response.status || status;
        const journalId = outcome.xeroId ?? outcome.response.journalId ?? null;
        if (isLiveJournal({ status: journalStatus })) {
          await repo.updateEntry(orgId, entry.id, {
            journalId,
            status: journalStatus,
            writeId: outcome.writeId,
          });
        } else {
          // This post's journal, found by its mark after a restore, deleted or voided in Xero since: the
          // answer says so, and the period is free.
          await repo.deleteEntry(orgId, entry.id);
        }
        return { journalId, status: journalStatus.toLowerCase() };
      } catch (error) {
        const writeState = error instanceof AppError ? error.extra?.writeState : undefined;
        const writeId = error instanceof AppError ? error.extra?.writeId : undefined;
        if (typeof writeId === 'number' && isOpenWriteState(writeState)) {
          return settleAfterFailedSend(tenant, entry, writeId, error);
        }
        // Xero certainly did not apply it (refused, or never sent): the period is free at once.
        await repo.deleteEntry(orgId, entry.id);
        throw error;
      }
    },

    /**
     * Settles pending entries and re-reads the journals Xero changed (docs/product/features.md §7
     * sync-status); one run per organisation at a time.
     */
    syncStatus(tenant: RequestContext): Promise<{ updatedCount: number }> {
      const running = statusSyncs.get(tenant.organizationId);
      if (running) return running;
      const promise = syncStatusNow(tenant).finally(() => statusSyncs.delete(tenant.organizationId));
      statusSyncs.set(tenant.organizationId, promise);
      return promise;
    },
  };
}
export type StockJournalService = ReturnType<typeof createStockJournalService>;

interface JournalChange {
  period: string;
  from: string;
  to: string;
  journalId: string | null;
}
