import { and, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { draftCashAmounts, users, xeroInvoices } from '../../db/schema/index';
import { createCacheRepository, type CachedInvoice } from '../../xero/cache/cache.repository';

export type CachedInvoiceRow = CachedInvoice;

/** The pending cash on a draft as it stands, and who saved it last and when (null when there is none). */
export interface PendingCashNow {
  amountPence: number;
  username: string | null;
  updatedAt: Date;
}

/**
 * Queries an intent's plan makes inside the ledger's transaction, under the draft's lock (issue 28), so what
 * it checks cannot change before its steps are recorded.
 */
export const lockedDraftQueries = {
  async findPendingCash(tx: Db, organizationId: number, invoiceId: string): Promise<PendingCashNow | null> {
    const [row] = await tx
      .select({
        amountPence: draftCashAmounts.amountPence,
        username: users.username,
        updatedAt: draftCashAmounts.updatedAt,
      })
      .from(draftCashAmounts)
      .leftJoin(users, eq(users.id, draftCashAmounts.userId))
      .where(
        and(eq(draftCashAmounts.organizationId, organizationId), eq(draftCashAmounts.invoiceId, invoiceId)),
      );
    return row ?? null;
  },

  /** The cached invoice's status now. */
  async findStatus(tx: Db, organizationId: number, invoiceId: string): Promise<string | null> {
    const [row] = await tx
      .select({ status: xeroInvoices.status })
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId)));
    return row?.status ?? null;
  },

  /**
   * Adds cash to a draft's pending amount (in the transaction that confirms its ledger write, issue 44), in one
   * statement refusing (false) when the new pending amount would be above `limitPence` (the invoice total).
   */
  async addPendingCash(
    tx: Db,
    organizationId: number,
    invoiceId: string,
    pence: number,
    limitPence: number,
    userId: number,
  ): Promise<boolean> {
    if (pence > limitPence) return false;
    const rows = await tx
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

  /** Takes `pence` off the pending cash once it is paid in Xero (in the transaction that confirms the payment). */
  async consumePendingCash(tx: Db, organizationId: number, invoiceId: string, pence: number): Promise<void> {
    if (pence <= 0) return;
    const where = and(
      eq(draftCashAmounts.organizationId, organizationId),
      eq(draftCashAmounts.invoiceId, invoiceId),
    );
    await tx
      .update(draftCashAmounts)
      .set({
        amountPence: sql`greatest(${draftCashAmounts.amountPence} - ${pence}, 0)`,
        updatedAt: new Date(),
      })
      .where(where);
    await tx.delete(draftCashAmounts).where(and(where, sql`${draftCashAmounts.amountPence} <= 0`));
  },

  /**
   * An approval Xero confirmed: the cached draft leaves the drafts at once and is read from Xero next time
   * (its balance, its number), whoever confirmed it (the request, a retry, the reconciler).
   */
  async markApproved(tx: Db, organizationId: number, invoiceId: string): Promise<void> {
    await tx
      .update(xeroInvoices)
      .set({ status: 'AUTHORISED', syncedAt: new Date(0) })
      .where(
        and(
          eq(xeroInvoices.organizationId, organizationId),
          eq(xeroInvoices.invoiceId, invoiceId),
          eq(xeroInvoices.status, 'DRAFT'),
        ),
      );
  },

  /** A payment Xero confirmed that the cache may not have seen: the next check or refresh reads Xero. */
  async markStale(tx: Db, organizationId: number, invoiceId: string): Promise<void> {
    await tx
      .update(xeroInvoices)
      .set({ syncedAt: new Date(0) })
      .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId)));
  },
};

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
          and(
            eq(draftCashAmounts.organizationId, xeroInvoices.organizationId),
            eq(draftCashAmounts.invoiceId, xeroInvoices.invoiceId),
          ),
        )
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.type, 'ACCREC'),
            eq(xeroInvoices.status, 'DRAFT'),
          ),
        );
    },

    /** Cached sales invoices by id (any status), so the service can tell drafts from the rest. */
    findInvoices: cache.findInvoices,

    async findPendingCash(
      organizationId: number,
      invoiceIds: readonly string[],
    ): Promise<Map<string, number>> {
      if (invoiceIds.length === 0) return new Map();
      const rows = await db
        .select({ invoiceId: draftCashAmounts.invoiceId, amountPence: draftCashAmounts.amountPence })
        .from(draftCashAmounts)
        .where(
          and(
            eq(draftCashAmounts.organizationId, organizationId),
            inArray(draftCashAmounts.invoiceId, [...invoiceIds]),
          ),
        );
      return new Map(rows.map((r) => [r.invoiceId, r.amountPence]));
    },

    /**
     * Adds cash to an invoice's pending amount in one statement, refusing (false) when the new pending
     * amount would be above `limitPence` (the invoice total), so two requests cannot overshoot together.
     */
    async addPendingCash(
      organizationId: number,
      invoiceId: string,
      pence: number,
      limitPence: number,
      userId: number,
    ): Promise<boolean> {
      if (pence > limitPence) return false;
      const rows = await db
        .insert(draftCashAmounts)
        .values({ organizationId, invoiceId, amountPence: pence, userId, updatedAt: new Date() })
        .onConflictDoUpdate({
          target: [draftCashAmounts.organizationId, draftCashAmounts.invoiceId],
          set: {
            amountPence: sql`${draftCashAmounts.amountPence} + ${pence}`,
            userId,
            updatedAt: new Date(),
          },
          setWhere: sql`${draftCashAmounts.amountPence} + ${pence} <= ${limitPence}`,
        })
        .returning({ amountPence: draftCashAmounts.amountPence });
      return rows.length > 0;
    },

    /** Takes `pence` off an invoice's pending cash once it has been paid in Xero; the row goes at zero. */
    async consumePendingCash(organizationId: number, invoiceId: string, pence: number): Promise<void> {
      if (pence <= 0) return;
      const where = and(
        eq(draftCashAmounts.organizationId, organizationId),
        eq(draftCashAmounts.invoiceId, invoiceId),
      );
      await db
        .update(draftCashAmounts)
        .set({
          amountPence: sql`greatest(${draftCashAmounts.amountPence} - ${pence}, 0)`,
          updatedAt: new Date(),
        })
        .where(where);
      await db.delete(draftCashAmounts).where(and(where, sql`${draftCashAmounts.amountPence} <= 0`));
    },

    /** Writes Xero's answer for an invoice into the cache, so the list is right without asking Xero again. */
    saveInvoice: cache.saveInvoice,

    /**
     * Records a payment Xero accepted on the cached invoice: amount due, amount paid and (when known) status.
     * Newest wins: only when Xero's answer (`asOf`, its UpdatedDateUTC) is at least as new as the cached row,
     * or nothing was written to the row since the payment left (`since`); otherwise the row is marked stale so
     * the next check reads Xero.
     */
    async applyPayment(
      organizationId: number,
      invoiceId: string,
      paidPence: number,
      fromXero: { status?: string | null; amountDuePence?: number | null; amountPaidPence?: number | null },
      asOf: Date | null,
      since: Date,
    ): Promise<void> {
      const row = and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId));
      const newer = asOf
        ? or(
            isNull(xeroInvoices.updatedUtc),
            lte(xeroInvoices.updatedUtc, asOf),
            lte(xeroInvoices.syncedAt, since),
          )
        : lte(xeroInvoices.syncedAt, since);
      const changed = await db
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
          ...(asOf ? { updatedUtc: asOf } : {}),
          syncedAt: new Date(),
        })
        .where(and(row, newer))
        .returning({ id: xeroInvoices.invoiceId });
      if (changed.length === 0)
        await db
          .update(xeroInvoices)
          .set({ syncedAt: new Date(0) })
          .where(row);
    },

    findAccount: cache.findAccount,
    findContact: cache.findContact,
    findTaxRate: cache.findTaxRate,
  };
}
export type AddInvoicesRepository = ReturnType<typeof createAddInvoicesRepository>;
