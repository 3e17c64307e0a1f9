import { AlertTriangle, CheckCircle2, RefreshCw, Undo2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { formatMoney } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Spinner } from '@/client/components/ui/spinner';
import { cn } from '@/client/lib/utils';
import type { PaymentRun } from '../hooks/use-payment-processing';
import { SUCCESS_BANNER_EXIT_MS, SUCCESS_BANNER_MS } from '../utils/screen';

/**
 * The success banner (docs/product/features.md §4): 'Payment Successful!' with 'Invoice fully paid' and
 * COMPLETED, or the remaining balance and PARTIAL; shown 1.5 s, then a 0.5 s exit. It waits while the pointer
 * or focus is on it (so its Undo can be reached), as timed messages should.
 */
export function PaymentSuccessBanner({
  run,
  onDone,
  onUndo,
  isUndoing,
}: {
  run: PaymentRun;
  onDone: () => void;
  onUndo: () => void;
  isUndoing: boolean;
}) {
  const [phase, setPhase] = useState<'shown' | 'leaving'>('shown');
  const [isHeld, setHeld] = useState(false);
  const done = useRef(onDone);
  useEffect(() => {
    done.current = onDone;
  }, [onDone]);
  useEffect(() => {
    if (isHeld || isUndoing) return;
    const leave = setTimeout(() => setPhase('leaving'), SUCCESS_BANNER_MS);
    const end = setTimeout(() => done.current(), SUCCESS_BANNER_MS + SUCCESS_BANNER_EXIT_MS);
    return () => {
      clearTimeout(leave);
      clearTimeout(end);
      setPhase('shown');
    };
  }, [isHeld, isUndoing]);
  const completed = run.outcome.tag === 'COMPLETED';
  return (
    // Under the header; on a phone at the foot of the screen, since a phone's toasts come down over the header
    // (components/ui/toaster.tsx, issue 45) and the payment's own toast would cover this banner and its Undo.
    <div className="pointer-events-none fixed inset-x-0 top-20 z-[80] flex justify-center px-4 max-sm:top-auto max-sm:bottom-4">
      <div
        role="status"
        aria-live="polite"
        onPointerEnter={() => setHeld(true)}
        onPointerLeave={() => setHeld(false)}
        onFocus={() => setHeld(true)}
        onBlur={() => setHeld(false)}
        style={{ transitionDuration: `${SUCCESS_BANNER_EXIT_MS}ms` }}
        className={cn(
          // The whole message is always shown (issue 33 item 6): the text wraps, and on a phone the tag and
          // the Undo move under it rather than squeezing it.
          'pointer-events-auto flex w-full max-w-lg flex-wrap items-center gap-x-3 gap-y-2 rounded-xl border border-success/30 bg-card px-4 py-3 shadow-lg transition-all',
          phase === 'leaving' ? '-translate-y-2 opacity-0' : 'translate-y-0 opacity-100 animate-fade-in',
        )}
      >
        <div className="flex min-w-0 flex-[1_1_16rem] items-start gap-3">
          <CheckCircle2 aria-hidden className="size-6 shrink-0 text-success" />
          <div className="min-w-0">
            <p className="font-semibold">{run.outcome.title}</p>
            <p className="text-sm break-words text-muted-foreground">
              {run.invoiceNumber} · {run.outcome.detail}
            </p>
          </div>
        </div>
        <div className="ml-auto flex shrink-0 items-center gap-2">
          <span
            className={cn(
              'rounded-full px-2 py-0.5 text-[11px] font-bold tracking-wide',
              completed ? 'bg-success-soft text-success' : 'bg-warning-soft text-warning-foreground',
            )}
          >
            {run.outcome.tag}
          </span>
          <Button size="sm" variant="outline" onClick={onUndo} disabled={isUndoing}>
            {isUndoing ? <Spinner className="size-4" label="Undoing" /> : <Undo2 aria-hidden />}
            Undo
          </Button>
        </div>
      </div>
    </div>
  );
}

function formatLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** After the banner has gone, the last run can still be undone until its window closes (beyond the spec). */
export function UndoStrip({
  run,
  onUndo,
  isUndoing,
  onExpire,
}: {
  run: PaymentRun;
  onUndo: () => void;
  isUndoing: boolean;
  onExpire: () => void;
}) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = run.undoableUntil - now;
  useEffect(() => {
    if (left <= 0) onExpire();
  }, [left, onExpire]);
  if (left <= 0) return null;
  const total = run.payments.reduce((sum, p) => sum + Math.round(p.amount * 100), 0);
  const parts = run.payments.map((p) => (p.isCard ? 'card' : 'cash')).join(' + ');
  return (
    <div className="flex flex-wrap items-center gap-2 rounded-lg border border-border bg-muted/50 px-3 py-2 text-sm">
      <CheckCircle2 aria-hidden className="size-4 text-success" />
      <span className="min-w-0 flex-1">{`Paid ${formatMoney(total, run.currency)} (${parts}) on ${run.invoiceNumber}`}</span>
      <Button size="sm" variant="ghost" onClick={onUndo} disabled={isUndoing}>
        {isUndoing ? <Spinner className="size-4" label="Undoing" /> : <Undo2 aria-hidden />}
        Undo ({formatLeft(left)})
      </Button>
    </div>
  );
}

/** 'Invoice Data May Be Out of Sync' with a refresh link (docs/product/features.md §4). */
export function OutOfSyncBanner({
  onRefresh,
  isRefreshing,
}: {
  onRefresh: () => void;
  isRefreshing: boolean;
}) {
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center gap-3 rounded-xl border border-warning/40 bg-warning-soft px-4 py-3 text-sm text-warning-foreground"
    >
      <AlertTriangle aria-hidden className="size-4 shrink-0" />
      <div className="min-w-0 flex-1">
        <p className="font-semibold">Invoice Data May Be Out of Sync</p>
        <p>The invoice may have changed in Xero since it was loaded.</p>
      </div>
      <Button
        variant="link"
        className="h-auto p-0 text-warning-foreground underline"
        onClick={onRefresh}
        disabled={isRefreshing}
      >
        <RefreshCw aria-hidden className={cn(isRefreshing && 'animate-spin')} />
        Refresh invoice
      </Button>
    </div>
  );
}
