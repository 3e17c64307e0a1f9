import type { ComponentProps } from 'react';
import type { DraftInvoiceRow, DraftSort, DraftSortColumn, NewInvoiceForm } from '@/shared/add-invoices';
import {
  labelOf,
  onEnter,
  type AmountInput,
  type ApproveCheckbox,
  type NewInvoiceDateInput,
  type ProcessButton,
} from './row-fields';

// The props of both layouts (the table and the cards): each places the controls wired below.
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

export interface DraftInvoicesViewProps {
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

type RowHandlers = Pick<DraftInvoicesViewProps, 'onCashChange' | 'onApproveChange' | 'onProcess'>;

/**
 * A draft's controls, wired once for the table (wide screens) and the cards (phones): its cash amount
 * (Enter processes the row), its approve box and its Process button, all read-only while it or Process
 * All runs. Each layout only places them.
 */
export function getDraftRowControls(row: DraftInvoiceRow, busy: boolean, handlers: RowHandlers) {
  const label = labelOf(row);
  const locked = busy || row.processing;
  return {
    cash: {
      label: `Cash amount for ${label}`,
      value: row.cashAmount,
      min: 0,
      disabled: locked,
      onChange: (text) => handlers.onCashChange(row.id, text),
      onKeyDown: onEnter(() => handlers.onProcess(row), !locked),
    } satisfies ComponentProps<typeof AmountInput>,
    approve: {
      label: `Approve ${label}`,
      checked: row.approve,
      disabled: locked,
      onChange: (checked) => handlers.onApproveChange(row, checked),
    } satisfies ComponentProps<typeof ApproveCheckbox>,
    process: {
      label: `Process ${label}`,
      busyLabel: `Processing ${label}`,
      busy: row.processing,
      disabled: locked,
      onClick: () => handlers.onProcess(row),
    } satisfies ComponentProps<typeof ProcessButton>,
  };
}

/**
 * The New Invoice's controls (docs/product/features.md §2, §3, §5), wired once for the table and the cards:
 * date, total and cash (Enter creates the invoice when it can be), the approve box and its Process button.
 */
export function getNewInvoiceControls(props: NewInvoiceRowProps, busy: boolean) {
  const { form, onChange, canProcess, creating, onCreate } = props;
  const locked = busy || creating;
  const createOnEnter = onEnter(onCreate, canProcess && !locked);
  const amount = (
    label: string,
    value: string,
    min: number,
    set: (text: string) => void,
  ): ComponentProps<typeof AmountInput> => ({
    label,
    value,
    min,
    disabled: locked,
    onChange: set,
    onKeyDown: createOnEnter,
  });
  return {
    date: {
      date: form.date,
      onChange: (date) => onChange({ date }),
      disabled: locked,
      onKeyDown: createOnEnter,
    } satisfies ComponentProps<typeof NewInvoiceDateInput>,
    total: amount('New invoice total', form.totalAmount, 0.01, (totalAmount) => onChange({ totalAmount })),
    cash: amount('New invoice cash amount', form.cashAmount, 0, (cashAmount) => onChange({ cashAmount })),
    approve: {
      label: 'Approve new invoice',
      checked: form.approve,
      disabled: locked,
      onChange: (approve) => onChange({ approve }),
    } satisfies ComponentProps<typeof ApproveCheckbox>,
    process: {
      label: 'Process new invoice',
      busyLabel: 'Creating invoice',
      busy: creating,
      disabled: !canProcess || locked,
      onClick: onCreate,
      variant: 'default',
    } satisfies ComponentProps<typeof ProcessButton>,
  };
}
