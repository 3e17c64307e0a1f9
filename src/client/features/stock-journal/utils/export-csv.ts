import { fromPence, formatPenceAsDecimal, roundPoundsToPence } from '@/shared/money';
import { getJournalStatusBadge } from './messages';
import { getPartAmount, type WeekRow } from './periods';

function cell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  // Quote everything; neutralise spreadsheet formulas (CSV injection).
  const isNumber = text.trim() !== '' && Number.isFinite(Number(text));
  const safe = /^[=+\-@\t\r]/.test(text) && !isNumber ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

const money = (pounds: number) => formatPenceAsDecimal(roundPoundsToPence(pounds));

export const CSV_HEADER = [
  'Week start',
  'Week end',
  'Journal period start',
  'Journal period end',
  'Invoices',
  'Gross',
  'VAT',
  'Net',
  'Margin rate',
  'Journal amount',
  'Journal status',
  'Journal ID',
  'Reference',
] as const;

/**
 * The period list as CSV: one line per journal period (a week, or each half of a week split at a month
 * end), amounts as plain decimals so a spreadsheet sums them.
 */
export function buildPeriodsCsv(rows: readonly WeekRow[], marginRate: number): string {
  const lines = [CSV_HEADER.map(cell).join(',')];
  for (const row of rows) {
    for (const part of row.parts) {
      const rate =
        part.entry?.marginRate ?? (Number.isFinite(marginRate) && marginRate > 0 ? marginRate : null);
      lines.push(
        [
          row.week.weekStart,
          row.week.weekEnd,
          part.period.periodStart,
          part.period.periodEnd,
          part.period.invoiceCount,
          money(part.period.grossTotal),
          money(part.period.vatTotal),
          money(part.period.netTotal),
          rate === null ? '' : String(rate),
          money(fromPence(roundPoundsToPence(getPartAmount(part, marginRate)))),
          getJournalStatusBadge(part.status).label,
          part.entry?.journalId ?? part.entry?.xeroJournalId ?? '',
          part.entry?.reference ?? '',
        ]
          .map(cell)
          .join(','),
      );
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Offers text as a file download in the browser. */
export function downloadCsv(fileName: string, csv: string): void {
  // A byte-order mark so Excel reads the £ sign and other UTF-8 text correctly.
  const blob = new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
