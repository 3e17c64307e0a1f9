import { and, asc, eq, ilike, inArray, like, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import {
  organizations,
  xeroAccounts,
  xeroContactGroups,
  xeroContacts,
  xeroInvoices,
  xeroSyncState,
  xeroTaxRates,
} from '../../db/schema/index';
import {
  createCacheRepository,
  type CachedAccount,
  type CachedContact,
  type CachedTaxRate,
} from '../../xero/cache/cache.repository';

export type AccountRow = CachedAccount;
export type TaxRateRow = CachedTaxRate;
export type ContactRow = CachedContact;
export type ContactGroupRow = typeof xeroContactGroups.$inferSelect;
export type OrganizationDefaultsUpdate = Partial<
  Pick<
    typeof organizations.$inferInsert,
    | 'defaultCreditCardAccountId'
    | 'defaultCashAccountId'
    | 'defaultSalesAccountId'
    | 'defaultVatRateId'
    | 'defaultBillVatRateId'
    | 'defaultBillAccountId'
    | 'defaultContactId'
    | 'defaultTaxStatus'
    | 'defaultCisSubcontractorsGroupId'
    | 'defaultStockJournalContactId'
    | 'defaultStockJournalMarginRate'
    | 'defaultStockJournalStockAccountId'
    | 'defaultStockJournalCostAccountId'
    | 'defaultStockJournalPostingStatus'
  >
>;

/** `%` and `_` typed by a user are literal characters, not patterns. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Settings, reference lists and maintenance: Drizzle queries only, each filtered by organisation. */
export function createSettingsRepository(db: Db) {
  const cache = createCacheRepository(db);
  return {
    listAccounts: cache.listAccounts,
    findAccounts: cache.findAccounts,

    listTaxRates(organizationId: number): Promise<TaxRateRow[]> {
      return db
        .select()
        .from(xeroTaxRates)
        .where(eq(xeroTaxRates.organizationId, organizationId))
        .orderBy(asc(xeroTaxRates.name));
    },

    findTaxRates: cache.findTaxRates,

    /** Active contacts whose name contains the search text (any case), by name. */
    searchContacts(organizationId: number, search: string, limit: number): Promise<ContactRow[]> {
      const text = search.trim();
      return db
        .select()
        .from(xeroContacts)
        .where(
          and(
            eq(xeroContacts.organizationId, organizationId),
            eq(xeroContacts.status, 'ACTIVE'),
            text ? ilike(xeroContacts.name, `%${escapeLike(text)}%`) : sql`true`,
          ),
        )
        .orderBy(asc(sql`lower(${xeroContacts.name})`), asc(xeroContacts.contactId))
        .limit(limit);
    },

    findContacts: cache.findContacts,

    listContactGroups(organizationId: number): Promise<ContactGroupRow[]> {
      return db
        .select()
        .from(xeroContactGroups)
        .where(
          and(eq(xeroContactGroups.organizationId, organizationId), eq(xeroContactGroups.status, 'ACTIVE')),
        )
        .orderBy(asc(sql`lower(${xeroContactGroups.name})`));
    },

    findContactGroups(organizationId: number, groupIds: string[]): Promise<ContactGroupRow[]> {
      if (groupIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroContactGroups)
        .where(
          and(
            eq(xeroContactGroups.organizationId, organizationId),
            inArray(xeroContactGroups.groupId, groupIds),
          ),
        );
    },

    async updateDefaults(organizationId: number, values: OrganizationDefaultsUpdate) {
      const [row] = await db
        .update(organizations)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(organizations.id, organizationId))
        .returning();
      announceLocalChange(db, `o:${organizationId}`);
      return row ?? null;
    },

    /** Cached bank accounts (Type BANK) of the organisation. */
    listBankAccounts(organizationId: number): Promise<AccountRow[]> {
      return db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.type, 'BANK')));
    },

    async deleteAccounts(organizationId: number, accountIds: string[]): Promise<number> {
      if (accountIds.length === 0) return 0;
      const rows = await db
        .delete(xeroAccounts)
        .where(
          and(eq(xeroAccounts.organizationId, organizationId), inArray(xeroAccounts.accountId, accountIds)),
        )
        .returning({ accountId: xeroAccounts.accountId });
      return rows.length;
    },

    async upsertAccounts(rows: Array<typeof xeroAccounts.$inferInsert>): Promise<void> {
      for (const row of rows) {
        await db
          .insert(xeroAccounts)
          .values(row)
          .onConflictDoUpdate({ target: [xeroAccounts.organizationId, xeroAccounts.accountId], set: row });
      }
    },

    /**
     * Cached invoices that are finished (paid, voided or deleted) and dated before the cut-off. Open and draft
     * invoices stay whatever their age: the screens that show them would not fetch them again.
     */
    async deleteFinishedInvoicesBefore(organizationId: number, cutoffDate: string): Promise<number> {
      const rows = await db
        .delete(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            inArray(xeroInvoices.status, ['PAID', 'VOIDED', 'DELETED']),
            lt(xeroInvoices.date, cutoffDate),
          ),
        )
        .returning({ invoiceId: xeroInvoices.invoiceId });
      return rows.length;
    },

    /**
     * Forgets the sync marks of the per-customer invoice views (paid invoices by customer): their rows may
     * have been cleaned up, and an incremental sync would never bring back invoices that did not change.
     */
    async resetCustomerInvoiceViews(organizationId: number): Promise<void> {
      await db
        .delete(xeroSyncState)
        .where(
          and(
            eq(xeroSyncState.organizationId, organizationId),
            like(xeroSyncState.resource, 'invoices:contact:%'),
          ),
        );
    },
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
