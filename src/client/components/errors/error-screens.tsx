import { AlertOctagon, AlertTriangle, LifeBuoy, RefreshCw } from 'lucide-react';
import type { ReactNode } from 'react';
import { paths } from '@/client/config/paths';
import { resetApplication } from '@/client/lib/crash-recovery';
import { Button } from '@/client/components/ui/button';

function reloadPage(): void {
  window.location.reload();
}

function Screen({
  icon,
  title,
  children,
  actions,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  actions: ReactNode;
}) {
  return (
    <div role="alert" className="flex min-h-[60vh] items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-xl border border-border bg-card p-8 text-center shadow-sm">
        <div className="mx-auto mb-4 flex size-12 items-center justify-center rounded-full bg-destructive-soft text-destructive">
          {icon}
        </div>
        <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
        <div className="mt-2 text-sm text-muted-foreground">{children}</div>
        <div className="mt-6 flex flex-col justify-center gap-2 sm:flex-row">{actions}</div>
      </div>
    </div>
  );
}

/** A screen that crashed (docs/product/shell.md §2 General screens). */
export function ErrorScreen({ error }: { error?: Error }) {
  return (
    <Screen
      icon={<AlertTriangle aria-hidden className="size-6" />}
      title="Something went wrong"
      actions={
        <>
          <Button variant="outline" onClick={() => window.location.assign(paths.home.getHref())}>
            Go to Home
          </Button>
          <Button onClick={reloadPage}>
            <RefreshCw aria-hidden /> Refresh Page
          </Button>
        </>
      }
    >
      <p>An unexpected error occurred while showing this page.</p>
      {error?.message ? <p className="mt-2 break-words font-mono text-xs">{error.message}</p> : null}
    </Screen>
  );
}

/** The application failed to load (docs/product/shell.md §2). */
export function AppErrorScreen() {
  return (
    <Screen
      icon={<AlertOctagon aria-hidden className="size-6" />}
      title="Application Error"
      actions={
        <Button onClick={reloadPage}>
          <RefreshCw aria-hidden /> Refresh Page
        </Button>
      }
    >
      <p>Ledgerlink could not be loaded. Please refresh the page to try again.</p>
    </Screen>
  );
}

/** Recovery mode after repeated crashes (docs/product/shell.md §4 Crash recovery). */
export function RecoveryScreen() {
  return (
    <div className="flex min-h-screen items-center justify-center bg-background px-4">
      <div
        role="alert"
        className="w-full max-w-md rounded-xl border border-border bg-card p-8 text-center shadow-sm"
      >
        <div className="mx-auto mb-4 flex size-12 items-center justify-center rounded-full bg-warning-soft text-warning-foreground">
          <LifeBuoy aria-hidden className="size-6" />
        </div>
        <h1 className="text-xl font-semibold tracking-tight">Recovery Mode Activated</h1>
        <p className="mt-2 text-sm text-muted-foreground">
          Ledgerlink ran into repeated errors. Resetting clears the data this browser keeps for Ledgerlink and
          takes you back to the sign-in page. Nothing in Xero is changed.
        </p>
        <div className="mt-6 flex flex-col justify-center gap-2 sm:flex-row">
          <Button onClick={() => resetApplication(paths.auth.getHref())}>Reset Application State</Button>
          <Button variant="outline" onClick={reloadPage}>
            Refresh Page
          </Button>
        </div>
      </div>
    </div>
  );
}
