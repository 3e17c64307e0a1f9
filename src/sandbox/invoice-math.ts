/** Line and document totals as Xero computes them (per-line rounding; Inclusive/Exclusive/NoTax). */
import { documentTotals, lineAmountPence, lineTaxPence, type LineAmountTypes } from './money';
import type { InvoiceRec, LineRec, TaxRateRec } from './state';

export function rateOf(taxRates: TaxRateRec[], taxType: string): number {
  return taxRates.find((t) => t.TaxType === taxType)?.rateE4 ?? 0;
}

/** Recompute a line's amount (unless given) and tax; returns a new line. */
export function priceLine(
  line: Omit<LineRec, 'lineAmount' | 'taxAmount'> & { lineAmount?: number },
  mode: LineAmountTypes,
  taxRates: TaxRateRec[],
): LineRec {
  const lineAmount = line.lineAmount ?? lineAmountPence(line);
  const taxType = mode === 'NoTax' ? 'NONE' : line.TaxType;
  const taxAmount = lineTaxPence(lineAmount, rateOf(taxRates, taxType), mode);
  return { ...line, TaxType: taxType, lineAmount, taxAmount };
}

/** Set SubTotal/TotalTax/Total from the lines. */
export function applyTotals(invoice: InvoiceRec): void {
  const totals = documentTotals(invoice.lines, invoice.LineAmountTypes);
  invoice.subTotal = totals.subTotal;
  invoice.totalTax = totals.totalTax;
  invoice.total = totals.total;
}

export function amountDue(invoice: InvoiceRec): number {
  if (invoice.Status === 'VOIDED' || invoice.Status === 'DELETED') return 0;
  return invoice.total - (invoice.cisDeduction ?? 0) - invoice.amountPaid - (invoice.amountCredited ?? 0);
}
