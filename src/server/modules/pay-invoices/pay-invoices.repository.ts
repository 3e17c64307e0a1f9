import { and, asc, count, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroAccounts, xeroInvoices } from '../../db/schema/index';
import type { WriteRow } from '../../ledger/index';
import type { CachedAccount } from '../../xero/cache/cache.repository';
import type { CachedPayment } from '../../xero/sync/mappers';

export type InvoiceRow = typeof xeroInvoices.$inferSelect;

/**
 * The columns an invoice of the list is made from (docs/product/features.md §3): no line items or payments, which
 * the list never sends.
 */
export type InvoiceListRow = Pick<
  InvoiceRow,
  | 'invoiceId'
  | 'invoiceNumber'
  | 'contactName'
  | 'date'
  | 'dueDate'
  | 'status'
  | 'amountPaidPence'
  | 'sentToContact'
  | 'totalPence'
  | 'amountDuePence'
  | 'currencyCode'
  | 'hasAttachments'
  | 'syncedAt'
>;
export type { WriteRow };

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

  const rowOf = (row: InvoiceRow) =>
    and(eq(xeroInvoices.organizationId, row.organizationId), eq(xeroInvoices.invoiceId, row.invoiceId));

  /**
   * Newest wins: the row takes Xero's answer when the answer's UpdatedDateUTC (`asOf`) is at least the cached
   * one's, or when nothing was written to the row since the request left (`since`). Otherwise (a concurrent
   * payment's answer was written meanwhile and is newer) it keeps its figures and is marked stale, so the next
   * check reads Xero.
   */
  async function writeIfNewer(
    row: InvoiceRow,
    values: Partial<InvoiceRow>,
    asOf: Date | null,
    since: Date,
  ): Promise<void> {
    const newer = asOf
      ? or(
          isNull(xeroInvoices.updatedUtc),
          lte(xeroInvoices.updatedUtc, asOf),
          lte(xeroInvoices.syncedAt, since),
        )
      : lte(xeroInvoices.syncedAt, since);
    const changed = await db
      .update(xeroInvoices)
      .set({ ...values, ...(asOf ? { updatedUtc: asOf } : {}), syncedAt: new Date() })
      .where(and(rowOf(row), newer))
      .returning({ id: xeroInvoices.invoiceId });
    if (changed.length === 0)
      await db
        .update(xeroInvoices)
        .set({ syncedAt: new Date(0) })
        .where(rowOf(row));
  }

  return {
    /**
     * Approved sales invoices with something left to pay (docs/product/features.md §4), oldest first, as the
     * answer's JSON text built by the database: `toInvoiceDto` (pay-invoices.service.ts) of every row, byte for byte (pay-invoices.list-json.test.ts holds the two together). A 10,000-invoice list
     * read as rows was about 64 MB of short-lived strings and objects in the server on its way to 2.6 MB of JSON
     * (bench/results.md §2); as one text it is the 2.6 MB alone. row_to_json keeps the select list's order and
     * writes no spaces, as JSON.stringify does; float8 prints the shortest exact decimal, as JavaScript does.
     */
    async listOutstandingJson(organizationId: number, placeholderAttachments: string): Promise<string> {
      const i = xeroInvoices;
      const dto = sql`(select row_to_json(dto) from (select
          ${i.invoiceId} as "invoiceId",
          coalesce(${i.invoiceNumber}, '') as "invoiceNumber",
          coalesce(${i.contactName}, '') as "contactName",
          coalesce(${i.date}, ${i.dueDate}, (${i.syncedAt} at time zone 'Europe/London')::date) as "date",
          ${i.dueDate} as "dueDate",
          case
            when ${i.status} <> 'AUTHORISED' then ${i.status}
            when ${i.amountPaidPence} > 0 then 'PARTIAL'
            when ${i.sentToContact} then 'SENT'
            else 'AUTHORISED'
          end as "status",
          ${i.totalPence}::float8 / 100 as "totalAmount",
          ${i.amountDuePence}::float8 / 100 as "amountDue",
          coalesce(nullif(${i.currencyCode}, ''), 'GBP') as "currency",
          case when ${i.hasAttachments} then ${placeholderAttachments}::json else '[]'::json end as "attachments"
        ) dto)`;
      const [row] = await db
        .select({
          body: sql<
            string | null
          >`string_agg(${dto}::text, ',' order by ${i.date}, ${i.invoiceNumber}, ${i.invoiceId})`,
        })
        .from(i)
        .where(outstanding(organizationId));
      // The brackets are added here: in the query they would copy the whole text once more in the database.
      return row?.body ? `[${row.body}]` : '[]';
    },

    /**
     * How many invoices the list holds and what is due on them in pounds (the Today page, issue 47): the list's
     * own rows (`outstanding`), added up by the database. Invoices in another currency are counted, and their
     * amounts left out of the pounds and counted apart.
     */
    async summarizeOutstanding(
      organizationId: number,
    ): Promise<{ count: number; amountDuePence: number; otherCurrencies: number }> {
      const i = xeroInvoices;
      const inPounds = sql`coalesce(nullif(${i.currencyCode}, ''), 'GBP') = 'GBP'`;
      const [row] = await db
        .select({
          n: count(),
          due: sql<string | null>`sum(${i.amountDuePence}) filter (where ${inPounds})`,
          other: sql<string>`count(*) filter (where not (${inPounds}))`,
        })
        .from(i)
        .where(outstanding(organizationId));
      return {
        count: Number(row?.n ?? 0),
        amountDuePence: Number(row?.due ?? 0),
        otherCurrencies: Number(row?.other ?? 0),
      };
    },

    async countOutstanding(organizationId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(xeroInvoices).where(outstanding(organizationId));
      return Number(row?.n ?? 0);
    },

    async findInvoice(organizationId: number, invoiceId: string): Promise<InvoiceRow | null> {
      const [row] = await db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            eq(xeroInvoices.invoiceId, invoiceId.toLowerCase()),
          ),
        );
      if (row) return row;
      // Xero ids are case-insensitive; the cache keeps them as Xero sent them.
      const [loose] = await db
        .select()
        .from(xeroInvoices)
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            sql`lower(${xeroInvoices.invoiceId}) = ${invoiceId.toLowerCase()}`,
          ),
        );
      return loose ?? null;
    },

    /**
     * Records a payment Xero just confirmed on the cached invoice: its balance and status from Xero's answer,
     * and the payment in the invoice's list (once), newest wins (see writeIfNewer).
     */
    async applyPayment(
      organizationId: number,
      invoiceId: string,
      balance: InvoiceBalance,
      payment: CachedPayment,
      asOf: Date | null,
      since: Date,
    ): Promise<void> {
      const row = await this.findInvoice(organizationId, invoiceId);
      if (!row) return;
      const payments = (row.payments as CachedPayment[]).filter((p) => p.paymentId !== payment.paymentId);
      await writeIfNewer(row, { ...balance, payments: [...payments, payment] }, asOf, since);
    },

    /** Takes a reversed payment off the cached invoice, with the balance Xero reported after the reversal (newest wins). */
    async removePayment(
      organizationId: number,
      invoiceId: string,
      balance: InvoiceBalance,
      paymentId: string,
      asOf: Date | null,
      since: Date,
    ): Promise<void> {
      const row = await this.findInvoice(organizationId, invoiceId);
      if (!row) return;
      const payments = (row.payments as CachedPayment[]).filter(
        (p) => p.paymentId.toLowerCase() !== paymentId.toLowerCase(),
      );
      await writeIfNewer(row, { ...balance, payments }, asOf, since);
    },

    /**
     * Marks a cached invoice as not known to be current (a payment on it is on its way to Xero): until Xero's
     * answer is written, a check or a refresh reads the invoice from Xero instead of trusting the cache.
     */
    async markStale(organizationId: number, invoiceId: string): Promise<void> {
      const marked = await db
        .update(xeroInvoices)
        .set({ syncedAt: new Date(0) })
        .where(and(eq(xeroInvoices.organizationId, organizationId), eq(xeroInvoices.invoiceId, invoiceId)))
        .returning({ id: xeroInvoices.invoiceId });
      if (marked.length > 0) return;
      // Xero ids are case-insensitive; a ledger row may name the invoice in another case than the cache.
      await db
        .update(xeroInvoices)
        .set({ syncedAt: new Date(0) })
        .where(
          and(
            eq(xeroInvoices.organizationId, organizationId),
            sql`lower(${xeroInvoices.invoiceId}) = ${invoiceId.toLowerCase()}`,
          ),
        );
    },

    /** Active Xero bank accounts (card, current, cash…), by name. */
    async listBankAccounts(organizationId: number): Promise<CachedAccount[]> {
      return db
        .select()
        .from(xeroAccounts)
        .where(
          and(
            eq(xeroAccounts.organizationId, organizationId),
            eq(xeroAccounts.type, 'BANK'),
            eq(xeroAccounts.status, 'ACTIVE'),
          ),
        )
        .orderBy(asc(xeroAccounts.name));
    },

    /**
     * An active account payments can go to: a bank account, or one with payments enabled
     * (docs/xero-api.md §4.3).
     */
    async findPaymentAccount(organizationId: number, accountId: string): Promise<CachedAccount | null> {
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
  };
}
export type PayInvoicesRepository = ReturnType<typeof createPayInvoicesRepository>;
