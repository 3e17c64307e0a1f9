import { formatCount } from '../../../shared/counts';
import {
  getStockJournalKey,
  getStockJournalReference,
  parseStockJournalReference,
} from '../../../shared/stock-journal';
import type { RequestContext } from '../organizations/tenancy';
import { isLiveJournal } from '../../xero/xero-port';
import { withoutWriteMark } from '../../ledger/index';
import { MANUAL_JOURNALS_RESOURCE } from './stock-journal.repository';
import { toXeroContext, type StockJournalServiceDeps } from './context';

/**
 * Journal changes read from Xero this recently are not read again when the entries are listed or a week is
 * posted: a run of posts costs one read of Xero's journals (issue 32).
 */
export const JOURNALS_FRESH_MS = 10_000;

export interface JournalChange {
  period: string;
  from: string;
  to: string;
  journalId: string | null;
}

/**
 * The journals Xero changed since the last look, read into the entries (Xero sends no webhooks for manual
 * journals): one read per organisation at a time, remembered for JOURNALS_FRESH_MS.
 */
export function createJournalChanges(deps: StockJournalServiceDeps) {
  const { repo, journals } = deps;
  const journalReads = new Map<number, Promise<JournalChange[]>>();
  /** When this instance last read an organisation's journal changes from Xero (see listEntries). */
  const lastJournalRead = new Map<number, number>();

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
      target: formatCount(changes.length, 'journal'),
      result: 'success',
      detail: { changes },
    });
  }

  return { readRecently, readJournalChanges, recordChanges };
}
export type JournalChanges = ReturnType<typeof createJournalChanges>;
