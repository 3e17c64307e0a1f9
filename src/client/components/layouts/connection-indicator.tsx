import { describeConnectionLoss, getConnectionState, type TokenStatus } from '@/shared/connection-rules';
import { useEffect, useState } from 'react';
import type { Connection } from '@/client/lib/connection';
import { cn } from '@/client/lib/utils';

const LABELS: Record<TokenStatus, string> = {
  valid: `Connected to Xero`,
  expiring: 'Token expires in <5 min',
  expired: 'Connection needs refresh',
};

const DOT: Record<TokenStatus | 'lost', string> = {
  valid: 'bg-success',
  expiring: 'bg-warning',
  expired: 'bg-destructive',
  lost: 'bg-destructive',
};

const PILL: Record<TokenStatus | 'lost', string> = {
  valid: 'text-success bg-success-soft',
  expiring: 'text-warning-foreground bg-warning-soft',
  expired: 'text-destructive bg-destructive-soft',
  lost: 'text-destructive bg-destructive-soft',
};

/** Re-evaluates the token status every 15 s so the colour changes without a refetch. */
function useNow(intervalMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * Green "Connected to Xero", yellow under 5 minutes, red when expired or no expiry is known
 * (docs/product/shell.md §2). A connection Xero refused or removed says what happened instead, in the words
 * every screen uses ("Xero access revoked", issue 45 item 2); it is red too.
 */
export function ConnectionIndicator({
  connection,
  compact = false,
}: {
  connection: Connection;
  compact?: boolean;
}) {
  const now = useNow();
  const state = getConnectionState(connection, now);
  const status: TokenStatus | 'lost' =
    state.kind === 'connected' ? state.token : state.kind === 'lost' ? 'lost' : 'expired';
  const label =
    state.kind === 'lost'
      ? describeConnectionLoss(state.reason).title
      : LABELS[status === 'lost' ? 'expired' : status];
  return (
    <span
      role="status"
      data-status={status}
      title={label}
      className={cn(
        'inline-flex items-center gap-2 rounded-full px-2.5 py-1 text-xs font-medium whitespace-nowrap',
        PILL[status],
      )}
    >
      <span aria-hidden className={cn('size-2 rounded-full', DOT[status])} />
      <span className={cn(compact && 'sr-only')}>{label}</span>
    </span>
  );
}
