import { useId, useState } from 'react';
import { isAmountInput } from '@/shared/money';
import type { InvoiceFilters as Filters, InvoiceStatusFilter } from '@/shared/pay-invoices';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';

/** The panel's values: text fields ('' = no bound) and the status; a valid `InvoiceFilters`. */
export interface FilterValues extends Filters {
  startDate: string;
  endDate: string;
  minAmount: string;
  maxAmount: string;
  status: InvoiceStatusFilter;
}

export const EMPTY_FILTERS: FilterValues = {
  startDate: '',
  endDate: '',
  minAmount: '',
  maxAmount: '',
  status: 'all',
};

const STATUS_LABELS: Record<InvoiceStatusFilter, string> = {
  all: 'All Outstanding',
  overdue: 'Overdue',
  'due-soon': 'Due Soon (7 days)',
};

/** How many filters differ from the defaults (shown on the Filter toggle). */
export function countActiveFilters(filters: FilterValues): number {
  return (
    (filters.startDate ? 1 : 0) +
    (filters.endDate ? 1 : 0) +
    (filters.minAmount ? 1 : 0) +
    (filters.maxAmount ? 1 : 0) +
    (filters.status !== 'all' ? 1 : 0)
  );
}

/**
 * The filter panel (docs/product/features.md §2): Date Range, Amount Range and Status, with Reset and Apply
 * Filters. Edits stay in the panel until applied.
 */
export function InvoiceFiltersPanel({
  applied,
  onApply,
}: {
  applied: FilterValues;
  onApply: (filters: FilterValues) => void;
}) {
  const [draft, setDraft] = useState(applied);
  const id = useId();
  const set = <K extends keyof FilterValues>(key: K, value: FilterValues[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const amount = (key: 'minAmount' | 'maxAmount') => (value: string) => {
    if (isAmountInput(value)) set(key, value);
  };
  return (
    <Card id="invoice-filters">
      <CardContent className="pt-5">
        <form
          className="grid gap-4 md:grid-cols-3"
          onSubmit={(event) => {
            event.preventDefault();
            onApply(draft);
          }}
        >
          <fieldset className="grid gap-2">
            <legend className="mb-2 text-sm font-medium">Date Range</legend>
            <div className="grid grid-cols-2 gap-2">
              <div className="grid gap-1">
                <Label htmlFor={`${id}-start`} className="text-xs text-muted-foreground">
                  Start date
                </Label>
                <Input
                  id={`${id}-start`}
                  type="date"
                  className="dark:[color-scheme:dark]"
                  value={draft.startDate}
                  onChange={(e) => set('startDate', e.target.value)}
                />
              </div>
              <div className="grid gap-1">
                <Label htmlFor={`${id}-end`} className="text-xs text-muted-foreground">
                  End date
                </Label>
                <Input
                  id={`${id}-end`}
                  type="date"
                  className="dark:[color-scheme:dark]"
                  value={draft.endDate}
                  onChange={(e) => set('endDate', e.target.value)}
                />
              </div>
            </div>
          </fieldset>
          <fieldset className="grid gap-2">
            <legend className="mb-2 text-sm font-medium">Amount Range</legend>
            <div className="grid grid-cols-2 gap-2">
              <div className="grid gap-1">
                <Label htmlFor={`${id}-min`} className="text-xs text-muted-foreground">
                  Min (£)
                </Label>
                <Input
                  id={`${id}-min`}
                  inputMode="decimal"
                  placeholder="0.00"
                  value={draft.minAmount}
                  onChange={(e) => amount('minAmount')(e.target.value)}
                />
              </div>
              <div className="grid gap-1">
                <Label htmlFor={`${id}-max`} className="text-xs text-muted-foreground">
                  Max (£)
                </Label>
                <Input
                  id={`${id}-max`}
                  inputMode="decimal"
                  placeholder="Any"
                  value={draft.maxAmount}
                  onChange={(e) => amount('maxAmount')(e.target.value)}
                />
              </div>
            </div>
          </fieldset>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-status`} className="mb-2">
              Status
            </Label>
            <Select
              value={draft.status}
              onValueChange={(value) => set('status', value as InvoiceStatusFilter)}
            >
              <SelectTrigger id={`${id}-status`}>
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {(Object.keys(STATUS_LABELS) as InvoiceStatusFilter[]).map((status) => (
                  <SelectItem key={status} value={status}>
                    {STATUS_LABELS[status]}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="flex justify-end gap-2 md:col-span-3">
            <Button
              type="button"
              variant="outline"
              onClick={() => {
                setDraft(EMPTY_FILTERS);
                onApply(EMPTY_FILTERS);
              }}
            >
              Reset
            </Button>
            <Button type="submit">Apply Filters</Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
