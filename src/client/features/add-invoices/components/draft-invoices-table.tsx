import { ArrowDown, ArrowUp, ArrowUpDown, FileText } from 'lucide-react';
import { useEffect, useState, type KeyboardEvent } from 'react';
import { Link } from 'wouter';
import type { DraftInvoiceRow, DraftSort, DraftSortColumn, NewInvoiceForm } from '@/shared/add-invoices';
import { formatDateNumeric, parseDateNumeric } from '@/shared/dates';
import { formatPounds, isAmountInput } from '@/shared/money';
import { paths } from '@/client/config/paths';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Checkbox } from '@/client/components/ui/checkbox';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { cn } from '@/client/lib/utils';

export interface NewInvoiceRowProps {
  form: NewInvoiceForm;
  onChange: (patch: Partial<NewInvoiceForm>) => void;
  /** The default contact's name; null when none is set. */
  contactName: string | null;
  /** Settings fields the row needs and lacks (e.g. "Default Contact"). */
  missing: string[];
  organizationId: number;
  canProcess: boolean;
  creating: boolean;
  onCreate: () => void;
}

export interface DraftInvoicesTableProps {
  rows: DraftInvoiceRow[];
  sort: DraftSort;
  onSort: (column: DraftSortColumn) => void;
  onCashChange: (id: string, text: string) => void;
  onApproveChange: (row: DraftInvoiceRow, checked: boolean) => void;
  onApproveAll: (checked: boolean) => void;
  onProcess: (row: DraftInvoiceRow) => void;
  /** While Process All runs every row is read-only. */
  busy: boolean;
  newInvoice: NewInvoiceRowProps;
}

const COLUMNS: Array<{ column: DraftSortColumn; label: string; align?: 'right' }> = [
  { column: 'invoiceNumber', label: 'Invoice #' },
  { column: 'contactName', label: 'Contact' },
  { column: 'date', label: 'Date' },
  { column: 'totalAmount', label: 'Total', align: 'right' },
];

function SortableHead({ column, label, align, sort, onSort }: { column: DraftSortColumn; label: string; align?: 'right'; sort: DraftSort; onSort: (c: DraftSortColumn) => void }) {
  const active = sort.column === column;
  const Icon = !active ? ArrowUpDown : sort.direction === 'asc' ? ArrowUp : ArrowDown;
  return (
    <TableHead aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'} className={cn(align === 'right' && 'text-right')}>
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
        <span className="sr-only">{active ? (sort.direction === 'asc' ? ', sorted ascending' : ', sorted descending') : ', sort'}</span>
      </button>
    </TableHead>
  );
}

/** Text typed into an amount box is kept only if it is an amount (digits, at most 2 decimals). */
function acceptAmount(text: string, apply: (text: string) => void) {
  if (isAmountInput(text)) apply(text);
}

function DraftRow({
  row,
  busy,
  onCashChange,
  onApproveChange,
  onProcess,
}: {
  row: DraftInvoiceRow;
  busy: boolean;
  onCashChange: DraftInvoicesTableProps['onCashChange'];
  onApproveChange: DraftInvoicesTableProps['onApproveChange'];
  onProcess: DraftInvoicesTableProps['onProcess'];
}) {
  const label = row.invoiceNumber || 'draft invoice';
  const locked = busy || row.processing;
  const processOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && !locked) {
      event.preventDefault();
      onProcess(row);
    }
  };
  return (
    <TableRow data-invoice-id={row.id} className={cn(row.processing && 'opacity-70')}>
      <TableCell className="font-medium whitespace-nowrap">{row.invoiceNumber || '—'}</TableCell>
      <TableCell className="max-w-48 truncate" title={row.contactName}>
        {row.contactName || '—'}
      </TableCell>
      <TableCell className="whitespace-nowrap tabular-nums">{formatDateNumeric(row.date)}</TableCell>
      <TableCell className="text-right whitespace-nowrap tabular-nums">{formatPounds(row.totalAmount, row.currency)}</TableCell>
      <TableCell>
        <div className="flex flex-col gap-1">
          <Input
            type="number"
            inputMode="decimal"
            min={0}
            step={0.01}
            placeholder="0.00"
            aria-label={`Cash amount for ${label}`}
            value={row.cashAmount}
            disabled={locked}
            onChange={(e) => acceptAmount(e.target.value, (text) => onCashChange(row.id, text))}
            onKeyDown={processOnEnter}
            className="h-8 w-28 text-right tabular-nums"
          />
          {row.pendingCashAmount > 0 ? (
            <Badge variant="warning" className="w-fit" title="Cash recorded in Ledgerlink; it is paid into the cash account when this invoice is approved here">
              {formatPounds(row.pendingCashAmount, row.currency)} cash pending
            </Badge>
          ) : null}
        </div>
      </TableCell>
      <TableCell>
        <Checkbox
          aria-label={`Approve ${label}`}
          checked={row.approve}
          disabled={locked}
          onCheckedChange={(checked) => onApproveChange(row, checked === true)}
        />
      </TableCell>
      <TableCell className="text-right">
        <Button size="sm" variant="outline" disabled={locked} onClick={() => onProcess(row)} aria-label={`Process ${label}`}>
          {row.processing ? <Spinner className="size-3.5 text-current" label={`Processing ${label}`} /> : null}
          Process
        </Button>
      </TableCell>
    </TableRow>
  );
}

/** The last row: a new invoice on the organisation's defaults (001 §2, §3, §5). */
function NewInvoiceRow({ props, busy }: { props: NewInvoiceRowProps; busy: boolean }) {
  const { form, onChange, contactName, missing, canProcess, creating, onCreate } = props;
  const [dateText, setDateText] = useState(() => (form.date ? formatDateNumeric(form.date) : ''));
  // The form resets to today after a create: show that, unless the text already means the same date.
  useEffect(() => {
    setDateText((text) => (parseDateNumeric(text) === form.date ? text : form.date ? formatDateNumeric(form.date) : text));
  }, [form.date]);
  const locked = busy || creating;
  const createOnEnter = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && canProcess && !locked) {
      event.preventDefault();
      onCreate();
    }
  };
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
          <Input
            inputMode="numeric"
            placeholder="dd/mm/yyyy"
            aria-label="New invoice date (dd/mm/yyyy)"
            value={dateText}
            disabled={locked}
            maxLength={10}
            aria-invalid={dateText !== '' && parseDateNumeric(dateText) === null ? true : undefined}
            onChange={(e) => {
              setDateText(e.target.value);
              onChange({ date: parseDateNumeric(e.target.value) ?? '' });
            }}
            onKeyDown={createOnEnter}
            className="h-8 w-28 tabular-nums"
          />
        </TableCell>
        <TableCell className="text-right">
          <Input
            type="number"
            inputMode="decimal"
            min={0.01}
            step={0.01}
            placeholder="0.00"
            aria-label="New invoice total"
            value={form.totalAmount}
            disabled={locked}
            onChange={(e) => acceptAmount(e.target.value, (text) => onChange({ totalAmount: text }))}
            onKeyDown={createOnEnter}
            className="ml-auto h-8 w-28 text-right tabular-nums"
          />
        </TableCell>
        <TableCell>
          <Input
            type="number"
            inputMode="decimal"
            min={0}
            step={0.01}
            placeholder="0.00"
            aria-label="New invoice cash amount"
            value={form.cashAmount}
            disabled={locked}
            onChange={(e) => acceptAmount(e.target.value, (text) => onChange({ cashAmount: text }))}
            onKeyDown={createOnEnter}
            className="h-8 w-28 text-right tabular-nums"
          />
        </TableCell>
        <TableCell>
          <Checkbox aria-label="Approve new invoice" checked={form.approve} disabled={locked} onCheckedChange={(checked) => onChange({ approve: checked === true })} />
        </TableCell>
        <TableCell className="text-right">
          <Button size="sm" disabled={!canProcess || locked} onClick={onCreate} aria-label="Process new invoice">
            {creating ? <Spinner className="size-3.5 text-current" label="Creating invoice" /> : null}
            Process
          </Button>
        </TableCell>
      </TableRow>
      {missing.length > 0 ? (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={7} className="py-2 text-xs text-muted-foreground">
            To create invoices here, set a {missing.join(' and a ')} in{' '}
            <Link href={paths.settings.getHref(props.organizationId)} className="font-medium text-primary underline-offset-2 hover:underline">
              Settings
            </Link>
            .
          </TableCell>
        </TableRow>
      ) : null}
    </>
  );
}

/** The draft invoices table of 001 §2 with the New Invoice row last. */
export function DraftInvoicesTable(props: DraftInvoicesTableProps) {
  const { rows, sort, onSort, busy } = props;
  const approved = rows.filter((r) => r.approve).length;
  const allChecked = rows.length > 0 && approved === rows.length ? true : approved > 0 ? 'indeterminate' : false;
  return (
    <Table className="min-w-[780px]">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          {COLUMNS.map((c) => (
            <SortableHead key={c.column} {...c} sort={sort} onSort={onSort} />
          ))}
          <TableHead>Cash Amount</TableHead>
          <TableHead>
            <span className="inline-flex items-center gap-2">
              <Checkbox
                aria-label="Approve all invoices"
                checked={allChecked}
                disabled={busy || rows.length === 0}
                onCheckedChange={(checked) => props.onApproveAll(checked === true)}
              />
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
              <p className="font-medium">No draft invoices found in Xero.</p>
              <p className="mt-1 text-sm text-muted-foreground">Create a new invoice below or create draft invoices in Xero.</p>
            </TableCell>
          </TableRow>
        ) : (
          rows.map((row) => (
            <DraftRow key={row.id} row={row} busy={busy} onCashChange={props.onCashChange} onApproveChange={props.onApproveChange} onProcess={props.onProcess} />
          ))
        )}
        <NewInvoiceRow props={props.newInvoice} busy={busy} />
      </TableBody>
    </Table>
  );
}
