import { and, asc, desc, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  cisContractorSettings,
  xeroAccounts,
  xeroContacts,
  xeroInvoices,
  xeroTaxRates,
} from '../../db/schema/index';
import {
  createCacheRepository,
  type CachedAccount,
  type CachedContact,
  type CachedInvoice,
  type CachedTaxRate,
} from '../../xero/cache/cache.repository';

export type { CachedAccount, CachedContact } from '../../xero/cache/cache.repository';
export type CachedBill = CachedInvoice;
export type BillRow = typeof xeroInvoices.$inferInsert;

/**
 * Xero's CIS system accounts: Xero's API refuses every one on a line item of a CIS-enabled organisation ("The
 * account code … cannot be used in line items via the API", docs/xero-api.md §4.8), so they are never offered.
 */
export const CIS_SYSTEM_ACCOUNTS = [
  'CISLABOUREXPENSE',
  'CISMATERIALS',
  'CISLABOURINCOME',
  'CISLABOUR',
  'CISASSET',
  'CISASSETS',
  'CISLIABILITY',
];

/** What CIS Bills reads of the organisation's CIS settings (issue 42; the table cis-returns keeps). */
export interface CisBillSettings {
  deductionAccountCode: string | null;
  materialsAccountCodes: string[];
  reverseCharge: boolean;
}

/** Drizzle queries of the CIS Bills feature; every one is filtered by organisation. */
export function createCisBillsRepository(db: Db) {
  const cache = createCacheRepository(db);
  return {
    /**
     * The organisation's CIS settings a bill needs (issue 42): the deductions account, the materials accounts
     * and the reverse-charge switch; none chosen yet when the organisation has no row.
     */
    async findCisSettings(organizationId: number): Promise<CisBillSettings> {
      const [row] = await db
        .select({
          deductionAccountCode: cisContractorSettings.deductionAccountCode,
          materialsAccountCodes: cisContractorSettings.materialsAccountCodes,
          reverseCharge: cisContractorSettings.reverseCharge,
        })
        .from(cisContractorSettings)
        .where(eq(cisContractorSettings.organizationId, organizationId));
      return {
        deductionAccountCode: row?.deductionAccountCode ?? null,
        materialsAccountCodes: row?.materialsAccountCodes ?? [],
        reverseCharge: row?.reverseCharge ?? false,
      };
    },

    /** Every cached account of the organisation with a code (a line names its account by code). */
    findCodedAccounts(organizationId: number): Promise<CachedAccount[]> {
      return db
        .select()
        .from(xeroAccounts)
        .where(
          and(
            eq(xeroAccounts.organizationId, organizationId),
            isNotNull(xeroAccounts.code),
            ne(xeroAccounts.code, ''),
          ),
        )
        .orderBy(asc(xeroAccounts.code), asc(xeroAccounts.name));
    },

    /** The organisation's tax rates usable on bills (active, for expenses). */
    findBillTaxRates(organizationId: number): Promise<CachedTaxRate[]> {
      return db
        .select()
        .from(xeroTaxRates)
        .where(
          and(
            eq(xeroTaxRates.organizationId, organizationId),
            eq(xeroTaxRates.status, 'ACTIVE'),
            eq(xeroTaxRates.canApplyToExpenses, true),
          ),
        );
    },

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

    findContact: cache.findContact,

    findContacts: cache.findContacts,

    /**
     * Keeps a contact's CIS settings as read from Xero while its UpdatedDateUTC was `updatedUtc` (the cached
     * value read before asking): if a sync moves it meanwhile, the contact counts as unchecked again.
     */
    async saveContactCisSettings(
      organizationId: number,
      contactId: string,
      settings: { enabled: boolean; rate: number | null },
      updatedUtc: Date | null,
    ) {
      await db
        .update(xeroContacts)
        .set({
          cisEnabled: settings.enabled,
          cisRate: settings.rate,
          cisCheckedAt: new Date(),
          cisCheckedUpdatedUtc: updatedUtc,
        })
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

    findAccountByCode: cache.findAccountByCode,
    findAccountById: cache.findAccount,

    /** A tax rate usable on bills (active, applies to expenses), or null. */
    async findBillTaxRate(organizationId: number, taxType: string): Promise<CachedTaxRate | null> {
      const rate = await cache.findTaxRate(organizationId, taxType);
      return rate && rate.status === 'ACTIVE' && rate.canApplyToExpenses ? rate : null;
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

    /** A cached bill (ACCPAY) by id; a sales invoice with that id is no bill. */
    async findBill(organizationId: number, invoiceId: string): Promise<CachedBill | null> {
      const row = await cache.findInvoice(organizationId, invoiceId);
      return row?.type === 'ACCPAY' ? row : null;
    },

    /** Writes Xero's answer into the invoice cache, so the next list needs no call to Xero. */
    upsertBill: cache.saveInvoice,
  };
}
export type CisBillsRepository = ReturnType<typeof createCisBillsRepository>;
