import {
  getStockJournalKey,
  type JournalCreateResponse,
  type StockJournalEntry,
} from '../../../shared/stock-journal';
import type { RequestContext } from '../organizations/tenancy';
import { PENDING_STATUS, toEntryDto, type StockJournalCore, type StockJournalServiceDeps } from './context';
import type { JournalChange, JournalChanges } from './journal-changes';

/** The entries as the screen lists them, and Sync Status: both kept level with Xero's journals. */
export function createJournalEntries(
  deps: StockJournalServiceDeps,
  core: StockJournalCore,
  journalChanges: JournalChanges,
) {
  const { repo } = deps;
  const { findEntryWrite, settlePendingEntry } = core;
  const { readRecently, readJournalChanges, recordChanges } = journalChanges;
  const statusSyncs = new Map<number, Promise<{ updatedCount: number }>>();

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

  /** The entries Ledgerlink holds; a pending one whose write the ledger has since settled takes its outcome. */
  async function listKnownEntries(tenant: RequestContext): Promise<StockJournalEntry[]> {
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
  }

  return {
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
      return listKnownEntries(tenant);
    },

    /**
     * The entries as `listEntries` lists them, without first reading the journals Xero changed (the Today page,
     * issue 47, answers from what Ledgerlink holds; Xero sends no webhooks for journals).
     */
    listKnownEntries,

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
