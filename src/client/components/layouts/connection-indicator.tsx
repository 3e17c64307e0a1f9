import { getTokenStatus, type TokenStatus } from '@/shared/connection-rules';
import { useEffect, useState } from 'react';
import type { Connection } from '@/client/lib/connection';
import { cn } from '@/client/lib/utils';

const LABELS: Record<TokenStatus, string> = {
  valid: `Connected to Xero`,
  expiring: 'Token expires in <5 min',
  expired: 'Connection needs refresh',
};

const DOT: Record<TokenStatus, string> = {
  valid: 'bg-success',
  expiring: 'bg-warning',
  expired: 'bg-destructive',
};

const PILL: Record<TokenStatus, string> = {
  valid: 'text-success bg-success-soft',
  expiring: 'text-warning-foreground bg-warning-soft',
  expired: 'text-destructive bg-destructive-soft',
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
 * (docs/product/shell.md §2).
 */
export function ConnectionIndicator({
  connection,
  compact = false,
}: {
  connection: Connection;
  compact?: boolean;
}) {
  const now = useNow();
  const status = getTokenStatus(connection.tokenExpiry, now);
  return (
    <span
      role="status"
      data-status={status}
      title={LABELS[status]}
      className={cn(
        'inline-flex items-center gap-2 rounded-full px-2.5 py-1 text-xs font-medium whitespace-nowrap',
        PILL[status],
      )}
    >
      <span aria-hidden className={cn('size-2 rounded-full', DOT[status])} />
      <span className={cn(compact && 'sr-only')}>{LABELS[status]}</span>
    </span>
  );
}
