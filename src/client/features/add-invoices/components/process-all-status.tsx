import { formatCount } from '@/shared/counts';
import { CheckCircle2, CircleAlert, X } from 'lucide-react';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';

export interface ProcessAllProgress {
  done: number;
  total: number;
}

export interface ProcessAllSummary {
  /** Invoices approved (their cash, if any, paid into the cash account). */
  approved: string[];
  /** Invoices left as drafts with their cash kept pending. */
  cashKept: string[];
  failed: Array<{ invoiceNumber: string; message: string }>;
}

/** Process All's progress (n of N invoices), advanced as each batch comes back. */
export function ProcessAllProgressBar({ progress }: { progress: ProcessAllProgress }) {
  const percent = progress.total === 0 ? 0 : Math.round((progress.done / progress.total) * 100);
  const label = `Processing invoices: ${progress.done} of ${progress.total}`;
  return (
    <div className="flex flex-col gap-1.5" aria-live="polite">
      <div className="flex items-center justify-between text-sm">
        <span className="font-medium">Processing invoices…</span>
        <span className="tabular-nums text-muted-foreground">
          {progress.done} of {progress.total}
        </span>
      </div>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={progress.total}
        aria-valuenow={progress.done}
        aria-valuetext={`${progress.done} of ${progress.total}`}
        className="h-2 w-full overflow-hidden rounded-full bg-muted"
      >
        <div
          className="h-full rounded-full bg-primary transition-[width] duration-300"
          style={{ width: `${Math.max(percent, 4)}%` }}
        />
      </div>
    </div>
  );
}

/** What Process All did: how many succeeded, and each failure with Xero's reason. */
export function ProcessAllSummaryPanel({
  summary,
  onDismiss,
}: {
  summary: ProcessAllSummary;
  onDismiss: () => void;
}) {
  const done = summary.approved.length + summary.cashKept.length;
  const total = done + summary.failed.length;
  const allGood = summary.failed.length === 0;
  return (
    <Alert variant={allGood ? 'default' : 'warning'} aria-live="polite">
      {allGood ? <CheckCircle2 aria-hidden className="text-success" /> : <CircleAlert aria-hidden />}
      <div className="min-w-0 flex-1">
        <AlertTitle>
          {allGood
            ? `All ${formatCount(total, 'invoice')} processed`
            : `${done} of ${formatCount(total, 'invoice')} processed, ${summary.failed.length} failed`}
        </AlertTitle>
        <AlertDescription>
          {summary.approved.length > 0 ? (
            <p>
              <span className="font-medium">Approved:</span> {summary.approved.join(', ')}
            </p>
          ) : null}
          {summary.cashKept.length > 0 ? (
            <p>
              <span className="font-medium">Cash kept pending:</span> {summary.cashKept.join(', ')}
            </p>
          ) : null}
          {summary.failed.length > 0 ? (
            <ul className="mt-1.5 flex list-none flex-col gap-1 p-0">
              {summary.failed.map((f) => (
                <li key={f.invoiceNumber}>
                  <span className="font-medium">{f.invoiceNumber}:</span> {f.message}
                </li>
              ))}
            </ul>
          ) : null}
        </AlertDescription>
      </div>
      <Button
        variant="ghost"
        size="icon"
        className="-my-1 -mr-1 size-7 shrink-0"
        aria-label="Dismiss summary"
        onClick={onDismiss}
      >
        <X aria-hidden />
      </Button>
    </Alert>
  );
}
