import { AlertTriangle, RefreshCw, RotateCcw } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import { paths } from '@/client/config/paths';
import { isConnectionTroubleVisible, subscribeConnectionTrouble } from '@/client/lib/connection-trouble';
import { resetApplication, useCrashRecovery } from '@/client/lib/crash-recovery';
import { Button } from '@/client/components/ui/button';

/** After more than 5 server or network errors in 30 minutes (docs/product/shell.md §8). Only one is shown. */
export function ConnectionTroubleBanner() {
  const visible = useSyncExternalStore(
    subscribeConnectionTrouble,
    isConnectionTroubleVisible,
    isConnectionTroubleVisible,
  );
  if (!visible) return null;
  return (
    <div role="alert" className="border-b border-warning/40 bg-warning-soft text-warning-foreground">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-3 px-4 py-2.5 text-sm sm:px-6">
        <AlertTriangle aria-hidden className="size-4 shrink-0" />
        <p className="flex-1">There seem to be some connection issues. Refreshing the page might help.</p>
        <Button size="sm" variant="outline" onClick={() => window.location.reload()}>
          <RefreshCw aria-hidden /> Refresh Page
        </Button>
      </div>
    </div>
  );
}

/**
 * After 3 global errors (docs/product/shell.md §4 Crash recovery): clears storage and goes to /login (→
 * /auth).
 */
export function ResetApplicationBanner() {
  const { showResetBanner } = useCrashRecovery();
  if (!showResetBanner) return null;
  return (
    <div role="alert" className="border-b border-destructive/30 bg-destructive-soft text-destructive">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-3 px-4 py-2.5 text-sm sm:px-6">
        <AlertTriangle aria-hidden className="size-4 shrink-0" />
        <p className="flex-1">
          Ledgerlink has run into several errors. Resetting the application usually fixes this.
        </p>
        <Button size="sm" variant="destructive" onClick={() => resetApplication(paths.login.getHref())}>
          <RotateCcw aria-hidden /> Reset Application
        </Button>
      </div>
    </div>
  );
}
