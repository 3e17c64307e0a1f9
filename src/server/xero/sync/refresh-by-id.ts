import { xeroContactsEnvelope, xeroInvoicesEnvelope } from '../xero-http/schemas';
import { IDS_PER_CALL, type SyncContext, type XeroSyncDeps } from './context';
import type { InvoiceRead } from './invoice-read';
import { toContactRow, toInvoiceRow } from './mappers';
import { storeContact } from './reference-data';

/**
 * Re-reads named invoices and contacts from Xero into the cache: one invoice a screen asks for, and what a
 * webhook names (decision 018).
 */
export function createRefreshById(
  { db, http }: Pick<XeroSyncDeps, 'db' | 'http'>,
  { upsertInvoices, readInvoicesByIds }: InvoiceRead,
) {
  return {
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
     * Re-reads the invoices a webhook named, in one call per IDS_PER_CALL ids (`GET /Invoices?IDs=…`, paged so the lines
     * come too), into the cache under the newest-wins rule; ids Xero does not return are left alone. Answers
     * the rows Xero returned, in our vocabulary.
     */
    refreshInvoicesByIds(ctx: SyncContext, invoiceIds: readonly string[]) {
      return readInvoicesByIds(ctx, invoiceIds);
    },

    /** The contacts a webhook named, in one call per IDS_PER_CALL ids; newest wins by Xero's UpdatedDateUTC. */
    async refreshContactsByIds(
      ctx: SyncContext,
      contactIds: readonly string[],
    ): Promise<{ calls: number; rows: ReturnType<typeof toContactRow>[] }> {
      const unique = [...new Set(contactIds.map((id) => id.toLowerCase()))];
      const rows: ReturnType<typeof toContactRow>[] = [];
      let calls = 0;
      for (let i = 0; i < unique.length; i += IDS_PER_CALL) {
        const chunk = unique.slice(i, i + IDS_PER_CALL);
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Contacts',
          query: { IDs: chunk.join(','), includeArchived: true },
          schema: xeroContactsEnvelope,
        });
        calls += 1;
        for (const c of data.Contacts) {
          const row = toContactRow(ctx.organizationId, c);
          await storeContact(db, row);
          rows.push(row);
        }
      }
      return { calls, rows };
    },
  };
}
