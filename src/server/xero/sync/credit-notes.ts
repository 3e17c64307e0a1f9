import { sql } from 'drizzle-orm';
import { xeroCreditNotes } from '../../db/schema/index';
import { xeroCreditNotesEnvelope } from '../xero-http/schemas';
import type { SyncContext, SyncResult, XeroSyncDeps } from './context';
import { toCreditNoteRow } from './mappers';
import type { SyncState } from './sync-state';

const RESOURCE = 'credit-notes:supplier';
/** Credit notes per page: Xero's credit notes endpoint pages by 100 (xero_accounting.yaml, getCreditNotes). */
const CREDIT_NOTES_PAGE = 100;
/**
 * Xero sends no webhooks for credit notes (its webhooks cover invoices and contacts), so the CIS month-end asks
 * what changed (If-Modified-Since) when it opens; a read this recent stands for it (the return and the months list
 * open together).
 */
export const CREDIT_NOTES_FRESH_MS = 10_000;

/**
 * Supplier credit notes (ACCPAYCREDIT), kept like the other caches: the whole set on the first read, then what
 * changed since the high-water mark (issue 42: a CIS subcontractor's credit note allocated to a bill or refunded
 * changes the CIS return).
 */
export function createCreditNotes(
  { db, http }: Pick<XeroSyncDeps, 'db' | 'http'>,
  { readState, releaseLease, withLease }: SyncState,
) {
  return {
    syncCreditNotes(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, RESOURCE, async () => {
        const state = await readState(ctx.organizationId, RESOURCE);
        if (
          !options.force &&
          state?.lastSyncAt &&
          Date.now() - state.lastSyncAt.getTime() < CREDIT_NOTES_FRESH_MS
        ) {
          await releaseLease(ctx.organizationId, RESOURCE, {});
          return { calls: 0, fetched: 0, full: false };
        }
        const since = state?.highWater ? new Date(state.highWater.getTime() - 1000) : undefined;
        let calls = 0;
        let fetched = 0;
        let highWater = state?.highWater ?? null;
        for (let page = 1; ; page += 1) {
          const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
            method: 'GET',
            path: '/api.xro/2.0/CreditNotes',
            query: {
              page,
              pageSize: CREDIT_NOTES_PAGE,
              where: 'Type=="ACCPAYCREDIT"',
              order: 'UpdatedDateUTC ASC',
            },
            ...(since ? { ifModifiedSince: since } : {}),
            schema: xeroCreditNotesEnvelope,
          });
          calls += 1;
          if (status === 304 || !data) break;
          for (const note of data.CreditNotes) {
            const row = toCreditNoteRow(ctx.organizationId, note);
            await db
              .insert(xeroCreditNotes)
              .values(row)
              .onConflictDoUpdate({
                target: [xeroCreditNotes.organizationId, xeroCreditNotes.creditNoteId],
                set: row,
                setWhere: sql`${xeroCreditNotes.updatedUtc} is null or excluded.updated_utc is null or excluded.updated_utc >= ${xeroCreditNotes.updatedUtc}`,
              });
            if (row.updatedUtc && (!highWater || row.updatedUtc > highWater)) highWater = row.updatedUtc;
          }
          fetched += data.CreditNotes.length;
          if (
            data.CreditNotes.length < CREDIT_NOTES_PAGE ||
            (data.pagination?.pageCount != null && page >= data.pagination.pageCount)
          )
            break;
        }
        await releaseLease(ctx.organizationId, RESOURCE, { highWater, lastSyncAt: new Date() });
        return { calls, fetched, full: !since };
      });
    },
  };
}
