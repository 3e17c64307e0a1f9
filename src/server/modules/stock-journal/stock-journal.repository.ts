import { and, asc, eq, gte, inArray, isNotNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { stockJournalEntries, users, xeroContacts, xeroInvoices, xeroSyncState } from '../../db/schema/index';
import type { SaleInvoice } from '../../xero/xero-port';
import { createCacheRepository } from '../../xero/cache/cache.repository';

/** Sales invoices count once approved: awaiting payment or paid (docs/architecture.md §4 Stock Journal). */
export const SALES_STATUSES = ['AUTHORISED', 'PAID'] as const;

/** The sync-state row that keeps the high-water mark of the manual journals Ledgerlink has read. */
export const MANUAL_JOURNALS_RESOURCE = 'manual-journals';

/** One cached sales invoice as the weekly grouping takes it: Xero's own figures, in pence. */
export type SalesInvoiceRow = SaleInvoice;

export type StockJournalEntryRow = typeof stockJournalEntries.$inferSelect;
export type NewStockJournalEntry = typeof stockJournalEntries.$inferInsert;

/** Drizzle queries of the Stock Journal; every one is filtered by the organisation. */
export function createStockJournalRepository(db: Db) {
  const cache = createCacheRepository(db);
  /** A customer's approved and paid sales invoices dated in the range (both ends included). */
  const salesInRange = (organizationId: number, contactId: string, fromDate: string, toDate: string) =>
    and(
      eq(xeroInvoices.organizationId, organizationId),
      eq(xeroInvoices.contactId, contactId),
      eq(xeroInvoices.type, 'ACCREC'),
      inArray(xeroInvoices.status, [...SALES_STATUSES]),
      gte(xeroInvoices.date, fromDate),
      lte(xeroInvoices.date, toDate),
    );

  return {
    /** A customer's approved and paid sales invoices dated in the range, oldest first (from the invoice cache). */
    listSalesInvoices(
      organizationId: number,
      contactId: string,
      fromDate: string,
      toDate: string,
    ): Promise<SalesInvoiceRow[]> {
      return db
        .select({
          invoiceNumber: xeroInvoices.invoiceNumber,
          contactName: xeroInvoices.contactName,
          date: sql<string>`${xeroInvoices.date}`,
          totalPence: xeroInvoices.totalPence,
          totalTaxPence: xeroInvoices.totalTaxPence,
          subTotalPence: xeroInvoices.subTotalPence,
        })
        .from(xeroInvoices)
        .where(salesInRange(organizationId, contactId, fromDate, toDate))
        .orderBy(asc(xeroInvoices.date), asc(xeroInvoices.invoiceNumber));
    },

    /** Net sales (sum of SubTotal) of a customer over a period, in pence, from the invoice cache. */
    async sumNetPence(
      organizationId: number,
      contactId: string,
      fromDate: string,
      toDate: string,
    ): Promise<number> {
      const [row] = await db
        .select({ net: sql<string | null>`sum(${xeroInvoices.subTotalPence})` })
        .from(xeroInvoices)
        .where(salesInRange(organizationId, contactId, fromDate, toDate));
      return Number(row?.net ?? 0);
    },

    /** Customer contacts (active, flagged by Xero as customers), plus `alsoId` whatever its flags; by name. */
    listCustomers(organizationId: number, alsoId: string | null) {
      const isCustomer = and(eq(xeroContacts.isCustomer, true), eq(xeroContacts.status, 'ACTIVE'));
      return db
        .select({ id: xeroContacts.contactId, name: xeroContacts.name })
        .from(xeroContacts)
        .where(
          and(
            eq(xeroContacts.organizationId, organizationId),
            alsoId ? or(isCustomer, eq(xeroContacts.contactId, alsoId)) : isCustomer,
          ),
        )
        .orderBy(asc(sql`lower(${xeroContacts.name})`), asc(xeroContacts.contactId));
    },

    findContact: cache.findContact,

    /** Whether a cached resource has ever been synced (so "not in the cache" means "not in Xero"). */
    hasSynced: cache.hasSynced,

    async readHighWater(organizationId: number, resource: string): Promise<Date | null> {
      const [row] = await db
        .select({ highWater: xeroSyncState.highWater })
        .from(xeroSyncState)
        .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
      return row?.highWater ?? null;
    },

    async writeHighWater(organizationId: number, resource: string, highWater: Date | null): Promise<void> {
      const now = new Date();
      await db
        .insert(xeroSyncState)
        .values({ organizationId, resource, highWater, lastSyncAt: now })
        .onConflictDoUpdate({
          target: [xeroSyncState.organizationId, xeroSyncState.resource],
          set: { highWater, lastSyncAt: now },
        });
    },

    listEntries(organizationId: number) {
      return db
        .select()
        .from(stockJournalEntries)
        .where(eq(stockJournalEntries.organizationId, organizationId))
        .orderBy(asc(stockJournalEntries.periodStart), asc(stockJournalEntries.periodEnd));
    },

    async findEntry(organizationId: number, periodStart: string, periodEnd: string) {
      const [row] = await db
        .select()
        .from(stockJournalEntries)
        .where(
          and(
            eq(stockJournalEntries.organizationId, organizationId),
            eq(stockJournalEntries.periodStart, periodStart),
            eq(stockJournalEntries.periodEnd, periodEnd),
          ),
        );
      return row ?? null;
    },

    /**
     * Claims a period for a new journal. The unique index on (organisation, period) makes this the lock:
     * of two posts for one period, only one gets a row; null means the period already has an entry.
     */
    async claimPeriod(entry: NewStockJournalEntry): Promise<StockJournalEntryRow | null> {
      const rows = await db.insert(stockJournalEntries).values(entry).onConflictDoNothing().returning();
      return rows[0] ?? null;
    },

    async updateEntry(organizationId: number, id: number, values: Partial<NewStockJournalEntry>) {
      const [row] = await db
        .update(stockJournalEntries)
        .set({ ...values, updatedAt: new Date() })
        .where(and(eq(stockJournalEntries.organizationId, organizationId), eq(stockJournalEntries.id, id)))
        .returning();
      return row ?? null;
    },

    async deleteEntry(organizationId: number, id: number): Promise<void> {
      await db
        .delete(stockJournalEntries)
        .where(and(eq(stockJournalEntries.organizationId, organizationId), eq(stockJournalEntries.id, id)));
    },

    /** A user's name, to say who is posting a period (null when the user is gone). */
    async findUsername(userId: number): Promise<string | null> {
      const [row] = await db.select({ username: users.username }).from(users).where(eq(users.id, userId));
      return row?.username ?? null;
    },

    /** Entries that have a journal in Xero (whose status can change there). */
    listEntriesWithJournal(organizationId: number) {
      return db
        .select()
        .from(stockJournalEntries)
        .where(
          and(
            eq(stockJournalEntries.organizationId, organizationId),
            isNotNull(stockJournalEntries.journalId),
          ),
        );
    },
  };
}
export type StockJournalRepository = ReturnType<typeof createStockJournalRepository>;
