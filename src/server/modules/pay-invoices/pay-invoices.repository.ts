import { and, asc, count, eq, gt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroAccounts, xeroInvoices, xeroWrites } from '../../db/schema/index.ts';
import type { CachedPayment } from '../../xero/sync/mappers';

export type InvoiceRow = typeof xeroInvoices.$inferSelect;

/** The columns the invoice list shows (001 §3): no line items or payments, which the list never sends. */
const LIST_COLUMNS = {
  invoiceId: xeroInvoices.invoiceId,
  invoiceNumber: xeroInvoices.invoiceNumber,
  contactName: xeroInvoices.contactName,
  date: xeroInvoices.date,
  dueDate: xeroInvoices.dueDate,
  status: xeroInvoices.status,
  amountPaidPence: xeroInvoices.amountPaidPence,
  sentToContact: xeroInvoices.sentToContact,
  totalPence: xeroInvoices.totalPence,
  amountDuePence: xeroInvoices.amountDuePence,
  currencyCode: xeroInvoices.currencyCode,
  hasAttachments: xeroInvoices.hasAttachments,
  syncedAt: xeroInvoices.syncedAt,
};
export type InvoiceListRow = Pick<InvoiceRow, keyof typeof LIST_COLUMNS>;
export type AccountRow = typeof xeroAccounts.$inferSelect;
export type WriteRow = typeof xeroWrites.$inferSelect;

/** What Xero's answer to a payment (or its reversal) says about the invoice now. */
export interface InvoiceBalance {
  amountDuePence: number;
  amountPaidPence: number;
  status: string;
}

/**
 * Drizzle queries of Pay Invoices. Every query is filtered by the organisation: ids from a request are
 * never looked up across organisations.
 */
export function createPayInvoicesRepository(db: Db) {
  const outstanding = (organizationId: number) =>
    and(
      eq(xeroInvoices.organizationId, organizationId),
      eq(xeroInvoices.type, 'ACCREC'),
      eq(xeroInvoices.status, 'AUTHORISED'),
      gt(xeroInvoices.amountDuePence, 0),
    );

  return {
    /** Approved sales invoices with something left to pay (001 §4), oldest first: the list's columns only. */
    async listOutstanding(organizationId: number): Promise<InvoiceListRow[]> {
      return db
        .select(LIST_COLUMNS)
        .from(xeroInvoices)
        .where(outstanding(organizationId))
        .orderBy(asc(xeroInvoices.date), asc(xeroInvoices.invoiceNumber));
    },

    async countOutstanding(organizationId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(xeroInvoices).where(outstanding(organizationId));
      return Number(row?.n ?? 0);
    },

    async findInvoice(organizationId: number, invoiceId: string): Promise<InvoiceRow | null> {
      const [row] = await db
        .select()
        .from(xeroInvoices)
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId.toLowerCase())));
      if (row) return row;
      // Xero ids are case-insensitive; the cache keeps them as Xero sent them.
      const [loose] = await db
        .select()
        .from(xeroInvoices)
        .where(and(eq(xeroInvoices.organizationId, organizationId), sql`lower(${xeroInvoices.invoiceId}) = ${invoiceId.toLowerCase()}`));
      return loose ?? null;
    },

    /**
     * Records a payment Xero just confirmed on the cached invoice: its new balance and status from Xero's
     * answer, and the payment in the invoice's list (once, however often it is replayed).
     */
    async applyPayment(organizationId: number, invoiceId: string, balance: InvoiceBalance, payment: CachedPayment): Promise<void> {
      const row = await this.findInvoice(organizationId, invoiceId);
      if (!row) return;
      const payments = (row.payments as CachedPayment[]).filter((p) => p.paymentId !== payment.paymentId);
      await db
        .update(xeroInvoices)
        .set({ ...balance, payments: [...payments, payment], syncedAt: new Date() })
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, row.invoiceId)));
    },

    /** Takes a reversed payment off the cached invoice, with the balance Xero reported after the reversal. */
    async removePayment(organizationId: number, invoiceId: string, balance: InvoiceBalance, paymentId: string): Promise<void> {
      const row = await this.findInvoice(organizationId, invoiceId);
      if (!row) return;
      const payments = (row.payments as CachedPayment[]).filter((p) => p.paymentId.toLowerCase() !== paymentId.toLowerCase());
      await db
        .update(xeroInvoices)
        .set({ ...balance, payments, syncedAt: new Date() })
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, row.invoiceId)));
    },

    /** Active Xero bank accounts (card, current, cash…), by name. */
    async listBankAccounts(organizationId: number): Promise<AccountRow[]> {
      return db
        .select()
        .from(xeroAccounts)
        .where(and(eq(xeroAccounts.organizationId, organizationId), eq(xeroAccounts.type, 'BANK'), eq(xeroAccounts.status, 'ACTIVE')))
        .orderBy(asc(xeroAccounts.name));
    },

    /** An active account payments can go to: a bank account, or one with payments enabled (REFERENCE §4.3). */
    async findPaymentAccount(organizationId: number, accountId: string): Promise<AccountRow | null> {
      const [row] = await db
        .select()
        .from(xeroAccounts)
        .where(
          and(
            eq(xeroAccounts.organizationId, organizationId),
            sql`lower(${xeroAccounts.accountId}) = ${accountId.toLowerCase()}`,
            eq(xeroAccounts.status, 'ACTIVE'),
          ),
        );
      if (!row || (row.type !== 'BANK' && !row.enablePaymentsToAccount)) return null;
      return row;
    },

    /** The ledger row of an earlier request with this Idempotency-Key, if any. */
    async findWriteByKey(organizationId: number, idempotencyKey: string): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(and(eq(xeroWrites.organizationId, organizationId), eq(xeroWrites.idempotencyKey, idempotencyKey)));
      return row ?? null;
    },

    /** The confirmed payment write that created this Xero payment. */
    async findPaymentWrite(organizationId: number, paymentId: string): Promise<WriteRow | null> {
      const [row] = await db
        .select()
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, 'payment'),
            eq(xeroWrites.state, 'confirmed'),
            sql`lower(${xeroWrites.xeroId}) = ${paymentId.toLowerCase()}`,
          ),
        );
      return row ?? null;
    },

    /** Xero payment ids other payment writes on this invoice already account for (a finder must not claim them twice). */
    async findClaimedPaymentIds(organizationId: number, invoiceId: string, exceptWriteId: number): Promise<Set<string>> {
      const rows = await db
        .select({ xeroId: xeroWrites.xeroId })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.kind, 'payment'),
            eq(xeroWrites.targetId, invoiceId),
            ne(xeroWrites.id, exceptWriteId),
          ),
        );
      return new Set(rows.map((r) => r.xeroId?.toLowerCase()).filter((id): id is string => Boolean(id)));
    },

    /**
     * Settles a write whose answer was lost once Xero has been asked: confirmed with what was found, or failed
     * when Xero does not have it. Only rows still unsettled change, so a concurrent reconcile wins cleanly.
     */
    async settleWrite(
      organizationId: number,
      writeId: number,
      outcome: { state: 'confirmed'; xeroId: string; response: object } | { state: 'failed'; error: string },
    ): Promise<WriteRow | null> {
      const values =
        outcome.state === 'confirmed'
          ? { state: 'confirmed' as const, xeroId: outcome.xeroId, response: outcome.response, error: null, completedAt: new Date() }
          : { state: 'failed' as const, error: outcome.error, completedAt: new Date() };
      const [row] = await db
        .update(xeroWrites)
        .set(values)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.id, writeId),
            sql`${xeroWrites.state} in ('sent', 'unknown')`,
          ),
        )
        .returning();
      return row ?? null;
    },
  };
}
export type PayInvoicesRepository = ReturnType<typeof createPayInvoicesRepository>;
