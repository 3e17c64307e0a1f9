import { formatCount } from '@/shared/counts';
import { CircleAlert, CircleCheck, Clock, X } from 'lucide-react';
import { formatPounds } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { cn } from '@/client/lib/utils';
import type { BillRun, BillRunResult } from '../utils/bill-run';

function describeResult(result: BillRunResult): string {
  switch (result.state) {
    case 'waiting':
      return 'Waiting…';
    case 'created':
      return result.status === 'AUTHORISED' ? 'Created and approved' : 'Created as draft';
    case 'unknown':
      return result.message ?? 'Not confirmed by Xero yet';
    case 'failed':
      return result.message ?? 'Failed';
  }
}

/** Beyond the spec: a progress bar while bills are created, then one line per bill with its outcome. */
export function CreationProgress({ run, onDismiss }: { run: BillRun; onDismiss: () => void }) {
  const percent = run.total === 0 ? 0 : Math.round((run.done / run.total) * 100);
  const created = run.results.filter((r) => r.state === 'created').length;
  return (
    <section aria-label="Bill creation results" className="rounded-xl border border-border bg-muted/30 p-4">
      <div className="flex items-center justify-between gap-3 text-sm">
        <span className="font-medium" id="bill-run-label">
          {run.isRunning
            ? `Creating bills in Xero: ${run.done} of ${run.total}`
            : `Created ${created} of ${formatCount(run.total, 'bill')} in Xero`}
        </span>
        {run.isRunning ? null : (
          <Button
            variant="ghost"
            size="icon"
            className="size-7"
            aria-label="Dismiss results"
            onClick={onDismiss}
          >
            <X aria-hidden />
          </Button>
        )}
      </div>
      <div
        role="progressbar"
        aria-labelledby="bill-run-label"
        aria-valuemin={0}
        aria-valuemax={run.total}
        aria-valuenow={run.done}
        aria-valuetext={`${run.done} of ${run.total}`}
        className="mt-2 h-2 overflow-hidden rounded-full bg-muted"
      >
        <div
          className="h-full rounded-full bg-primary transition-[width] duration-300"
          style={{ width: `${percent}%` }}
        />
      </div>
      <ul className="mt-3 grid gap-1.5 text-sm">
        {run.results.map((result) => (
          <li key={result.id} className="flex items-start gap-2">
            {result.state === 'created' ? (
              <CircleCheck aria-hidden className="mt-0.5 size-4 shrink-0 text-success" />
            ) : result.state === 'waiting' ? (
              <Clock aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
            ) : (
              <CircleAlert
                aria-hidden
                className={cn(
                  'mt-0.5 size-4 shrink-0',
                  result.state === 'failed' ? 'text-destructive' : 'text-warning-foreground',
                )}
              />
            )}
            <span className="min-w-0">
              <span className="font-medium">{result.contactName}</span>{' '}
              <span className="tabular-nums text-muted-foreground">
                {formatPounds(result.total)}
                {result.reference ? ` · ${result.reference}` : ''}
              </span>
              <span
                className={cn(
                  'block text-[13px]',
                  result.state === 'failed' ? 'text-destructive' : 'text-muted-foreground',
                )}
              >
                {describeResult(result)}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
