import { and, eq, isNull, sql } from 'drizzle-orm';
import { xeroCacheVersions, xeroWebhookEvents } from '../../db/schema/index';
import type { SyncContext, XeroSyncDeps } from './context';

/** What is read of the cache itself: its version, and whether Xero's webhooks keep an invoice current. */
export function createCacheReads(deps: Pick<XeroSyncDeps, 'db' | 'mayUseCache'>) {
  const { db } = deps;
  return {
    /**
     * The organisation's invoice-cache version: database triggers move it on with every change to its cached
     * invoices and every forgotten view (migration 0005), so answers built from the cache can be kept under it.
     * Requests usually get it with their session (one query); this reads it after a sync.
     */
    async readCacheVersion(organizationId: number): Promise<number> {
      const [row] = await db
        .select({ version: xeroCacheVersions.version })
        .from(xeroCacheVersions)
        .where(eq(xeroCacheVersions.organizationId, organizationId));
      return row?.version ?? 0;
    },

    /**
     * Is a cached invoice, last described by Xero at `syncedAt`, as current as Xero's own news of it? Only while
     * Xero's webhooks keep the cache current (`mayUseCache`: live, read after webhooks began and after the last
     * trouble, no payment on its way) and no delivery naming the invoice waits to be applied. Without webhooks,
     * never: the caller asks Xero.
     */
    async isInvoiceKeptCurrent(ctx: SyncContext, invoiceId: string, syncedAt: Date): Promise<boolean> {
      if (!deps.mayUseCache) return false;
      const [waiting] = await db
        .select({ id: xeroWebhookEvents.id })
        .from(xeroWebhookEvents)
        .where(
          and(
            isNull(xeroWebhookEvents.processedAt),
            eq(xeroWebhookEvents.category, 'INVOICE'),
            sql`lower(${xeroWebhookEvents.tenantId}) = ${ctx.tenantId.toLowerCase()}`,
            sql`lower(${xeroWebhookEvents.resourceId}) = ${invoiceId.toLowerCase()}`,
          ),
        )
        .limit(1);
      if (waiting) return false;
      return deps.mayUseCache(ctx, syncedAt, 'payment');
    },
  };
}
