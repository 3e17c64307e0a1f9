import { and, asc, eq, getTableColumns, gte, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  cisContractorSettings,
  cisCountedPayments,
  cisNilMonths,
  cisReturnFilings,
  cisSubcontractorRefs,
  xeroAccounts,
  xeroCreditNotes,
  xeroInvoices,
} from '../../db/schema/index';
import {
  createCacheRepository,
  type CachedAccount,
  type CachedContact,
  type CachedInvoice,
} from '../../xero/cache/cache.repository';
import type { CachedCreditAllocation } from '../../xero/sync/mappers';

/** A credit note's allocation as the cache keeps it (the sync's mapper writes it). */
export type CachedAllocation = CachedCreditAllocation;

export type { CachedAccount, CachedContact, CachedInvoice };
export type ContractorSettingsRow = typeof cisContractorSettings.$inferSelect;
export type SubcontractorRefsRow = typeof cisSubcontractorRefs.$inferSelect;
export type FilingRow = typeof cisReturnFilings.$inferSelect;
export type CachedCreditNote = typeof xeroCreditNotes.$inferSelect;
export type NilMonthRow = typeof cisNilMonths.$inferSelect;
export type CountedPaymentRow = typeof cisCountedPayments.$inferSelect;

/** A counted payment with whether Xero still lists it on its document (a removed payment stops counting). */
export type CountedPaymentState = CountedPaymentRow & { counts: boolean };

/** Drizzle queries of the CIS month-end (issue 29); every one is filtered by organisation. */
export function createCisReturnsRepository(db: Db) {
  const cache = createCacheRepository(db);
  function findCreditNotesWithUncountedRefunds(organizationId: number): Promise<CachedCreditNote[]> {
    return db
      .select()
      .from(xeroCreditNotes)
      .where(
        and(
          eq(xeroCreditNotes.organizationId, organizationId),
          eq(xeroCreditNotes.type, 'ACCPAYCREDIT'),
          inArray(xeroCreditNotes.status, ['AUTHORISED', 'PAID']),
          sql`exists (select 1 from jsonb_array_elements(${xeroCreditNotes.payments}) p where not exists (
            select 1 from cis_counted_payments c
            where c.organization_id = ${xeroCreditNotes.organizationId} and c.payment_id = p->>'paymentId'))`,
        ),
      )
      .orderBy(asc(xeroCreditNotes.date), asc(xeroCreditNotes.creditNoteId));
  }
  return {
    /**
     * Approved or paid bills (ACCPAY) with a payment Ledgerlink has not counted yet, as the invoice cache holds
     * them (lines, payments and Xero's CIS deduction), restricted to the bills that may be CIS bills: of the given
     * contacts, or carrying a deduction (Xero's, or a line on the deductions account or described as one).
     */
    findBillsWithUncountedPayments(
      organizationId: number,
      contactIds: readonly string[],
      deductionAccountCode: string | null,
    ): Promise<CachedInvoice[]> {
      const ids = [...contactIds];
      return db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.type, 'ACCPAY'),
            inArray(xeroInvoices.status, ['AUTHORISED', 'PAID']),
            sql`exists (select 1 from jsonb_array_elements(${xeroInvoices.payments}) p where not exists (
              select 1 from cis_counted_payments c
              where c.organization_id = ${xeroInvoices.organizationId} and c.payment_id = p->>'paymentId'))`,
            sql`(${
              ids.length > 0
                ? sql`${xeroInvoices.contactId} in (${sql.join(
                    ids.map((id) => sql`${id}`),
                    sql`, `,
                  )})`
                : sql`false`
            }
              or ${xeroInvoices.cisDeductionPence} > 0
              or exists (select 1 from jsonb_array_elements(${xeroInvoices.lines}) l
                where l->>'description' ~* '^\s*CIS deduction at (0|20|30)\s?%\s*$'
                   or (${deductionAccountCode}::text is not null and l->>'accountCode' = ${deductionAccountCode}::text)))`,
          ),
        )
        .orderBy(asc(xeroInvoices.date), asc(xeroInvoices.invoiceId));
    },

    /** The contacts of the bills with a payment not counted yet (whose CIS settings may need reading). */
    async findContactsWithUncountedPayments(organizationId: number): Promise<string[]> {
      const rows = await db
        .selectDistinct({ contactId: xeroInvoices.contactId })
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.type, 'ACCPAY'),
            inArray(xeroInvoices.status, ['AUTHORISED', 'PAID']),
            sql`exists (select 1 from jsonb_array_elements(${xeroInvoices.payments}) p where not exists (
              select 1 from cis_counted_payments c
              where c.organization_id = ${xeroInvoices.organizationId} and c.payment_id = p->>'paymentId'))`,
          ),
        );
      return rows.flatMap((r) => (r.contactId ? [r.contactId] : []));
    },

    /** Supplier credit notes (approved or paid) with a refund Ledgerlink has not counted yet. */
    findCreditNotesWithUncountedRefunds,

    async findCreditContactsWithUncountedRefunds(organizationId: number): Promise<string[]> {
      const rows = await findCreditNotesWithUncountedRefunds(organizationId);
      return [...new Set(rows.flatMap((r) => (r.contactId ? [r.contactId] : [])))];
    },

    /** The supplier credit notes (approved or paid) allocated to these bills, one entry per allocation. */
    async findAllocationsTo(
      organizationId: number,
      billIds: readonly string[],
    ): Promise<Array<{ allocation: CachedAllocation; credit: CachedCreditNote }>> {
      if (billIds.length === 0) return [];
      const wanted = new Set(billIds.map((id) => id.toLowerCase()));
      const credits = await db
        .select()
        .from(xeroCreditNotes)
        .where(
          and(
            eq(xeroCreditNotes.organizationId, organizationId),
            eq(xeroCreditNotes.type, 'ACCPAYCREDIT'),
            inArray(xeroCreditNotes.status, ['AUTHORISED', 'PAID']),
            sql`exists (select 1 from jsonb_array_elements(${xeroCreditNotes.allocations}) a
              where lower(a->>'invoiceId') in (${sql.join(
                [...wanted].map((id) => sql`${id}`),
                sql`, `,
              )}))`,
          ),
        );
      return credits.flatMap((credit) =>
        ((credit.allocations as CachedAllocation[]) ?? [])
          .filter((a) => wanted.has(a.invoiceId.toLowerCase()))
          .map((allocation) => ({ allocation, credit })),
      );
    },

    /** The payments already counted on these documents (bills or credit notes). */
    findCountedByDocuments(
      organizationId: number,
      documentIds: readonly string[],
    ): Promise<CountedPaymentRow[]> {
      if (documentIds.length === 0) return Promise.resolve([]);
      return db
        .select()
        .from(cisCountedPayments)
        .where(
          and(
            eq(cisCountedPayments.organizationId, organizationId),
            inArray(cisCountedPayments.documentId, [...documentIds]),
          ),
        );
    },

    /** Keeps what new payments carry; a payment counted meanwhile by another request keeps its first row. */
    async insertCounted(rows: Array<typeof cisCountedPayments.$inferInsert>): Promise<void> {
      for (let i = 0; i < rows.length; i += 200)
        await db
          .insert(cisCountedPayments)
          .values(rows.slice(i, i + 200))
          .onConflictDoNothing();
    },

    /**
     * Counted payments dated from `from` to `to` (all when left out), each with whether it still counts: Xero
     * still lists it on its document in the cache (a document the cache no longer holds, after a clean-up of old
     * paid bills, keeps its payments counting; a voided or deleted one, or a payment removed, stops them).
     */
    async findCounted(organizationId: number, from?: string, to?: string): Promise<CountedPaymentState[]> {
      const c = cisCountedPayments;
      const onBill = sql`(select coalesce(bool_or(i.status in ('AUTHORISED', 'PAID') and exists (
          select 1 from jsonb_array_elements(i.payments) p where p->>'paymentId' = ${c.paymentId})), true)
        from xero_invoices i where i.organization_id = ${c.organizationId} and i.invoice_id = ${c.documentId})`;
      const onCredit = sql`(select coalesce(bool_or(n.status in ('AUTHORISED', 'PAID') and exists (
          select 1 from jsonb_array_elements(n.payments) p where p->>'paymentId' = ${c.paymentId})), true)
        from xero_credit_notes n where n.organization_id = ${c.organizationId} and n.credit_note_id = ${c.documentId})`;
      return db
        .select({
          ...getTableColumns(c),
          counts: sql<boolean>`case when ${c.documentType} = 'ACCPAY' then ${onBill} else ${onCredit} end`,
        })
        .from(c)
        .where(
          and(
            eq(c.organizationId, organizationId),
            from ? gte(c.date, from) : undefined,
            to ? lte(c.date, to) : undefined,
          ),
        )
        .orderBy(asc(c.date), asc(c.paymentId));
    },

    /** The earliest day a counted payment was made (the first CIS payment), or null. */
    async findFirstCountedDate(organizationId: number): Promise<string | null> {
      const [row] = await db
        .select({ first: sql<string | null>`min(${cisCountedPayments.date})::text` })
        .from(cisCountedPayments)
        .where(eq(cisCountedPayments.organizationId, organizationId));
      return row?.first ?? null;
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

    /** Every month filed, for the months list and the penalty rules. */
    findAllFilings(organizationId: number): Promise<FilingRow[]> {
      return db.select().from(cisReturnFilings).where(eq(cisReturnFilings.organizationId, organizationId));
    },

    findNilMonths(organizationId: number): Promise<NilMonthRow[]> {
      return db.select().from(cisNilMonths).where(eq(cisNilMonths.organizationId, organizationId));
    },

    /** Marks a nil month; false when it already was. */
    async insertNilMonth(row: typeof cisNilMonths.$inferInsert): Promise<boolean> {
      const inserted = await db
        .insert(cisNilMonths)
        .values(row)
        .onConflictDoNothing()
        .returning({ period: cisNilMonths.period });
      return inserted.length > 0;
    },

    async deleteNilMonth(organizationId: number, period: string): Promise<NilMonthRow | null> {
      const [row] = await db
        .delete(cisNilMonths)
        .where(and(eq(cisNilMonths.organizationId, organizationId), eq(cisNilMonths.period, period)))
        .returning();
      return row ?? null;
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

    /**
     * Keeps HMRC's receipt with a month already marked filed by hand (issue 43: HMRC accepted a return sent from
     * Ledgerlink while someone marked the month): only a mark without a receipt; answers whether it was kept.
     */
    async attachReceipt(
      organizationId: number,
      period: string,
      receipt: { irmark: string | null; receivedAt: string | null; correlationId: string | null },
    ): Promise<boolean> {
      const updated = await db
        .update(cisReturnFilings)
        .set({
          irmark: receipt.irmark,
          hmrcReceivedAt: receipt.receivedAt ? new Date(receipt.receivedAt) : null,
          correlationId: receipt.correlationId,
        })
        .where(
          and(
            eq(cisReturnFilings.organizationId, organizationId),
            eq(cisReturnFilings.period, period),
            isNull(cisReturnFilings.irmark),
          ),
        )
        .returning({ period: cisReturnFilings.period });
      return updated.length > 0;
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
