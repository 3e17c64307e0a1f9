import { ArrowDown, ArrowUp, ArrowUpDown, FileText } from 'lucide-react';
import type { ComponentProps } from 'react';
import { Link } from 'wouter';
import type { DraftInvoiceRow, DraftSortColumn, DraftSort } from '@/shared/add-invoices';
import { formatDateNumeric } from '@/shared/dates';
import { formatPounds } from '@/shared/money';
import { paths } from '@/client/config/paths';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { cn } from '@/client/lib/utils';
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

const COLUMNS: Array<{ column: DraftSortColumn; label: string; align?: 'right' }> = [
  { column: 'invoiceNumber', label: 'Invoice #' },
  { column: 'contactName', label: 'Contact' },
  { column: 'date', label: 'Date' },
  { column: 'totalAmount', label: 'Total', align: 'right' },
];

function SortableHead({
  column,
  label,
  align,
  sort,
  onSort,
}: {
  column: DraftSortColumn;
  label: string;
  align?: 'right';
  sort: DraftSort;
  onSort: (c: DraftSortColumn) => void;
}) {
  const active = sort.column === column;
  const Icon = !active ? ArrowUpDown : sort.direction === 'asc' ? ArrowUp : ArrowDown;
  return (
    <TableHead
      aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
      className={cn(align === 'right' && 'text-right')}
    >
      <button
        type="button"
        onClick={() => onSort(column)}
        className={cn(
          '-mx-1.5 inline-flex items-center gap-1 rounded-md px-1.5 py-1 uppercase tracking-wide hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring',
          active && 'text-foreground',
        )}
      >
        {label}
        <Icon aria-hidden className={cn('size-3.5', !active && 'opacity-50')} />
        <span className="sr-only">
          {active ? (sort.direction === 'asc' ? ', sorted ascending' : ', sorted descending') : ', sort'}
        </span>
      </button>
    </TableHead>
  );
}

/** A row's last two cells, the same on a draft and on the New Invoice: its approve box and its Process button. */
function ApproveAndProcessCells({
  approve,
  process,
}: {
  approve: ComponentProps<typeof ApproveCheckbox>;
  process: ComponentProps<typeof ProcessButton>;
}) {
  return (
    <>
      <TableCell>
        <div className="flex items-center">
          <ApproveCheckbox {...approve} />
        </div>
      </TableCell>
      <TableCell className="text-right">
        <ProcessButton {...process} />
      </TableCell>
    </>
  );
}

function DraftRow({
  row,
  busy,
  ...handlers
}: { row: DraftInvoiceRow; busy: boolean } & Pick<
  DraftInvoicesViewProps,
  'onCashChange' | 'onApproveChange' | 'onProcess'
>) {
  const controls = getDraftRowControls(row, busy, handlers);
  return (
    <TableRow data-invoice-id={row.id} className={cn(row.processing && 'opacity-70')}>
      <TableCell className="font-medium whitespace-nowrap">{row.invoiceNumber || '—'}</TableCell>
      <TableCell className="max-w-48 truncate" title={row.contactName}>
        {row.contactName || '—'}
      </TableCell>
      <TableCell className="whitespace-nowrap tabular-nums">{formatDateNumeric(row.date)}</TableCell>
      <TableCell className="text-right whitespace-nowrap tabular-nums">
        {formatPounds(row.totalAmount, row.currency)}
      </TableCell>
      <TableCell>
        <div className="flex flex-col gap-1">
          <AmountInput {...controls.cash} />
          <PendingCashBadge row={row} />
        </div>
      </TableCell>
      <ApproveAndProcessCells approve={controls.approve} process={controls.process} />
    </TableRow>
  );
}

/**
 * Says which Settings defaults the New Invoice row lacks, with a link there (docs/product/features.md §5).
 */
export function MissingDefaultsHint({
  missing,
  organizationId,
}: {
  missing: string[];
  organizationId: number;
}) {
  if (missing.length === 0) return null;
  return (
    <p className="text-xs text-muted-foreground">
      To create invoices here, set a {missing.join(' and a ')} in{' '}
      <Link
        href={paths.settings.getHref(organizationId)}
        className="font-medium text-primary underline-offset-2 hover:underline"
      >
        Settings
      </Link>
      .
    </p>
  );
}

/** The last row: a new invoice on the organisation's defaults (docs/product/features.md §2, §3, §5). */
function NewInvoiceRow({ props, busy }: { props: NewInvoiceRowProps; busy: boolean }) {
  const { contactName, missing } = props;
  const controls = getNewInvoiceControls(props, busy);
  return (
    <>
      <TableRow className="bg-accent/40 hover:bg-accent/50" data-new-invoice-row>
        <TableCell className="font-medium whitespace-nowrap">
          <span className="inline-flex items-center gap-1.5">
            <FileText aria-hidden className="size-4 text-primary" />
            New Invoice
          </span>
        </TableCell>
        <TableCell className="max-w-48 truncate" title={contactName ?? undefined}>
          {contactName ?? <span className="text-muted-foreground">No default contact</span>}
        </TableCell>
        <TableCell>
          <NewInvoiceDateInput {...controls.date} />
        </TableCell>
        <TableCell className="text-right">
          <AmountInput {...controls.total} className="ml-auto" />
        </TableCell>
        <TableCell>
          <AmountInput {...controls.cash} />
        </TableCell>
        <ApproveAndProcessCells approve={controls.approve} process={controls.process} />
      </TableRow>
      {missing.length > 0 ? (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={7} className="py-2">
            <MissingDefaultsHint missing={missing} organizationId={props.organizationId} />
          </TableCell>
        </TableRow>
      ) : null}
    </>
  );
}

/** The draft invoices table of docs/product/features.md §2 with the New Invoice row last. */
export function DraftInvoicesTable(props: DraftInvoicesViewProps) {
  const { rows, sort, onSort, busy } = props;
  return (
    <Table className="min-w-[780px]" aria-label="Draft invoices">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          {COLUMNS.map((c) => (
            <SortableHead key={c.column} {...c} sort={sort} onSort={onSort} />
          ))}
          <TableHead>Cash Amount</TableHead>
          <TableHead>
            <span className="inline-flex items-center gap-2 align-middle">
              <ApproveAllCheckbox rows={rows} busy={busy} onApproveAll={props.onApproveAll} />
              Approve
            </span>
          </TableHead>
          <TableHead className="text-right">Action</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.length === 0 ? (
          <TableRow className="hover:bg-transparent">
            <TableCell colSpan={7} className="py-10 text-center">
              <EmptyDrafts />
            </TableCell>
          </TableRow>
        ) : (
          rows.map((row) => (
            <DraftRow
              key={row.id}
              row={row}
              busy={busy}
              onCashChange={props.onCashChange}
              onApproveChange={props.onApproveChange}
              onProcess={props.onProcess}
            />
          ))
        )}
        <NewInvoiceRow props={props.newInvoice} busy={busy} />
      </TableBody>
    </Table>
  );
}

/** docs/product/features.md §2 empty state. */
export function EmptyDrafts() {
  return (
    <>
      <p className="font-medium">No draft invoices found in Xero.</p>
      <p className="mt-1 text-sm text-muted-foreground">
        Create a new invoice below or create draft invoices in Xero.
      </p>
    </>
  );
}
