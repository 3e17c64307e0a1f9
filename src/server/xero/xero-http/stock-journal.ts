/**
 * Xero's manual journals as the Stock Journal feature reads and writes them (REFERENCE §4.7). PascalCase
 * stays in this file; the service speaks our vocabulary. Unknown fields pass through: Xero adds fields
 * without notice.
 */
import { z } from 'zod';
import { getDateParts } from '../../../shared/dates';
import { formatPenceAsDecimal } from '../../../shared/money';

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

/** Xero's ManualJournal statuses (REFERENCE §4.7). */
export type XeroJournalStatus = 'DRAFT' | 'POSTED' | 'DELETED' | 'VOIDED' | 'ARCHIVED';

/** An account named by its Xero id (a GUID) or by its code: settings may hold either. */
function describeAccount(accountIdOrCode: string): { AccountID: string } | { AccountCode: string } {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountIdOrCode)
    ? { AccountID: accountIdOrCode }
    : { AccountCode: accountIdOrCode };
}

/** What a stock transfer journal needs, in our vocabulary (pence, ISO dates). */
export interface StockTransferJournal {
  narration: string;
  /** ISO date the journal is dated at. */
  date: string;
  status: 'DRAFT' | 'POSTED';
  amountPence: number;
  costAccountId: string;
  stockAccountId: string;
  /** Line descriptions, so the journal explains itself in Xero. */
  costDescription: string;
  stockDescription: string;
}

/**
 * The body of `PUT /ManualJournals` for a stock transfer (REFERENCE §4.7): debit the cost account, credit
 * the stock account, the same rounded figure on both lines so it balances; no tax.
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
          { ...describeAccount(journal.costAccountId), LineAmount: amount, Description: journal.costDescription, TaxType: 'NONE' },
          { ...describeAccount(journal.stockAccountId), LineAmount: -amount, Description: journal.stockDescription, TaxType: 'NONE' },
        ],
      },
    ],
  };
}

/** Text inside a `where` string literal: Xero's filter is C#-like, so quotes and backslashes are escaped. */
function quoteWhere(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function whereDate(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `DateTime(${year}, ${String(month).padStart(2, '0')}, ${String(day).padStart(2, '0')})`;
}

/** `where` that finds a journal by narration and date (how the write ledger finds a lost create). */
export function whereJournalByNarration(narration: string, isoDate: string): string {
  return `Narration==${quoteWhere(narration)} AND Date==${whereDate(isoDate)}`;
}

/** `where` for the sales invoices of every customer in a date range (the "All Customers" view). */
export function whereSalesInRange(fromDate: string, toDate: string): string {
  return `Type=="ACCREC" AND Date>=${whereDate(fromDate)} AND Date<=${whereDate(toDate)}`;
}
