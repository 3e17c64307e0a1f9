import { and, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { draftCashAmounts, xeroInvoices, xeroWrites } from '../../db/schema/index.ts';
import { createCacheRepository, type CachedInvoice } from '../../xero/cache/cache.repository';

export type CachedInvoiceRow = CachedInvoice;

/** States of a ledger write that mean it may have reached Xero (or is on its way). */
const LIVE_WRITE_STATES = ['pending', 'sent', 'confirmed', 'unknown', 'needs_review'] as const;

/** Drizzle queries of Add Invoices. Every query is scoped to one organisation. */
export function createAddInvoicesRepository(db: Db) {
  const cache = createCacheRepository(db);
  return {
    /** Draft sales invoices in the cache, each with the cash recorded against it in Ledgerlink. */
    async findDrafts(organizationId: number) {
      return db
        .select({
          invoiceId: xeroInvoices.invoiceId,
          invoiceNumber: xeroInvoices.invoiceNumber,
          contactName: xeroInvoices.contactName,
          date: xeroInvoices.date,
          totalPence: xeroInvoices.totalPence,
          currencyCode: xeroInvoices.currencyCode,
          pendingPence: draftCashAmounts.amountPence,
        })
        .from(xeroInvoices)
        .leftJoin(
          draftCashAmounts,
          and(eq(draftCashAmounts.organizationId, xeroInvoices.organizationId), eq(draftCashAmounts.invoiceId, xeroInvoices.invoiceId)),
        )
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.type, 'ACCREC'), eq(xeroInvoices.status, 'DRAFT')));
    },

    /** Cached sales invoices by id (any status), so the service can tell drafts from the rest. */
    findInvoices: cache.findInvoices,

    async findPendingCash(organizationId: number, invoiceIds: readonly string[]): Promise<Map<string, number>> {
      if (invoiceIds.length === 0) return new Map();
      const rows = await db
        .select({ invoiceId: draftCashAmounts.invoiceId, amountPence: draftCashAmounts.amountPence })
        .from(draftCashAmounts)
        .where(and(eq(draftCashAmounts.organizationId, organizationId), inArray(draftCashAmounts.invoiceId, [...invoiceIds])));
      return new Map(rows.map((r) => [r.invoiceId, r.amountPence]));
    },

    /**
     * Adds cash to an invoice's pending amount in one statement, refusing (false) when the new pending
     * amount would be above `limitPence` (the invoice total), so two requests cannot overshoot together.
     */
    async addPendingCash(organizationId: number, invoiceId: string, pence: number, limitPence: number, userId: number): Promise<boolean> {
      if (pence > limitPence) return false;
      const rows = await db
        .insert(draftCashAmounts)
        .values({ organizationId, invoiceId, amountPence: pence, userId, updatedAt: new Date() })
        .onConflictDoUpdate({
          target: [draftCashAmounts.organizationId, draftCashAmounts.invoiceId],
          set: { amountPence: sql`${draftCashAmounts.amountPence} + ${pence}`, userId, updatedAt: new Date() },
          setWhere: sql`${draftCashAmounts.amountPence} + ${pence} <= ${limitPence}`,
        })
        .returning({ amountPence: draftCashAmounts.amountPence });
      return rows.length > 0;
    },

    /** Takes `pence` off an invoice's pending cash once it has been paid in Xero; the row goes at zero. */
    async consumePendingCash(organizationId: number, invoiceId: string, pence: number): Promise<void> {
      if (pence <= 0) return;
      const where = and(eq(draftCashAmounts.organizationId, organizationId), eq(draftCashAmounts.invoiceId, invoiceId));
      await db
        .update(draftCashAmounts)
        .set({ amountPence: sql`greatest(${draftCashAmounts.amountPence} - ${pence}, 0)`, updatedAt: new Date() })
        .where(where);
      await db.delete(draftCashAmounts).where(and(where, sql`${draftCashAmounts.amountPence} <= 0`));
    },

    /** Writes Xero's answer for an invoice into the cache, so the list is right without asking Xero again. */
    saveInvoice: cache.saveInvoice,

    /** Records a payment Xero accepted on the cached invoice: amount due, amount paid and (when known) status. */
    async applyPayment(
      organizationId: number,
      invoiceId: string,
      paidPence: number,
      fromXero: { status?: string | null; amountDuePence?: number | null; amountPaidPence?: number | null },
    ): Promise<void> {
      await db
        .update(xeroInvoices)
        .set({
          amountDuePence:
            fromXero.amountDuePence !== null && fromXero.amountDuePence !== undefined
              ? fromXero.amountDuePence
              : sql`greatest(${xeroInvoices.amountDuePence} - ${paidPence}, 0)`,
          amountPaidPence:
            fromXero.amountPaidPence !== null && fromXero.amountPaidPence !== undefined
              ? fromXero.amountPaidPence
              : sql`${xeroInvoices.amountPaidPence} + ${paidPence}`,
          ...(fromXero.status ? { status: fromXero.status } : {}),
          syncedAt: new Date(),
        })
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId)));
    },

    /**
     * Invoices with an approval on its way or done under another key: a second approval could pay the
     * cash twice, so those items are refused rather than sent.
     */
    async findApprovalsInFlight(organizationId: number, invoiceIds: readonly string[], ownKeys: readonly string[]): Promise<Set<string>> {
      if (invoiceIds.length === 0) return new Set();
      const rows = await db
        .select({ targetId: xeroWrites.targetId, key: xeroWrites.idempotencyKey })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, 'invoice.approve'),
            inArray(xeroWrites.targetId, [...invoiceIds]),
            inArray(xeroWrites.state, [...LIVE_WRITE_STATES]),
          ),
        );
      const own = new Set(ownKeys);
      return new Set(rows.filter((r) => r.targetId && !own.has(r.key)).map((r) => r.targetId as string));
    },

    /** This action's earlier ledger rows (a retry of the same user action), by idempotency key. */
    async findWritesByKeys(organizationId: number, keys: readonly string[]) {
      if (keys.length === 0) return new Map<string, typeof xeroWrites.$inferSelect>();
      const rows = await db
        .select()
        .from(xeroWrites)
        .where(and(eq(xeroWrites.organizationId, organizationId), inArray(xeroWrites.idempotencyKey, [...keys])));
      return new Map(rows.map((r) => [r.idempotencyKey, r]));
    },

    /** Xero ids already matched to other writes of a kind (a finder must not claim them twice). */
    async findClaimedXeroIds(organizationId: number, kind: string, exceptWriteId: number): Promise<Set<string>> {
      const rows = await db
        .select({ xeroId: xeroWrites.xeroId })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, kind),
            eq(xeroWrites.state, 'confirmed'),
            isNotNull(xeroWrites.xeroId),
            ne(xeroWrites.id, exceptWriteId),
          ),
        );
      return new Set(rows.map((r) => r.xeroId as string));
    },

    findAccount: cache.findAccount,
    findContact: cache.findContact,
    findTaxRate: cache.findTaxRate,
  };
}
export type AddInvoicesRepository = ReturnType<typeof createAddInvoicesRepository>;
