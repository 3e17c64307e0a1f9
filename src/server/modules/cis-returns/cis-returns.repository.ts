import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  cisContractorSettings,
  cisReturnFilings,
  cisSubcontractorRefs,
  xeroAccounts,
  xeroInvoices,
} from '../../db/schema/index';
import {
  createCacheRepository,
  type CachedAccount,
  type CachedContact,
  type CachedInvoice,
} from '../../xero/cache/cache.repository';

export type { CachedAccount, CachedContact, CachedInvoice };
export type ContractorSettingsRow = typeof cisContractorSettings.$inferSelect;
export type SubcontractorRefsRow = typeof cisSubcontractorRefs.$inferSelect;
export type FilingRow = typeof cisReturnFilings.$inferSelect;

/** Drizzle queries of the CIS month-end (issue 29); every one is filtered by organisation. */
export function createCisReturnsRepository(db: Db) {
  const cache = createCacheRepository(db);
  return {
    /**
     * Approved or paid bills (ACCPAY) with a payment dated from `from` to `to` (ISO dates, both included), as the
     * invoice cache holds them (lines, payments and Xero's CIS deduction).
     */
    findBillsPaidBetween(organizationId: number, from: string, to: string): Promise<CachedInvoice[]> {
      return db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.type, 'ACCPAY'),
            inArray(xeroInvoices.status, ['AUTHORISED', 'PAID']),
            sql`exists (select 1 from jsonb_array_elements(${xeroInvoices.payments}) p where p->>'date' between ${from} and ${to})`,
          ),
        )
        .orderBy(asc(xeroInvoices.date), asc(xeroInvoices.invoiceId));
    },

    findContacts: cache.findContacts,
    findContact: cache.findContact,

    findAccounts(organizationId: number): Promise<CachedAccount[]> {
      return db.select().from(xeroAccounts).where(eq(xeroAccounts.organizationId, organizationId));
    },

    async findSettings(organizationId: number): Promise<ContractorSettingsRow | null> {
      const [row] = await db
        .select()
        .from(cisContractorSettings)
        .where(eq(cisContractorSettings.organizationId, organizationId));
      return row ?? null;
    },

    async saveSettings(
      organizationId: number,
      values: Omit<typeof cisContractorSettings.$inferInsert, 'organizationId' | 'updatedAt'>,
    ): Promise<void> {
      const set = { ...values, updatedAt: new Date() };
      await db
        .insert(cisContractorSettings)
        .values({ organizationId, ...set })
        .onConflictDoUpdate({ target: cisContractorSettings.organizationId, set });
    },

    findRefs(organizationId: number, contactIds: readonly string[]): Promise<SubcontractorRefsRow[]> {
      if (contactIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(cisSubcontractorRefs)
        .where(
          and(
            eq(cisSubcontractorRefs.organizationId, organizationId),
            inArray(cisSubcontractorRefs.contactId, [...contactIds]),
          ),
        );
    },

    async saveRefs(
      organizationId: number,
      contactId: string,
      refs: { utr: string | null; verificationNumber: string | null },
    ): Promise<void> {
      const set = { ...refs, updatedAt: new Date() };
      await db
        .insert(cisSubcontractorRefs)
        .values({ organizationId, contactId, ...set })
        .onConflictDoUpdate({
          target: [cisSubcontractorRefs.organizationId, cisSubcontractorRefs.contactId],
          set,
        });
    },

    findFilings(organizationId: number, periods: readonly string[]): Promise<FilingRow[]> {
      if (periods.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(cisReturnFilings)
        .where(
          and(
            eq(cisReturnFilings.organizationId, organizationId),
            inArray(cisReturnFilings.period, [...periods]),
          ),
        );
    },

    /** Marks a month filed; false when it already was (the row is left as it was). */
    async insertFiling(row: typeof cisReturnFilings.$inferInsert): Promise<boolean> {
      const inserted = await db
        .insert(cisReturnFilings)
        .values(row)
        .onConflictDoNothing()
        .returning({ period: cisReturnFilings.period });
      return inserted.length > 0;
    },

    /** Removes the mark; answers the row removed, or null when the month was not marked. */
    async deleteFiling(organizationId: number, period: string): Promise<FilingRow | null> {
      const [row] = await db
        .delete(cisReturnFilings)
        .where(and(eq(cisReturnFilings.organizationId, organizationId), eq(cisReturnFilings.period, period)))
        .returning();
      return row ?? null;
    },
  };
}
export type CisReturnsRepository = ReturnType<typeof createCisReturnsRepository>;
