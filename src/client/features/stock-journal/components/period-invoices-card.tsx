import { formatDateMedium } from '@/shared/dates';
import { formatPeriodMoney, getInvoiceLineDisplay, sortInvoiceLines, type SalesPeriod } from '@/shared/stock-journal';
import { Card, CardContent, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';

/** The invoices of an expanded week (001 §2): Customer, Invoice #, Date, Gross, VAT, Net, sorted by date, with the fallbacks. */
export function PeriodInvoicesCard({ week }: { week: SalesPeriod }) {
  const lines = sortInvoiceLines(week.days.flatMap((d) => d.invoices));
  return (
    <Card>
      <CardHeader>
        <CardTitle>Sales Invoices</CardTitle>
      </CardHeader>
      <CardContent>
        {lines.length === 0 ? (
          <p className="text-sm text-muted-foreground">No invoice data available for this period</p>
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
                    <TableCell className="whitespace-nowrap">{line.formattedDate || formatDateMedium(line.date)}</TableCell>
                    <TableCell className="text-right tabular-nums">{formatPeriodMoney(line.grossAmount)}</TableCell>
                    <TableCell className="text-right tabular-nums">{formatPeriodMoney(line.vatAmount)}</TableCell>
                    <TableCell className="text-right tabular-nums">{formatPeriodMoney(line.netAmount)}</TableCell>
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
