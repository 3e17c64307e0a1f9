import { formatDateMedium } from '@/shared/dates';
import { sortInvoiceLines, type SalesPeriod } from '@/shared/stock-journal';
import { Card, CardContent, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { formatPeriodMoney, getInvoiceLineDisplay } from '../utils/messages';

/**
 * The invoices of an expanded week (docs/product/features.md §2): Customer, Invoice #, Date, Gross, VAT, Net,
 * sorted by date, with the fallbacks.
 */
export function PeriodInvoicesCard({ week }: { week: SalesPeriod }) {
  const lines = sortInvoiceLines(week.days.flatMap((d) => d.invoices));
  const narrow = useNarrowScreen();
  return (
    <Card>
      <CardHeader>
        <CardTitle>Sales Invoices</CardTitle>
      </CardHeader>
      <CardContent>
        {lines.length === 0 ? (
          <p className="text-sm text-muted-foreground">No invoice data available for this period</p>
        ) : narrow ? (
          // Below 640 px each invoice is a card: all three amounts in view, no sideways scroll (issue 17 item 13).
          <ul className="flex list-none flex-col gap-2 p-0" aria-label="Sales invoices of the period">
            {lines.map((line, index) => {
              const shown = getInvoiceLineDisplay(line, index);
              return (
                <li key={`${shown.invoiceNumber}-${index}`} className="rounded-lg border p-3 text-sm">
                  <div className="flex flex-wrap items-baseline justify-between gap-x-3">
                    <p className="min-w-0 font-medium break-words">{shown.customerName}</p>
                    <p className="text-muted-foreground whitespace-nowrap">
                      {shown.invoiceNumber} · {line.formattedDate || formatDateMedium(line.date)}
                    </p>
                  </div>
                  <div className="mt-2 flex flex-col gap-0.5">
                    {(
                      [
                        ['Gross', line.grossAmount],
                        ['VAT', line.vatAmount],
                        ['Net', line.netAmount],
                      ] as const
                    ).map(([label, amount]) => (
                      <p key={label} className="flex justify-between gap-3">
                        <span className="text-muted-foreground">{label}</span>
                        <span className="tabular-nums">{formatPeriodMoney(amount)}</span>
                      </p>
                    ))}
                  </div>
                </li>
              );
            })}
          </ul>
        ) : (
          <Table aria-label="Sales invoices of the period">
            <TableHeader>
              <TableRow>
                <TableHead>Customer</TableHead>
                <TableHead>Invoice #</TableHead>
                <TableHead>Date</TableHead>
                <TableHead className="text-right">Gross</TableHead>
                <TableHead className="text-right">VAT</TableHead>
                <TableHead className="text-right">Net</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {lines.map((line, index) => {
                const shown = getInvoiceLineDisplay(line, index);
                return (
                  <TableRow key={`${shown.invoiceNumber}-${index}`}>
                    <TableCell className="max-w-48 truncate">{shown.customerName}</TableCell>
                    <TableCell className="whitespace-nowrap">{shown.invoiceNumber}</TableCell>
                    <TableCell className="whitespace-nowrap">
                      {line.formattedDate || formatDateMedium(line.date)}
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {formatPeriodMoney(line.grossAmount)}
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {formatPeriodMoney(line.vatAmount)}
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {formatPeriodMoney(line.netAmount)}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}
