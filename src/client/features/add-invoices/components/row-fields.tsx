import { useEffect, useState, type KeyboardEvent } from 'react';
import type { DraftInvoiceRow } from '@/shared/add-invoices';
import { formatDateNumeric, parseDateNumeric } from '@/shared/dates';
import { formatPounds, isAmountInput } from '@/shared/money';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Checkbox } from '@/client/components/ui/checkbox';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { cn } from '@/client/lib/utils';

/** The name a row's controls are labelled with. */
export function labelOf(row: Pick<DraftInvoiceRow, 'invoiceNumber'>): string {
  return row.invoiceNumber || 'draft invoice';
}

/**
 * Text typed into an amount box is kept only if it is an amount (digits, at most 2 decimals;
 * docs/product/features.md §5).
 */
function acceptAmount(text: string, apply: (text: string) => void) {
  if (isAmountInput(text)) apply(text);
}

/** Enter in a row's box does what the row's Process button does. */
export function onEnter(action: () => void, enabled: boolean) {
  return (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && enabled) {
      event.preventDefault();
      action();
    }
  };
}

/**
 * An amount box: a number input (docs/product/features.md §5 "min 0 step 0.01") that only takes 2-decimal
 * amounts.
 */
export function AmountInput({
  label,
  value,
  onChange,
  min,
  disabled,
  onKeyDown,
  className,
  id,
}: {
  label?: string;
  value: string;
  onChange: (text: string) => void;
  min: number;
  disabled: boolean;
  onKeyDown?: (event: KeyboardEvent<HTMLInputElement>) => void;
  className?: string;
  id?: string;
}) {
  return (
    <Input
      id={id}
      type="number"
      inputMode="decimal"
      min={min}
      step={0.01}
      placeholder="0.00"
      aria-label={label}
      value={value}
      disabled={disabled}
      onChange={(e) => acceptAmount(e.target.value, onChange)}
      onKeyDown={onKeyDown}
      className={cn('h-8 w-28 text-right tabular-nums', className)}
    />
  );
}

/**
 * Cash recorded in Ledgerlink against a draft, paid when the draft is approved here
 * (docs/architecture.md §4). What "pending" means is said beside it, not only in a tooltip a phone cannot
 * show (issue 45 item 4).
 */
export function PendingCashBadge({ row }: { row: Pick<DraftInvoiceRow, 'pendingCashAmount' | 'currency'> }) {
  if (row.pendingCashAmount <= 0) return null;
  return (
    <span className="flex flex-col gap-0.5">
      <Badge variant="warning" className="w-fit">
        {formatPounds(row.pendingCashAmount, row.currency)} cash pending
      </Badge>
      <span className="max-w-48 text-xs text-muted-foreground">
        Paid into the cash account when the invoice is approved
      </span>
    </span>
  );
}

/**
 * The header checkbox is ticked when every row is. (No mixed state: the kit's checkbox would draw it as a
 * tick in an empty box, which reads as "all".)
 */
export function getApproveAllState(rows: readonly DraftInvoiceRow[]): boolean {
  return rows.length > 0 && rows.every((r) => r.approve);
}

/** "Approve all": the table's header box and the cards' toolbar box. */
export function ApproveAllCheckbox({
  rows,
  busy,
  onApproveAll,
}: {
  rows: readonly DraftInvoiceRow[];
  busy: boolean;
  onApproveAll: (checked: boolean) => void;
}) {
  return (
    <Checkbox
      aria-label="Approve all invoices"
      checked={getApproveAllState(rows)}
      disabled={busy || rows.length === 0}
      onCheckedChange={(checked) => onApproveAll(checked === true)}
    />
  );
}

export function ApproveCheckbox({
  label,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  checked: boolean;
  disabled: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <Checkbox
      aria-label={label}
      checked={checked}
      disabled={disabled}
      onCheckedChange={(value) => onChange(value === true)}
    />
  );
}

export function ProcessButton({
  label,
  busyLabel,
  busy,
  disabled,
  onClick,
  variant = 'outline',
  className,
}: {
  label: string;
  busyLabel: string;
  busy: boolean;
  disabled: boolean;
  onClick: () => void;
  variant?: 'outline' | 'default';
  className?: string;
}) {
  return (
    <Button
      size="sm"
      variant={variant}
      disabled={disabled}
      onClick={onClick}
      aria-label={label}
      className={className}
    >
      {busy ? <Spinner className="size-3.5 text-current" label={busyLabel} /> : null}
      Process
    </Button>
  );
}

/**
 * The new invoice's date, typed as dd/mm/yyyy (docs/product/features.md §9) whatever the browser's locale;
 * the form keeps it as yyyy-MM-dd (docs/product/features.md §3), or '' while the text is not a real date.
 */
export function NewInvoiceDateInput({
  date,
  onChange,
  disabled,
  onKeyDown,
  className,
  id,
}: {
  date: string;
  onChange: (isoDate: string) => void;
  disabled: boolean;
  onKeyDown?: (event: KeyboardEvent<HTMLInputElement>) => void;
  className?: string;
  id?: string;
}) {
  const [text, setText] = useState(() => (date ? formatDateNumeric(date) : ''));
  // The form resets to today after a create: show that, unless the text already means the same date.
  useEffect(() => {
    setText((current) =>
      parseDateNumeric(current) === date ? current : date ? formatDateNumeric(date) : current,
    );
  }, [date]);
  return (
    <Input
      id={id}
      inputMode="numeric"
      placeholder="dd/mm/yyyy"
      aria-label="New invoice date (dd/mm/yyyy)"
      value={text}
      disabled={disabled}
      maxLength={10}
      aria-invalid={text !== '' && parseDateNumeric(text) === null ? true : undefined}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseDateNumeric(e.target.value) ?? '');
      }}
      onKeyDown={onKeyDown}
      className={cn('h-8 w-28 tabular-nums', className)}
    />
  );
}
