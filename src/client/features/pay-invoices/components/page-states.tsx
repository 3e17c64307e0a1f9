import { AlertTriangle, Inbox, RefreshCw, SearchX, WifiOff } from 'lucide-react';
import { FeatureDisabledState, StateCard } from '@/client/components/state-card';
import { Button } from '@/client/components/ui/button';
import { Spinner } from '@/client/components/ui/spinner';

/** docs/product/features.md §2 empty state: 'No Invoices to Pay' with a Refresh Invoices button. */
export function NoInvoicesState({
  onRefresh,
  isRefreshing,
}: {
  onRefresh: () => void;
  isRefreshing: boolean;
}) {
  return (
    <StateCard
      icon={<Inbox aria-hidden className="size-6" />}
      title="No Invoices to Pay"
      actions={
        <Button onClick={onRefresh} disabled={isRefreshing}>
          {isRefreshing ? (
            <Spinner className="size-4 text-current" label="Refreshing invoices" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Refresh Invoices
        </Button>
      }
    >
      Every approved sales invoice in Xero is paid. New invoices appear here once they are approved.
    </StateCard>
  );
}

/** Search or filters hide every invoice: say so and offer the way back. */
export function NoMatchesState({ onClear }: { onClear: () => void }) {
  return (
    <StateCard
      icon={<SearchX aria-hidden className="size-6" />}
      title="No invoices match"
      actions={
        <Button variant="outline" onClick={onClear}>
          Clear search and filters
        </Button>
      }
    >
      No outstanding invoice matches the search and filters.
    </StateCard>
  );
}

/**
 * docs/product/features.md §2 feature disabled: 'Feature Not Available' with Refresh Permissions and Return
 * to Organizations.
 */
export function FeatureNotAvailableState({
  onRefreshPermissions,
  onReturn,
  isRefreshing,
}: {
  onRefreshPermissions: () => void;
  onReturn: () => void;
  isRefreshing: boolean;
}) {
  return (
    <FeatureDisabledState
      title="Feature Not Available"
      description="Pay Invoices is not enabled for this organization. An administrator can switch it on."
      placement="workspace"
      actions={
        <>
          <Button variant="outline" onClick={onRefreshPermissions} disabled={isRefreshing}>
            {isRefreshing ? (
              <Spinner className="size-4" label="Refreshing permissions" />
            ) : (
              <RefreshCw aria-hidden />
            )}
            Refresh Permissions
          </Button>
          <Button onClick={onReturn}>Return to Organizations</Button>
        </>
      }
    />
  );
}

/** docs/product/features.md §2 connection in error: 'Connection Error' with Retry Connection. */
export function ConnectionErrorState({
  message,
  onRetry,
  isRetrying,
}: {
  message: string;
  onRetry: () => void;
  isRetrying: boolean;
}) {
  return (
    <StateCard
      alert
      tone="destructive"
      icon={<WifiOff aria-hidden className="size-6" />}
      title="Connection Error"
      actions={
        <Button onClick={onRetry} disabled={isRetrying}>
          {isRetrying ? (
            <Spinner className="size-4 text-current" label="Retrying" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Retry Connection
        </Button>
      }
    >
      <p>Invoices could not be loaded from Xero.</p>
      <p className="mt-1 text-xs">{message}</p>
    </StateCard>
  );
}

/** docs/product/features.md §2: a null invoice shows 'Error Loading Invoice'. */
export function InvoiceLoadErrorState({ onReload }: { onReload: () => void }) {
  return (
    <StateCard
      tone="destructive"
      icon={<AlertTriangle aria-hidden className="size-6" />}
      title="Error Loading Invoice"
      actions={
        <Button variant="outline" onClick={onReload}>
          Back to the first invoice
        </Button>
      }
    >
      This invoice could not be shown.
    </StateCard>
  );
}

/** First load: the first visit reads every outstanding invoice from Xero, which can take a few seconds. */
export function LoadingInvoicesState() {
  return (
    <div className="flex min-h-[40vh] flex-col items-center justify-center gap-3 text-sm text-muted-foreground">
      <Spinner className="size-8" label="Loading invoices" />
      Loading invoices from Xero...
    </div>
  );
}
