import { FileText } from 'lucide-react';
import type { ReactNode } from 'react';
import {
  DRAFT_SORT_COLUMNS,
  type DraftInvoiceRow,
  type DraftSort,
  type DraftSortColumn,
} from '@/shared/add-invoices';
import { formatDateNumeric } from '@/shared/dates';
import { formatPounds } from '@/shared/money';
import { Card } from '@/client/components/ui/card';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { cn } from '@/client/lib/utils';
import { EmptyDrafts, MissingDefaultsHint } from './draft-invoices-table';
import {
  getDraftRowControls,
  getNewInvoiceControls,
  type DraftInvoicesViewProps,
  type NewInvoiceRowProps,
} from './row-controls';
import {
  AmountInput,
  ApproveAllCheckbox,
  ApproveCheckbox,
  NewInvoiceDateInput,
  PendingCashBadge,
  ProcessButton,
} from './row-fields';

const COLUMN_LABELS: Record<DraftSortColumn, { name: string; asc: string; desc: string }> = {
  invoiceNumber: { name: 'Invoice #', asc: 'A to Z', desc: 'Z to A' },
  contactName: { name: 'Contact', asc: 'A to Z', desc: 'Z to A' },
  date: { name: 'Date', asc: 'oldest first', desc: 'newest first' },
  totalAmount: { name: 'Total', asc: 'smallest first', desc: 'largest first' },
};

const SORT_OPTIONS = DRAFT_SORT_COLUMNS.flatMap((column) =>
  (['desc', 'asc'] as const).map((direction) => ({
    value: `${column}:${direction}`,
    label: `${COLUMN_LABELS[column].name}, ${COLUMN_LABELS[column][direction]}`,
  })),
);

/** A label above its field, the cards' way of naming what the table names in its header. */
function StackedField({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      {children}
    </div>
  );
}

function DraftCard({
  row,
  busy,
  ...handlers
}: { row: DraftInvoiceRow; busy: boolean } & Pick<
  DraftInvoicesViewProps,
  'onCashChange' | 'onApproveChange' | 'onProcess'
>) {
  const controls = getDraftRowControls(row, busy, handlers);
  const cashId = `cash-${row.id}`;
  return (
    <li data-invoice-id={row.id}>
      <Card className={cn('flex flex-col gap-3 p-4', row.processing && 'opacity-70')}>
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0">
            <p className="font-semibold">{row.invoiceNumber || '—'}</p>
            <p className="text-sm break-words text-muted-foreground">
              {row.contactName || '—'}{' '}
              <span className="whitespace-nowrap tabular-nums">· {formatDateNumeric(row.date)}</span>
            </p>
          </div>
          <p className="shrink-0 font-semibold tabular-nums">{formatPounds(row.totalAmount, row.currency)}</p>
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <StackedField id={cashId} label="Cash Amount">
            <AmountInput id={cashId} {...controls.cash} className="h-9" />
          </StackedField>
          <label className="flex h-9 items-center gap-2 text-sm">
            <ApproveCheckbox {...controls.approve} />
            Approve
          </label>
          <ProcessButton {...controls.process} className="ml-auto h-9" />
        </div>
        <PendingCashBadge row={row} />
      </Card>
    </li>
  );
}

function NewInvoiceCard({ props, busy }: { props: NewInvoiceRowProps; busy: boolean }) {
  const { contactName, missing } = props;
  const controls = getNewInvoiceControls(props, busy);
  return (
    <Card className="flex flex-col gap-3 border-primary/30 bg-accent/40 p-4" data-new-invoice-row>
      <div className="flex items-center justify-between gap-3">
        <p className="inline-flex items-center gap-1.5 font-semibold">
          <FileText aria-hidden className="size-4 text-primary" />
          New Invoice
        </p>
        <p className="truncate text-sm">
          {contactName ?? <span className="text-muted-foreground">No default contact</span>}
        </p>
      </div>
      <div className="grid grid-cols-3 gap-2">
        <StackedField id="new-invoice-date" label="Date">
          <NewInvoiceDateInput id="new-invoice-date" {...controls.date} className="h-9 w-full px-2" />
        </StackedField>
        <StackedField id="new-invoice-total" label="Total">
          <AmountInput id="new-invoice-total" {...controls.total} className="h-9 w-full" />
        </StackedField>
        <StackedField id="new-invoice-cash" label="Cash">
          <AmountInput id="new-invoice-cash" {...controls.cash} className="h-9 w-full" />
        </StackedField>
      </div>
      <div className="flex items-center justify-between gap-3">
        <label className="flex items-center gap-2 text-sm">
          <ApproveCheckbox {...controls.approve} />
          Approve
        </label>
        <ProcessButton {...controls.process} className="h-9" />
      </div>
      <MissingDefaultsHint missing={missing} organizationId={props.organizationId} />
    </Card>
  );
}

/**
 * The same rows as cards, for screens narrower than `sm`: a phone shows every field of a row without
 * scrolling sideways. Sorting and select-all move to a toolbar above the cards.
 */
export function DraftInvoiceCards(props: DraftInvoicesViewProps) {
  const { rows, sort, busy } = props;
  const setSort = (value: string) => {
    const [column, direction] = value.split(':') as [DraftSortColumn, DraftSort['direction']];
    // A column's first click sorts ascending and its second descending (toggleDraftSort); pick the same result.
    if (sort.column !== column) {
      props.onSort(column);
      if (direction === 'desc') props.onSort(column);
    } else if (sort.direction !== direction) {
      props.onSort(column);
    }
  };
  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-center justify-between gap-3">
        <label className="flex items-center gap-2 text-sm font-medium">
          <ApproveAllCheckbox rows={rows} busy={busy} onApproveAll={props.onApproveAll} />
          Approve all
        </label>
        <Select value={`${sort.column}:${sort.direction}`} onValueChange={setSort}>
          <SelectTrigger aria-label="Sort invoices" className="h-9 w-auto min-w-0 max-w-[60%]">
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            {SORT_OPTIONS.map((o) => (
              <SelectItem key={o.value} value={o.value}>
                {o.label}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </div>
      {rows.length === 0 ? (
        <Card className="p-8 text-center">
          <EmptyDrafts />
        </Card>
      ) : (
        <ul className="flex list-none flex-col gap-3 p-0" aria-label="Draft invoices">
          {rows.map((row) => (
            <DraftCard
              key={row.id}
              row={row}
              busy={busy}
              onCashChange={props.onCashChange}
              onApproveChange={props.onApproveChange}
              onProcess={props.onProcess}
            />
          ))}
        </ul>
      )}
      <NewInvoiceCard props={props.newInvoice} busy={busy} />
    </div>
  );
}
