import { and, asc, desc, eq, inArray, isNotNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroAccounts, xeroContacts, xeroInvoices, xeroTaxRates, xeroWrites } from '../../db/schema/index.ts';

export type CachedContact = typeof xeroContacts.$inferSelect;
export type CachedAccount = typeof xeroAccounts.$inferSelect;
export type CachedBill = typeof xeroInvoices.$inferSelect;
export type BillRow = typeof xeroInvoices.$inferInsert;

/** Xero's CIS system accounts: Xero refuses API bills on them (REFERENCE §4.8), so they are never offered. */
export const CIS_SYSTEM_ACCOUNTS = [
  'CISLABOUREXPENSE',
  'CISMATERIALS',
  'CISLABOURINCOME',
  'CISLABOUR',
  'CISASSET',
  'CISASSETS',
  'CISLIABILITY',
];

/** Drizzle queries of the CIS Bills feature; every one is filtered by organisation. */
export function createCisBillsRepository(db: Db) {
  return {
    /**
     * Subcontractor candidates: the members of the CIS contact group when one is set (a new subcontractor has
     * no bill yet, so Xero has not flagged it a supplier), otherwise every supplier. Archived contacts never.
     */
    findSubcontractors(organizationId: number, groupId: string | null): Promise<CachedContact[]> {
      const inGroup = groupId
        ? sql`${xeroContacts.groupIds} @> ${JSON.stringify([groupId])}::jsonb`
        : eq(xeroContacts.isSupplier, true);
      return db
        .select()
        .from(xeroContacts)
        .where(
          and(eq(xeroContacts.organizationId, organizationId), ne(xeroContacts.status, 'ARCHIVED'), inGroup),
        )
        .orderBy(asc(sql`lower(${xeroContacts.name})`));
    },

    async findContact(organizationId: number, contactId: string): Promise<CachedContact | null> {
      const [row] = await db
        .select()
        .from(xeroContacts)
        .where(and(eq(xeroContacts.organizationId, organizationId), eq(xeroContacts.contactId, contactId)));
      return row ?? null;
    },

    async saveContactCisSettings(
      organizationId: number,
      contactId: string,
      settings: { enabled: boolean; rate: number | null },
    ) {
      await db
        .update(xeroContacts)
        .set({ cisEnabled: settings.enabled, cisRate: settings.rate, cisCheckedAt: new Date() })
        .where(and(eq(xeroContacts.organizationId, organizationId), eq(xeroContacts.contactId, contactId)));
    },

    /** Active direct-costs accounts with a code (a bill line names its account by code), by code. */
    findDirectCostsAccounts(organizationId: number): Promise<CachedAccount[]> {
      return db
        .select()
        .from(xeroAccounts)
        .where(
          and(
            eq(xeroAccounts.organizationId, organizationId),
            eq(xeroAccounts.type, 'DIRECTCOSTS'),
            eq(xeroAccounts.status, 'ACTIVE'),
            isNotNull(xeroAccounts.code),
            ne(xeroAccounts.code, ''),
          ),
        )
        .orderBy(asc(xeroAccounts.code), asc(xeroAccounts.name));
    },

    async findAccountByCode(organizationId: number, code: string): Promise<CachedAccount | null> {
      const [row] = await db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.code, code)));
      return row ?? null;
    },

    async findAccountById(organizationId: number, accountId: string): Promise<CachedAccount | null> {
      const [row] = await db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.accountId, accountId)));
      return row ?? null;
    },

    /** A tax rate usable on bills (active, applies to expenses), or null. */
    async findBillTaxRate(organizationId: number, taxType: string) {
      const [row] = await db
        .select()
        .from(xeroTaxRates)
        .where(
          and(
            eq(xeroTaxRates.organizationId, organizationId),
            eq(xeroTaxRates.taxType, taxType),
            eq(xeroTaxRates.status, 'ACTIVE'),
            eq(xeroTaxRates.canApplyToExpenses, true),
          ),
        );
      return row ?? null;
    },

    /** Draft bills (ACCPAY, DRAFT), newest first; only those of `contactIds` when given. */
    findDraftBills(organizationId: number, contactIds: string[] | null): Promise<CachedBill[]> {
      if (contactIds && contactIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.type, 'ACCPAY'),
            eq(xeroInvoices.status, 'DRAFT'),
            contactIds ? inArray(xeroInvoices.contactId, contactIds) : undefined,
          ),
        )
        .orderBy(
          desc(xeroInvoices.date),
          asc(sql`lower(coalesce(${xeroInvoices.contactName}, ''))`),
          asc(xeroInvoices.invoiceId),
        );
    },

    async findBill(organizationId: number, invoiceId: string): Promise<CachedBill | null> {
      const [row] = await db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.invoiceId, invoiceId),
            eq(xeroInvoices.type, 'ACCPAY'),
          ),
        );
      return row ?? null;
    },

    /** Writes Xero's answer into the invoice cache, so the next list needs no call to Xero. */
    async upsertBill(row: BillRow): Promise<void> {
      const { organizationId: _org, invoiceId: _id, ...rest } = row;
      await db
        .insert(xeroInvoices)
        .values(row)
        .onConflictDoUpdate({ target: [xeroInvoices.organizationId, xeroInvoices.invoiceId], set: rest });
    },

    /** Whether this bill was created through Ledgerlink (a confirmed create in the write ledger). */
    async isCreatedHere(organizationId: number, invoiceId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: xeroWrites.id })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, 'bill.create'),
            eq(xeroWrites.state, 'confirmed'),
            eq(xeroWrites.xeroId, invoiceId),
          ),
        )
        .limit(1);
      return Boolean(row);
    },

    /** Of these bill ids, the ones another confirmed create already accounts for (so a lookup never claims one twice). */
    async findClaimedBillIds(
      organizationId: number,
      invoiceIds: string[],
      exceptWriteId: number,
    ): Promise<Set<string>> {
      if (invoiceIds.length === 0) return new Set();
      const rows = await db
        .select({ xeroId: xeroWrites.xeroId })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, 'bill.create'),
            inArray(xeroWrites.xeroId, invoiceIds),
            ne(xeroWrites.id, exceptWriteId),
            or(eq(xeroWrites.state, 'confirmed'), eq(xeroWrites.state, 'needs_review')),
          ),
        );
      return new Set(rows.map((r) => r.xeroId).filter((id): id is string => Boolean(id)));
    },
  };
}
export type CisBillsRepository = ReturnType<typeof createCisBillsRepository>;
