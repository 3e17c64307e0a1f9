import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroAccounts, xeroContacts, xeroInvoices, xeroSyncState, xeroTaxRates } from '../../db/schema/index';

export type CachedAccount = typeof xeroAccounts.$inferSelect;
export type CachedTaxRate = typeof xeroTaxRates.$inferSelect;
export type CachedContact = typeof xeroContacts.$inferSelect;
export type CachedInvoice = typeof xeroInvoices.$inferSelect;
export type NewCachedInvoice = typeof xeroInvoices.$inferInsert;

/**
 * Lookups in Ledgerlink's copy of an organisation's Xero data (accounts, tax rates, contacts, invoices),
 * shared by the feature repositories so each lookup is written once. Every query is filtered by the
 * organisation: an id from a request is never looked up across organisations. The methods use no `this`,
 * so a feature repository can hand them on as they are.
 */
export function createCacheRepository(db: Db) {
  return {
    /** Whether a cached resource has ever been synced (so "not in the cache" means "not in Xero"). */
    async hasSynced(organizationId: number, resource: string): Promise<boolean> {
      const [row] = await db
        .select({ lastSyncAt: xeroSyncState.lastSyncAt })
        .from(xeroSyncState)
        .where(and(eq(xeroSyncState.organizationId, organizationId), eq(xeroSyncState.resource, resource)));
      return Boolean(row?.lastSyncAt);
    },

    listAccounts(organizationId: number): Promise<CachedAccount[]> {
      return db.select().from(xeroAccounts).where(eq(xeroAccounts.organizationId, organizationId));
    },

    async findAccount(organizationId: number, accountId: string): Promise<CachedAccount | null> {
      const [row] = await db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.accountId, accountId)));
      return row ?? null;
    },

    /** The first account with this code (a bill line names its account by code). */
    async findAccountByCode(organizationId: number, code: string): Promise<CachedAccount | null> {
      const [row] = await db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.code, code)));
      return row ?? null;
    },

    findAccounts(organizationId: number, accountIds: readonly string[]): Promise<CachedAccount[]> {
      if (accountIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroAccounts)
        .where(
          and(
            eq(xeroAccounts.organizationId, organizationId),
            inArray(xeroAccounts.accountId, [...accountIds]),
          ),
        );
    },

    async findTaxRate(organizationId: number, taxType: string): Promise<CachedTaxRate | null> {
      const [row] = await db
        .select()
        .from(xeroTaxRates)
        .where(and(eq(xeroTaxRates.organizationId, organizationId), eq(xeroTaxRates.taxType, taxType)));
      return row ?? null;
    },

    findTaxRates(organizationId: number, taxTypes: readonly string[]): Promise<CachedTaxRate[]> {
      if (taxTypes.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroTaxRates)
        .where(
          and(eq(xeroTaxRates.organizationId, organizationId), inArray(xeroTaxRates.taxType, [...taxTypes])),
        );
    },

    async findContact(organizationId: number, contactId: string): Promise<CachedContact | null> {
      const [row] = await db
        .select()
        .from(xeroContacts)
        .where(and(eq(xeroContacts.organizationId, organizationId), eq(xeroContacts.contactId, contactId)));
      return row ?? null;
    },

    findContacts(organizationId: number, contactIds: readonly string[]): Promise<CachedContact[]> {
      if (contactIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroContacts)
        .where(
          and(
            eq(xeroContacts.organizationId, organizationId),
            inArray(xeroContacts.contactId, [...contactIds]),
          ),
        );
    },

    async findInvoice(organizationId: number, invoiceId: string): Promise<CachedInvoice | null> {
      const [row] = await db
        .select()
        .from(xeroInvoices)
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId)));
      return row ?? null;
    },

    /** Cached invoices and bills by id, any type and status (the caller tells drafts from the rest). */
    findInvoices(organizationId: number, invoiceIds: readonly string[]): Promise<CachedInvoice[]> {
      if (invoiceIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            inArray(xeroInvoices.invoiceId, [...invoiceIds]),
          ),
        );
    },

    /** Writes Xero's answer for an invoice or bill into the cache, so the next list needs no call to Xero. */
    async saveInvoice(row: NewCachedInvoice): Promise<void> {
      const { organizationId: _org, invoiceId: _id, ...set } = row;
      await db
        .insert(xeroInvoices)
        .values(row)
        .onConflictDoUpdate({ target: [xeroInvoices.organizationId, xeroInvoices.invoiceId], set });
    },
  };
}
export type CacheRepository = ReturnType<typeof createCacheRepository>;
