import { RefreshCw } from 'lucide-react';
import {
  ALL_CUSTOMERS,
  journalStatusFilterSchema,
  type Customer,
  type JournalStatusFilter,
} from '@/shared/stock-journal';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import type { StockJournalFilters } from '../api/query-keys';

const STATUS_OPTIONS: Array<{ value: JournalStatusFilter; label: string }> = [
  { value: 'all', label: 'All Journals' },
  { value: 'posted', label: 'Posted Only' },
  { value: 'unposted', label: 'Unposted Only' },
];

/**
 * The filters of docs/product/features.md §2: Customer (All Customers plus the list), Margin Rate
 * (placeholder 1.35, step 0.01, min 0), Journal Status, from and to dates, and Refresh Data.
 */
export function JournalFilters({
  filters,
  customers,
  customersLoading,
  isRefreshing,
  onChange,
  onRefresh,
}: {
  filters: StockJournalFilters;
  customers: Customer[];
  customersLoading: boolean;
  isRefreshing: boolean;
  onChange: (next: Partial<StockJournalFilters>) => void;
  onRefresh: () => void;
}) {
  // A saved customer not (yet) in the list still shows by id rather than as an empty select.
  const known = filters.customerId === ALL_CUSTOMERS || customers.some((c) => c.id === filters.customerId);
  return (
    <Card>
      <CardContent className="grid gap-4 p-4 sm:grid-cols-2 lg:grid-cols-[minmax(12rem,1.6fr)_minmax(7rem,0.7fr)_minmax(9rem,1fr)_minmax(9rem,1fr)_minmax(9rem,1fr)_auto] lg:items-end">
        <div className="grid gap-1.5 sm:col-span-2 lg:col-span-1">
          <Label htmlFor="sj-customer">Customer</Label>
          <Select value={filters.customerId} onValueChange={(customerId) => onChange({ customerId })}>
            <SelectTrigger id="sj-customer" aria-label="Customer">
              <SelectValue placeholder={customersLoading ? 'Loading customers...' : 'All Customers'} />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value={ALL_CUSTOMERS}>All Customers</SelectItem>
              {!known ? (
                <SelectItem value={filters.customerId}>
                  {customersLoading ? 'Loading customers...' : 'Saved customer'}
                </SelectItem>
              ) : null}
              {customers.map((c) => (
                <SelectItem key={c.id} value={c.id}>
                  {c.name}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="sj-margin">Margin Rate</Label>
          <Input
            id="sj-margin"
            type="number"
            inputMode="decimal"
            placeholder="1.35"
            step="0.01"
            min="0"
            value={filters.marginRate}
            onChange={(e) => onChange({ marginRate: e.target.value })}
          />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="sj-status">Journal Status</Label>
          <Select
            value={filters.journalStatus}
            onValueChange={(value) => {
              const parsed = journalStatusFilterSchema.safeParse(value);
              if (parsed.success) onChange({ journalStatus: parsed.data });
            }}
          >
            <SelectTrigger id="sj-status" aria-label="Journal Status">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {STATUS_OPTIONS.map((o) => (
                <SelectItem key={o.value} value={o.value}>
                  {o.label}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="sj-from">From date</Label>
          <Input
            id="sj-from"
            type="date"
            value={filters.fromDate}
            max={filters.toDate || undefined}
            onChange={(e) => onChange({ fromDate: e.target.value })}
          />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="sj-to">To date</Label>
          <Input
            id="sj-to"
            type="date"
            value={filters.toDate}
            min={filters.fromDate || undefined}
            onChange={(e) => onChange({ toDate: e.target.value })}
          />
        </div>
        <Button
          variant="outline"
          onClick={onRefresh}
          disabled={isRefreshing}
          className="sm:col-span-2 lg:col-span-1"
        >
          <RefreshCw aria-hidden className={isRefreshing ? 'animate-spin' : undefined} />
          Refresh Data
        </Button>
      </CardContent>
    </Card>
  );
}
