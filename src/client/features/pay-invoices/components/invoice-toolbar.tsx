import { ChevronDown, Filter, RefreshCw, Search, Wallet } from 'lucide-react';
import type { Ref } from 'react';
import type { InvoiceSort } from '@/shared/pay-invoices';
import { Button } from '@/client/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '@/client/components/ui/dropdown-menu';
import { Input } from '@/client/components/ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { Spinner } from '@/client/components/ui/spinner';
import { cn } from '@/client/lib/utils';

/** The sort options of docs/product/features.md §9, in that order; the first is the default. */
export const SORT_LABELS: Record<InvoiceSort, string> = {
  'date-asc': 'Date (oldest first)',
  'date-desc': 'Date (newest first)',
  'number-asc': 'Invoice number (ascending)',
  'number-desc': 'Invoice number (descending)',
  'amount-asc': 'Amount (smallest first)',
  'amount-desc': 'Amount (largest first)',
};

export function InvoiceToolbar({
  search,
  onSearchChange,
  searchRef,
  sort,
  onSortChange,
  isFilterOpen,
  activeFilterCount,
  onToggleFilter,
  onStandardRefresh,
  onForceRefresh,
  isRefreshingInvoices,
  onRefreshAccounts,
  isRefreshingAccounts,
  disabled,
}: {
  search: string;
  onSearchChange: (value: string) => void;
  searchRef: Ref<HTMLInputElement>;
  sort: InvoiceSort;
  onSortChange: (value: InvoiceSort) => void;
  isFilterOpen: boolean;
  activeFilterCount: number;
  onToggleFilter: () => void;
  onStandardRefresh: () => void;
  onForceRefresh: () => void;
  isRefreshingInvoices: boolean;
  onRefreshAccounts: () => void;
  isRefreshingAccounts: boolean;
  disabled: boolean;
}) {
  return (
    <div className="flex flex-col gap-2 lg:flex-row lg:items-center">
      <div className="relative min-w-0 flex-1">
        <Search
          aria-hidden
          className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <Input
          ref={searchRef}
          type="search"
          value={search}
          onChange={(event) => onSearchChange(event.target.value)}
          placeholder="Search invoices"
          aria-label="Search invoices"
          className="pl-9"
        />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Select value={sort} onValueChange={(value) => onSortChange(value as InvoiceSort)}>
          <SelectTrigger aria-label="Sort invoices" className="w-full sm:w-56">
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            {(Object.keys(SORT_LABELS) as InvoiceSort[]).map((option) => (
              <SelectItem key={option} value={option}>
                {SORT_LABELS[option]}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
        <Button
          variant={isFilterOpen ? 'secondary' : 'outline'}
          aria-expanded={isFilterOpen}
          aria-controls="invoice-filters"
          onClick={onToggleFilter}
        >
          <Filter aria-hidden />
          Filter
          {activeFilterCount > 0 ? (
            <span className="rounded-full bg-primary px-1.5 text-[11px] font-semibold leading-4 text-primary-foreground">
              {activeFilterCount}
            </span>
          ) : null}
        </Button>
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button variant="outline" disabled={disabled || isRefreshingInvoices}>
              {isRefreshingInvoices ? (
                <Spinner className="size-4" label="Refreshing invoices" />
              ) : (
                <RefreshCw aria-hidden />
              )}
              Refresh Invoices
              <ChevronDown aria-hidden className="opacity-60" />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent>
            <DropdownMenuItem onSelect={onStandardRefresh}>
              <RefreshCw aria-hidden />
              Standard Refresh
            </DropdownMenuItem>
            <DropdownMenuItem onSelect={onForceRefresh}>
              <RefreshCw aria-hidden />
              Force Refresh (Clear Cache)
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
        <Button variant="outline" onClick={onRefreshAccounts} disabled={disabled || isRefreshingAccounts}>
          {isRefreshingAccounts ? (
            <Spinner className="size-4" label="Refreshing accounts" />
          ) : (
            <Wallet aria-hidden />
          )}
          <span className={cn(isRefreshingAccounts && 'opacity-80')}>Refresh Accounts</span>
        </Button>
      </div>
    </div>
  );
}
