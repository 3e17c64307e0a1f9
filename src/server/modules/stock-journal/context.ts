import { fromPence } from '../../../shared/money';
import {
  getJournalPeriodLabel,
  getStockJournalKey,
  JOURNAL_SERVER_MESSAGES,
  parseStockJournalReference,
  type JournalCreateResponse,
  type StockJournalEntry,
} from '../../../shared/stock-journal';
import type { BodyCache } from '../../lib/body-cache';
import type { RequestContext } from '../organizations/tenancy';
import type { AuditLog } from '../audit/audit';
import type { XeroSync } from '../../xero/sync/sync.service';
import {
  isLiveJournal,
  type Journal,
  type JournalsPort,
  type SalesPort,
  type StockTransferJournal,
  type XeroContext,
} from '../../xero/xero-port';
import {
  isOpenWriteState,
  MAX_IN_FLIGHT_MS,
  type DocumentRef,
  type WriteKind,
  type WriteLedger,
  type WriteOutcome,
  type WriteRow,
  withoutWriteMark,
} from '../../ledger/index';
import type { StockJournalEntryRow, StockJournalRepository } from './stock-journal.repository';

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
export interface JournalWriteRequest extends StockTransferJournal {
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

export function toSyncContext(tenant: RequestContext) {
  return { organizationId: tenant.organizationId, tenantId: tenant.tenantId, userId: tenant.userId };
}

/** Who writes a journal: the request's tenant, or an administrator sending a held one again as its user. */
export type JournalActor = Pick<RequestContext, 'organizationId' | 'tenantId' | 'userId' | 'username'>;

export function toXeroContext(tenant: JournalActor): XeroContext {
  return { userId: tenant.userId, tenantId: tenant.tenantId };
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

export function toJournalOutcome(
  journal: Journal,
  fallbackStatus: string,
): WriteOutcome<JournalCreateResponse> {
  return {
    xeroId: journal.journalId,
    response: { journalId: journal.journalId, status: journal.status || fallbackStatus },
  };
}

/**
 * What the parts of Stock Journal share: the period's journal in Xero, a journal write as the ledger records
 * it, and a pending entry's write and its settling.
 */
export function createStockJournalCore(deps: StockJournalServiceDeps) {
  const { repo, journals, ledger } = deps;

  /** Live journals Xero holds for a period (read just before a post, and when a lost post is looked up). */
  async function findJournalInXero(
    ctx: XeroContext,
    periodStart: string,
    periodEnd: string,
  ): Promise<Journal | null> {
    return findPeriodJournal(await journals.listDated(ctx, periodStart, periodEnd), periodStart, periodEnd);
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

  return { findJournalInXero, buildWriteSpec, findWrite, findEntryWrite, settlePendingEntry };
}
export type StockJournalCore = ReturnType<typeof createStockJournalCore>;
