/**
 * Xero's manual journals as the Stock Journal feature reads and writes them (docs/xero-api.md §4.7).
 * PascalCase stays in the Xero layer (this file, the sync mappers); the service
 * speaks our vocabulary. Unknown fields pass through: Xero adds fields
 * without notice.
 */
import { z } from 'zod';
import { convertXeroDate, getDateParts } from '../../../shared/dates';
import { formatPenceAsDecimal } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { Journal, JournalsPort, SaleInvoice, SalesPort, StockTransferJournal } from '../xero-port';
import { toDateOrNull, toPenceFromXero } from '../sync/mappers';
import type { XeroHttp } from './http';
import { xeroInvoicesEnvelope } from './schemas';

export const xeroManualJournalLineSchema = z.object({
  LineAmount: z.number().nullish(),
  AccountCode: z.string().nullish(),
  AccountID: z.string().nullish(),
  Description: z.string().nullish(),
  TaxType: z.string().nullish(),
});

export const xeroManualJournalSchema = z.object({
  ManualJournalID: z.string(),
  Narration: z.string().nullish(),
  Date: z.string().nullish(),
  Status: z.string().nullish(),
  LineAmountTypes: z.string().nullish(),
  UpdatedDateUTC: z.string().nullish(),
  JournalLines: z.array(xeroManualJournalLineSchema).nullish(),
});
export type XeroManualJournal = z.infer<typeof xeroManualJournalSchema>;

export const xeroManualJournalsEnvelope = z.object({ ManualJournals: z.array(xeroManualJournalSchema) });

export type { StockTransferJournal } from '../xero-port';

/** An account named by its Xero id (a GUID) or by its code: settings may hold either. */
function describeAccount(accountIdOrCode: string): { AccountID: string } | { AccountCode: string } {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountIdOrCode)
    ? { AccountID: accountIdOrCode }
    : { AccountCode: accountIdOrCode };
}

/**
 * The body of `PUT /ManualJournals` for a stock transfer (docs/xero-api.md §4.7): debit the cost account,
 * credit the stock account, the same rounded figure on both lines so it balances; no tax.
 */
export function buildManualJournalBody(journal: StockTransferJournal) {
  // Xero takes money as a decimal: write it from pence, never from float arithmetic.
  const amount = Number(formatPenceAsDecimal(journal.amountPence));
  return {
    ManualJournals: [
      {
        Narration: journal.narration,
        Date: journal.date,
        Status: journal.status,
        LineAmountTypes: 'NoTax',
        ShowOnCashBasisReports: true,
        JournalLines: [
          {
            ...describeAccount(journal.costAccountId),
            LineAmount: amount,
            Description: journal.costDescription,
            TaxType: 'NONE',
          },
          {
            ...describeAccount(journal.stockAccountId),
            LineAmount: -amount,
            Description: journal.stockDescription,
            TaxType: 'NONE',
          },
        ],
      },
    ],
  };
}

function whereDate(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `DateTime(${year}, ${String(month).padStart(2, '0')}, ${String(day).padStart(2, '0')})`;
}

/** `where` for the sales invoices of every customer in a date range (the "All Customers" view). */
export function whereSalesInRange(fromDate: string, toDate: string): string {
  return `Type=="ACCREC" AND Date>=${whereDate(fromDate)} AND Date<=${whereDate(toDate)}`;
}

const MANUAL_JOURNALS = '/api.xro/2.0/ManualJournals';
const PAGE_SIZE = 1000;
/** Sales invoices count once approved: awaiting payment or paid (docs/architecture.md §4 Stock Journal). */
const SALES_STATUSES = ['AUTHORISED', 'PAID'] as const;

/** Xero's journal in our vocabulary: ISO date, pence, upper-case status. */
export function toJournal(journal: XeroManualJournal): Journal {
  const debitPence = (journal.JournalLines ?? []).reduce((sum, l) => {
    const pence = toPenceFromXero(l.LineAmount);
    return pence > 0 ? sum + pence : sum;
  }, 0);
  return {
    journalId: journal.ManualJournalID,
    narration: journal.Narration ?? null,
    date: convertXeroDate(journal.Date) ?? null,
    status: (journal.Status ?? '').toUpperCase(),
    updatedAt: toDateOrNull(journal.UpdatedDateUTC),
    debitPence,
  };
}

/** Manual journals over HTTP (docs/xero-api.md §4.7). */
export function createJournalsHttp(http: XeroHttp): JournalsPort {
  return {
    async list(ctx, options = {}) {
      const journals: Journal[] = [];
      for (let page = 1; ; page += 1) {
        const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: MANUAL_JOURNALS,
          query: { page, pageSize: PAGE_SIZE, order: 'UpdatedDateUTC ASC' },
          ...(options.since ? { ifModifiedSince: options.since } : {}),
          schema: xeroManualJournalsEnvelope,
        });
        if (status === 304 || !data) return { journals, notModified: page === 1 };
        journals.push(...data.ManualJournals.map(toJournal));
        if (data.ManualJournals.length < PAGE_SIZE) return { journals, notModified: false };
      }
    },

    async listDated(ctx, fromDate, toDate) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: MANUAL_JOURNALS,
        query: { where: `Date>=${whereDate(fromDate)} AND Date<=${whereDate(toDate)}` },
        schema: xeroManualJournalsEnvelope,
      });
      return data.ManualJournals.map(toJournal).filter(
        (j) => j.date === null || (j.date >= fromDate && j.date <= toDate),
      );
    },

    async create(ctx, journal, idempotencyKey) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'PUT',
        path: MANUAL_JOURNALS,
        body: buildManualJournalBody(journal),
        idempotencyKey,
        schema: xeroManualJournalsEnvelope,
      });
      const created = data.ManualJournals[0];
      if (!created) throw new AppError('XERO_UNAVAILABLE', 'Xero did not return the journal it created.');
      const out = toJournal(created);
      return { ...out, status: out.status || journal.status };
    },
  };
}

/** Every customer's approved sales invoices over a range, over HTTP (docs/xero-api.md §4.1). */
export function createSalesHttp(http: XeroHttp): SalesPort {
  return {
    async listInRange(ctx, fromDate, toDate) {
      const rows: SaleInvoice[] = [];
      for (let page = 1; ; page += 1) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Invoices',
          query: {
            page,
            pageSize: PAGE_SIZE,
            where: whereSalesInRange(fromDate, toDate),
            Statuses: SALES_STATUSES.join(','),
            order: 'Date ASC',
            // Totals are all the weeks need: no lines or payments (docs/xero-api.md §4.1).
            summaryOnly: true,
          },
          schema: xeroInvoicesEnvelope,
        });
        for (const inv of data.Invoices) {
          const date = convertXeroDate(inv.Date);
          if (!date || date < fromDate || date > toDate) continue;
          rows.push({
            invoiceNumber: inv.InvoiceNumber ?? null,
            contactName: inv.Contact?.Name ?? null,
            date,
            totalPence: toPenceFromXero(inv.Total),
            totalTaxPence: toPenceFromXero(inv.TotalTax),
            subTotalPence: toPenceFromXero(inv.SubTotal),
          });
        }
        if (data.Invoices.length < PAGE_SIZE) break;
      }
      return rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    },
  };
}
