import { ChevronLeft, ChevronRight, CreditCard, RefreshCw } from 'lucide-react';
import { Button } from '@/client/components/ui/button';
import { Spinner } from '@/client/components/ui/spinner';

/**
 * One invoice at a time (docs/product/features.md §2): Previous, 'x of y', Next, Refresh Invoice and Process
 * Payments. Previous is disabled on the first item and Next on the last.
 */
export function InvoiceNavigator({
  position,
  total,
  isPartial = false,
  onPrevious,
  onNext,
  onRefresh,
  isRefreshing,
  onProcess,
  canProcess,
  isBusy,
  showProcess,
}: {
  position: number;
  total: number;
  /** The list is still arriving from Xero (issue 19): the count says "so far". */
  isPartial?: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onRefresh: () => void;
  isRefreshing: boolean;
  onProcess: () => void;
  canProcess: boolean;
  isBusy: boolean;
  /** Under 768 px the button sits under the amounts instead, where the thumb is. */
  showProcess: boolean;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <div className="flex items-center gap-1">
        <Button
          variant="outline"
          size="icon"
          aria-label="Previous"
          title="Previous (←)"
          onClick={onPrevious}
          disabled={position <= 1 || isBusy}
        >
          <ChevronLeft aria-hidden />
        </Button>
        <span
          className="min-w-20 px-1 text-center text-sm font-medium tabular"
          aria-live="polite"
          aria-label={`Invoice ${position} of ${total}${isPartial ? ' so far' : ''}`}
        >
          {position} of {total}
          {isPartial ? <span className="ml-1 text-xs text-muted-foreground">(so far)</span> : null}
        </span>
        <Button
          variant="outline"
          size="icon"
          aria-label="Next"
          title="Next (→)"
          onClick={onNext}
          disabled={position >= total || isBusy}
        >
          <ChevronRight aria-hidden />
        </Button>
      </div>
      <div className="ml-auto flex flex-wrap items-center gap-2">
        <Button variant="outline" onClick={onRefresh} disabled={isRefreshing || isBusy}>
          {isRefreshing ? (
            <Spinner className="size-4" label="Refreshing invoice" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Refresh Invoice
        </Button>
        {showProcess ? (
          <Button onClick={onProcess} disabled={!canProcess || isBusy} title="Process Payments (Ctrl+Enter)">
            <CreditCard aria-hidden />
            Process Payments
          </Button>
        ) : null}
      </div>
    </div>
  );
}
