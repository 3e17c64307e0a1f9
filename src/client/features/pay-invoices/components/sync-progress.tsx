import type { InvoiceSyncStatus } from '@/shared/pay-invoices';
import { describeSyncProgress, PARTIAL_NOTE } from '../utils/sync-progress';

/**
 * The bar above the list while the server reads a first visit's invoices from Xero (issue 19); the list grows
 * under it as pages arrive, and it goes once the list is complete.
 */
export function InvoicesSyncProgress({ sync }: { sync: InvoiceSyncStatus }) {
  const label = describeSyncProgress(sync);
  const max = sync.total === null ? null : Math.max(sync.total, sync.fetched, 1);
  const percent = max === null ? null : Math.min(100, Math.round((sync.fetched / max) * 100));
  return (
    <section
      className="grid gap-2 rounded-lg border border-border bg-card px-4 py-3"
      aria-label="Loading invoices"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <p className="text-sm font-medium tabular">{label}</p>
        {percent === null ? null : <p className="text-xs text-muted-foreground tabular">{percent}%</p>}
      </div>
      <div
        role="progressbar"
        aria-label="Loading invoices from Xero"
        aria-valuemin={0}
        aria-valuenow={sync.fetched}
        {...(max === null ? {} : { 'aria-valuemax': max })}
        aria-valuetext={label}
        className="h-2 w-full overflow-hidden rounded-full bg-muted"
      >
        <div
          className={`h-full rounded-full bg-primary transition-[width] duration-500 ${percent === null ? 'w-1/3 animate-pulse' : ''}`}
          style={percent === null ? undefined : { width: `${percent}%` }}
        />
      </div>
      <p className="text-xs text-muted-foreground">{PARTIAL_NOTE}</p>
    </section>
  );
}
