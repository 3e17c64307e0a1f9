import { ArrowLeftRight, Plus, RefreshCw, TriangleAlert } from 'lucide-react';
import type { ComponentProps } from 'react';
import { Controller, useWatch, type UseFormReturn } from 'react-hook-form';
import type { CisBillFigures } from '@/shared/cis';
import { describeCisRate, isCisChecked, type CisContact } from '@/shared/cis-bills';
import type { SubcontractorStatus } from '@/shared/hmrc-filing';
import { formatPounds, fromPence } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Checkbox } from '@/client/components/ui/checkbox';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Tooltip } from '@/client/components/ui/tooltip';
import type { CisContactChecks } from '../hooks/use-cis-contact-checks';
import { HmrcRateNote } from './hmrc-rate-note';
import { describeVat, type ContactTax } from '../utils/bill-entry';
import type { BillForm } from '../utils/bill-form';
import { SubcontractorPicker } from './subcontractor-picker';

/** Eight columns need a laptop's width: below `lg` the row stacks (issue 42 added Materials and VAT). */
const COLUMNS =
  'lg:grid-cols-[minmax(0,2fr)_minmax(0,1.1fr)_6rem_minmax(0,1fr)_minmax(0,0.9fr)_minmax(0,1fr)_minmax(0,1fr)_5.5rem]';

/** A pounds input with its £ sign. */
function PoundsInput({ id, onEnter, ...props }: ComponentProps<typeof Input> & { onEnter: () => void }) {
  return (
    <div className="relative">
      <span
        aria-hidden
        className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
      >
        £
      </span>
      <Input
        id={id}
        type="number"
        inputMode="decimal"
        min={0}
        step={0.01}
        placeholder="0.00"
        className="pl-7 tabular-nums"
        onKeyDown={(e) => {
          if (e.key === 'Enter') onEnter();
        }}
        {...props}
      />
    </div>
  );
}

/**
 * The next bill (docs/product/features.md §2; issue 42): the subcontractor, the labour as the gross amount
 * (or net, grossed up at the subcontractor's rate), the materials beside it, the VAT the subcontractor charges,
 * and the deduction and amount due they make. A row at a rate other than 20 % says so; a contact Xero does not
 * mark as CIS is flagged and needs "No CIS deduction" ticked. Enter in an amount adds the bill too.
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
  tax,
  verificationStatus,
  hasMaterialsAccount,
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
  /** The selected subcontractor's CIS and VAT. */
  tax: ContactTax;
  /** Issue 43: what HMRC's rule asks of the selected subcontractor (verify before paying), when known. */
  verificationStatus?: SubcontractorStatus | undefined;
  /** Whether the CIS settings name a materials account (without one the bill carries no materials). */
  hasMaterialsAccount: boolean;
  /** The figures of what is typed, or null when it is not an amount or the rate is not known yet. */
  preview: CisBillFigures | null;
  onConvert: () => void;
  onAdd: () => void;
  disabled: boolean;
}) {
  const basis = useWatch({ control: form.control, name: 'basis' });
  const rateNote = selectedContact && tax.state !== 'checking' ? describeCisRate(tax.rate) : null;
  const money = (pence: number | undefined) => (pence === undefined ? '—' : formatPounds(fromPence(pence)));
  const notCis = selectedContact !== undefined && tax.state === 'not-cis';
  const vatText = selectedContact ? describeVat(tax.vatTreatment, tax.vatShownPercent) : null;
  return (
    <div className="rounded-xl border border-border">
      <div
        className={`hidden ${COLUMNS} items-center gap-3 border-b border-border bg-muted/60 px-3 py-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground lg:grid`}
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
        <span>Materials</span>
        <span>VAT</span>
        <span>CIS Deduction (20%)</span>
        <span>Amount Due (80%)</span>
        <span>Actions</span>
      </div>
      <div className={`grid grid-cols-2 items-start gap-3 p-3 ${COLUMNS} lg:items-center`}>
        <div className="col-span-2 grid min-w-0 gap-1.5 lg:col-span-1">
          <div className="flex flex-wrap items-center justify-between gap-x-2 lg:contents">
            <Label htmlFor={`${formId}-contact`} className="lg:sr-only">
              Subcontractor
            </Label>
            <Button
              variant="ghost"
              size="sm"
              className="h-7 px-2 text-xs lg:hidden"
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
          {notCis ? (
            <div className="grid gap-1.5">
              <p className="flex items-center gap-1 text-[13px] text-warning-foreground">
                <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
                Not a CIS subcontractor in Xero: nothing is deducted
              </p>
              <div className="flex items-center gap-2">
                <Controller
                  control={form.control}
                  name="withoutCisDeduction"
                  render={({ field }) => (
                    <Checkbox
                      id={`${formId}-no-cis`}
                      checked={field.value}
                      onCheckedChange={(checked) => field.onChange(checked === true)}
                    />
                  )}
                />
                <Label htmlFor={`${formId}-no-cis`} className="text-[13px] font-normal">
                  No CIS deduction: the work is outside CIS
                </Label>
              </div>
            </div>
          ) : selectedContact &&
            !selectedContact.verified &&
            isCisChecked(selectedContact) &&
            !selectedContact.hasValidUTR ? (
            <p className="flex items-center gap-1 text-[13px] text-warning-foreground">
              <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
              No verified CIS settings in Xero
            </p>
          ) : null}
          {selectedContact ? <HmrcRateNote contact={selectedContact} status={verificationStatus} /> : null}
        </div>
        <div className="col-span-2 grid gap-1.5 sm:col-span-1 lg:col-span-1">
          <Label htmlFor={`${formId}-amount`} className="lg:sr-only">
            {basis === 'net' ? `Net Amount (${100 - (tax.rate ?? 20)}%)` : 'Gross Amount'}
          </Label>
          <PoundsInput id={`${formId}-amount`} onEnter={onAdd} {...form.register('amount')} />
          <p className="text-[13px] text-muted-foreground">
            {basis === 'net'
              ? `Net figure: the labour is grossed up at ${tax.rate ?? 20}%`
              : 'Labour, excluding VAT'}
          </p>
        </div>
        <div className="col-span-2 sm:col-span-1 lg:col-span-1">
          <Tooltip
            content={
              basis === 'gross' ? `Convert to net (${100 - (tax.rate ?? 20)}%)` : 'Convert to gross (100%)'
            }
          >
            <Button
              variant="outline"
              size="sm"
              className="w-full sm:mt-6 lg:mt-0 lg:w-auto"
              // The name starts with the visible word (axe label-content-name-mismatch, issue 17 item 17).
              aria-label={
                basis === 'gross'
                  ? `Gross: convert to net (${100 - (tax.rate ?? 20)}%)`
                  : 'Net: convert to gross (100%)'
              }
              onClick={onConvert}
            >
              <ArrowLeftRight aria-hidden />
              {basis === 'gross' ? 'Gross' : 'Net'}
            </Button>
          </Tooltip>
        </div>
        <div className="col-span-2 grid gap-1.5 sm:col-span-1 lg:col-span-1">
          <Label htmlFor={`${formId}-materials`} className="lg:sr-only">
            Materials
          </Label>
          <PoundsInput
            id={`${formId}-materials`}
            onEnter={onAdd}
            disabled={!hasMaterialsAccount}
            aria-describedby={`${formId}-materials-hint`}
            {...form.register('materials')}
          />
          <p id={`${formId}-materials-hint`} className="text-[13px] text-muted-foreground">
            {hasMaterialsAccount ? 'Excluding VAT; no deduction' : 'No materials account in Settings'}
          </p>
        </div>
        <div className="grid gap-1 text-sm">
          <span className="text-xs text-muted-foreground lg:hidden">VAT</span>
          <span className="tabular-nums" aria-label="VAT">
            {preview ? money(preview.vatPence) : '—'}
          </span>
          {vatText ? <span className="text-xs text-muted-foreground">{vatText}</span> : null}
        </div>
        <div className="grid gap-1 text-sm">
          <span className="text-xs text-muted-foreground lg:hidden">CIS Deduction (20%)</span>
          <span className="tabular-nums" aria-label="CIS Deduction (20%)">
            {preview ? money(preview.cisDeductionPence) : '—'}
          </span>
          {rateNote ? <span className="text-xs font-medium text-warning-foreground">{rateNote}</span> : null}
        </div>
        <div className="grid gap-1 text-sm">
          <span className="text-xs text-muted-foreground lg:hidden">Amount Due (80%)</span>
          <span className="tabular-nums font-medium" aria-label="Amount Due (80%)">
            {preview ? money(preview.amountDuePence) : '—'}
          </span>
          {preview && (preview.vatPence > 0 || preview.materialsPence > 0) ? (
            <span className="text-xs text-muted-foreground">of {money(preview.totalPence)} total</span>
          ) : null}
        </div>
        <div className="col-span-2 lg:col-span-1">
          <Button onClick={onAdd} className="w-full lg:w-auto" disabled={disabled}>
            <Plus aria-hidden />
            Add
          </Button>
        </div>
      </div>
    </div>
  );
}
