import type { ComponentProps } from 'react';
import type { DraftInvoiceRow } from '@/shared/add-invoices';
import type { DraftInvoicesViewProps, NewInvoiceRowProps } from './draft-invoices-table';
import {
  labelOf,
  onEnter,
  type AmountInput,
  type ApproveCheckbox,
  type NewInvoiceDateInput,
  type ProcessButton,
} from './row-fields';

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
 * The New Invoice's controls (001 §2, §3, §5), wired once for the table and the cards: date, total and
 * cash (Enter creates the invoice when it can be), the approve box and its Process button.
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
