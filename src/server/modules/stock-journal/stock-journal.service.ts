import { createStockJournalCore, type StockJournalServiceDeps } from './context';
import { createJournalChanges } from './journal-changes';
import { createJournalEntries } from './journal-entries';
import { createStockJournalWriteKinds } from './ledger-hooks';
import { createJournalPosting } from './post-journal';
import { createSalesWeeks } from './sales-weeks';

export { buildSalesPeriods } from './sales-weeks';
export { JOURNALS_FRESH_MS } from './journal-changes';
export {
  JOURNAL_MESSAGES,
  JOURNAL_WRITE_KIND,
  PENDING_STATUS,
  type StockJournalServiceDeps,
} from './context';

/**
 * Stock Journal (001 Stock Journal; docs/architecture.md §4): weekly sales from the invoice cache, the local
 * entries of posted journals kept level with Xero's journals, journal creation through the write ledger, and
 * the status sync with Xero. Every Xero call goes through the journals and sales ports.
 *
 * The parts, where a reader looks for them: `sales-weeks.ts` (customers and weekly sales), `journal-entries.ts`
 * (the entries as listed, and Sync Status), `post-journal.ts` (a post: its period's claim, the one-writer hold,
 * a lost answer settled), `ledger-hooks.ts` (the finders of a lost or forgotten journal write and the held
 * journal's retry), and `journal-changes.ts` (Xero's journals read since the last look) and `context.ts` under
 * them.
 */
export function createStockJournalService(deps: StockJournalServiceDeps) {
  const core = createStockJournalCore(deps);
  const journalChanges = createJournalChanges(deps);
  return {
    ...createStockJournalWriteKinds(deps, core),
    ...createSalesWeeks(deps),
    ...createJournalEntries(deps, core, journalChanges),
    ...createJournalPosting(deps, core, journalChanges),
  };
}
export type StockJournalService = ReturnType<typeof createStockJournalService>;
