import type { ReactNode } from 'react';
import { formatDateMedium } from '@/shared/dates';
import { formatMoney, formatPounds, roundPoundsToPence } from '@/shared/money';
import type { Invoice } from '@/shared/pay-invoices';
import { Badge } from '@/client/components/ui/badge';
import { getInvoiceStatusBadge } from '../utils/messages';

const BADGE_VARIANT = {
  paid: 'success',
  left: 'warning',
  overdue: 'destructive',
  'due-today': 'warning',
  due: 'secondary',
} as const;

/**
 * The status badge of docs/product/features.md §4: Fully Paid, 'Overdue by {n} days', 'Due today', 'Due in
 * {n} days'.
 */
export function InvoiceStatusBadge({
  invoice,
  today,
}: {
  invoice: Pick<Invoice, 'amountDue' | 'dueDate'> & Partial<Pick<Invoice, 'currency'>>;
  today: string;
}) {
  const badge = getInvoiceStatusBadge(invoice, today);
  return <Badge variant={BADGE_VARIANT[badge.kind]}>{badge.label}</Badge>;
}

function Field({
  label,
  children,
  strong,
  wide,
}: {
  label: string;
  children: ReactNode;
  strong?: boolean;
  wide?: boolean;
}) {
  // Each dt/dd pair sits in a div that is a direct child of the dl (axe definition-list/dlitem, issue 17 item 17).
  return (
    <div className={wide ? 'col-span-2 min-w-0 sm:col-span-3' : 'min-w-0'}>
      <dt className="text-xs font-medium uppercase tracking-wide text-muted-foreground">{label}</dt>
      <dd className={strong ? 'mt-0.5 text-lg font-semibold tabular' : 'mt-0.5 truncate text-sm tabular'}>
        {children}
      </dd>
    </div>
  );
}

/**
 * The invoice detail (docs/product/features.md §2): number, status badge, client, invoice date, due date,
 * total, paid (total minus due), amount due and currency.
 */
export function InvoiceDetail({ invoice, today }: { invoice: Invoice; today: string }) {
  const paidPence = roundPoundsToPence(invoice.totalAmount) - roundPoundsToPence(invoice.amountDue);
  return (
    <section aria-labelledby="invoice-heading" className="grid gap-4">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="invoice-heading" className="text-xl font-semibold tracking-tight">
          {invoice.invoiceNumber || 'Invoice'}
        </h2>
        <InvoiceStatusBadge invoice={invoice} today={today} />
        {invoice.status === 'PARTIAL' ? <Badge variant="outline">Part paid</Badge> : null}
        {invoice.status === 'SENT' ? <Badge variant="outline">Sent</Badge> : null}
      </div>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 sm:grid-cols-3">
        <Field label="Client" wide>
          {invoice.contactName || '—'}
        </Field>
        <Field label="Invoice date">{formatDateMedium(invoice.date)}</Field>
        <Field label="Due date">{invoice.dueDate ? formatDateMedium(invoice.dueDate) : '—'}</Field>
        <Field label="Currency">{invoice.currency}</Field>
        <Field label="Total">{formatPounds(invoice.totalAmount, invoice.currency)}</Field>
        <Field label="Paid">{formatMoney(paidPence, invoice.currency)}</Field>
        <Field label="Amount due" strong>
          {formatPounds(invoice.amountDue, invoice.currency)}
        </Field>
      </dl>
    </section>
  );
}
