import { ArrowLeftRight, Plus, RefreshCw, TriangleAlert } from 'lucide-react';
import { Controller, useWatch, type UseFormReturn } from 'react-hook-form';
import { isCisChecked, type CisContact } from '@/shared/cis-bills';
import { formatPounds, fromPence } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Tooltip } from '@/client/components/ui/tooltip';
import type { CisContactChecks } from '../hooks/use-cis-contact-checks';
import type { BillForm } from '../utils/bill-form';
import { SubcontractorPicker } from './subcontractor-picker';

const COLUMNS = 'md:grid-cols-[minmax(0,2.2fr)_minmax(0,1.2fr)_6.5rem_minmax(0,1fr)_minmax(0,1fr)_5.5rem]';

/**
 * The next bill: the subcontractor, the amount (gross, or net grossed up ÷ 0.8), the 20 % deduction and 80 %
 * amount due it makes, and Add. Enter in the amount adds the bill too.
 */
export function BillEntryRow({
  formId,
  form,
  contacts,
  selectedContact,
  isLoadingContacts,
  isRefreshingContacts,
  onRefreshContacts,
  cisChecks,
  preview,
  onConvert,
  onAdd,
  disabled,
}: {
  formId: string;
  form: UseFormReturn<BillForm>;
  contacts: CisContact[];
  selectedContact: CisContact | undefined;
  isLoadingContacts: boolean;
  isRefreshingContacts: boolean;
  onRefreshContacts: () => void;
  cisChecks: CisContactChecks;
  /** The deduction and amount due of the amount typed, or null when it is not an amount. */
  preview: { cisDeductionPence: number; amountDuePence: number } | null;
  onConvert: () => void;
  onAdd: () => void;
  disabled: boolean;
}) {
  const basis = useWatch({ control: form.control, name: 'basis' });
  return (
    <div className="rounded-xl border border-border">
      <div
        className={`hidden ${COLUMNS} items-center gap-3 border-b border-border bg-muted/60 px-3 py-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground md:grid`}
      >
        <span className="flex items-center gap-1">
          Subcontractor
          <Tooltip content="Read the subcontractors and their CIS settings again from Xero">
            <button
              type="button"
              aria-label="Refresh subcontractors"
              className="rounded p-0.5 hover:bg-muted disabled:opacity-50"
              onClick={onRefreshContacts}
              disabled={isRefreshingContacts}
            >
              <RefreshCw
                aria-hidden
                className={isRefreshingContacts ? 'size-3.5 animate-spin' : 'size-3.5'}
              />
            </button>
          </Tooltip>
        </span>
        <span>Gross Amount</span>
        <span aria-hidden />
        <span>CIS Deduction (20%)</span>
        <span>Amount Due (80%)</span>
        <span>Actions</span>
      </div>
      <div className={`grid grid-cols-2 items-start gap-3 p-3 ${COLUMNS} md:items-center`}>
        <div className="col-span-2 grid gap-1.5 md:col-span-1">
          <div className="flex items-center justify-between gap-2 md:contents">
            <Label htmlFor={`${formId}-contact`} className="md:sr-only">
              Subcontractor
            </Label>
            <Button
              variant="ghost"
              size="sm"
              className="h-7 px-2 text-xs md:hidden"
              onClick={onRefreshContacts}
              disabled={isRefreshingContacts}
            >
              <RefreshCw aria-hidden className={isRefreshingContacts ? 'animate-spin' : undefined} />
              Refresh subcontractors
            </Button>
          </div>
          <Controller
            control={form.control}
            name="contactId"
            render={({ field }) => (
              <SubcontractorPicker
                id={`${formId}-contact`}
                contacts={contacts}
                value={field.value}
                onChange={field.onChange}
                isLoading={isLoadingContacts}
                onCheck={cisChecks.check}
                failedIds={cisChecks.failedIds}
              />
            )}
          />
          {selectedContact && isCisChecked(selectedContact) && !selectedContact.hasValidUTR ? (
            <p className="flex items-center gap-1 text-[13px] text-warning-foreground">
              <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
              No verified CIS settings in Xero
            </p>
          ) : null}
        </div>
        <div className="col-span-2 grid gap-1.5 sm:col-span-1 md:col-span-1">
          <Label htmlFor={`${formId}-amount`} className="md:sr-only">
            {basis === 'net' ? 'Net Amount (80%)' : 'Gross Amount'}
          </Label>
          <div className="relative">
            <span
              aria-hidden
              className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
            >
              £
            </span>
            <Input
              id={`${formId}-amount`}
              type="number"
              inputMode="decimal"
              min={0}
              step={0.01}
              placeholder="0.00"
              className="pl-7 tabular-nums"
              {...form.register('amount')}
              onKeyDown={(e) => {
                if (e.key === 'Enter') onAdd();
              }}
            />
          </div>
          {basis === 'net' ? (
            <p className="text-[13px] text-muted-foreground">Net figure: the bill is grossed up ÷ 0.8</p>
          ) : null}
        </div>
        <div className="col-span-2 sm:col-span-1 md:col-span-1">
          <Tooltip content={basis === 'gross' ? 'Convert to net (80%)' : 'Convert to gross (100%)'}>
            <Button
              variant="outline"
              size="sm"
              className="w-full sm:mt-6 md:mt-0 md:w-auto"
              // The name starts with the visible word (axe label-content-name-mismatch, issue 17 item 17).
              aria-label={basis === 'gross' ? 'Gross: convert to net (80%)' : 'Net: convert to gross (100%)'}
              onClick={onConvert}
            >
              <ArrowLeftRight aria-hidden />
              {basis === 'gross' ? 'Gross' : 'Net'}
            </Button>
          </Tooltip>
        </div>
        <div className="grid gap-1 text-sm">
          <span className="text-xs text-muted-foreground md:hidden">CIS Deduction (20%)</span>
          <span className="tabular-nums" aria-label="CIS Deduction (20%)">
            {preview ? formatPounds(fromPence(preview.cisDeductionPence)) : '—'}
          </span>
        </div>
        <div className="grid gap-1 text-sm">
          <span className="text-xs text-muted-foreground md:hidden">Amount Due (80%)</span>
          <span className="tabular-nums font-medium" aria-label="Amount Due (80%)">
            {preview ? formatPounds(fromPence(preview.amountDuePence)) : '—'}
          </span>
        </div>
        <div className="col-span-2 md:col-span-1">
          <Button onClick={onAdd} className="w-full md:w-auto" disabled={disabled}>
            <Plus aria-hidden />
            Add
          </Button>
        </div>
      </div>
    </div>
  );
}
