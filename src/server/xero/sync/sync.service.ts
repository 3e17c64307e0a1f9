import { createCacheReads } from './cache-reads';
import { createCreditNotes } from './credit-notes';
import type { XeroSyncDeps } from './context';
import { createInvoiceRead } from './invoice-read';
import { createInvoiceSync } from './invoice-sync';
import { createReferenceData } from './reference-data';
import { createRefreshById } from './refresh-by-id';
import { createSyncState } from './sync-state';

export type { InvoiceSyncProgress, SyncContext, SyncResult, XeroSyncDeps } from './context';
export type { InvoiceView } from './invoice-views';

/**
 * Keeps Ledgerlink's copy of Xero's data fresh at the lowest cost in Xero calls: largest page size,
 * If-Modified-Since from a per-resource high-water mark, and a lease per organisation and resource so
 * concurrent requests (on this or another instance) never run the same sync twice: a latecomer waits
 * for the running sync and reads its result.
 *
 * The parts, where a reader looks for them: `invoice-sync.ts` (views kept current, read whole, a first visit in
 * the background), `invoice-read.ts` (the read of a view from Xero and the newest-wins upsert),
 * `refresh-by-id.ts` (one invoice, or what a webhook names), `reference-data.ts` (accounts, tax rates,
 * contacts), `credit-notes.ts` (supplier credit notes, for the CIS return), `cache-reads.ts` (the cache version, whether webhooks keep an invoice current), and under them
 * `sync-state.ts` (state and lease), `invoice-views.ts` and `context.ts`.
 */
export function createXeroSync(deps: XeroSyncDeps) {
  const state = createSyncState(deps.db);
  const read = createInvoiceRead(deps, state);
  return {
    ...createCacheReads(deps),
    ...createInvoiceSync(deps, state, read),
    ...createRefreshById(deps, read),
    ...createReferenceData(deps, state),
    ...createCreditNotes(deps, state),
  };
}
export type XeroSync = ReturnType<typeof createXeroSync>;
