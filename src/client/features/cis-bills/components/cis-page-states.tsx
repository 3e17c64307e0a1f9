import { useQueryClient } from '@tanstack/react-query';
import { Link2, Lock, LogIn } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { paths } from '@/client/config/paths';
import { queryKeys } from '@/client/lib/query-client';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';

function StateCard({
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
    <Card className="mx-auto mt-6 max-w-xl">
      <CardContent className="flex flex-col items-center gap-4 p-8 text-center">
        <div className="flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
          {icon}
        </div>
        <div>
          <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
          <p className="mt-2 text-sm text-muted-foreground">{children}</p>
        </div>
        <div className="flex w-full flex-col gap-2 sm:w-auto sm:flex-row sm:justify-center">{actions}</div>
      </CardContent>
    </Card>
  );
}

function BackToHomeButton({ variant = 'outline' }: { variant?: 'outline' | 'default' }) {
  return (
    <Button asChild variant={variant}>
      <Link href={paths.home.getHref()}>Back to Home</Link>
    </Button>
  );
}

/**
 * docs/product/features.md §2 state 1: the session expired; "Log In Again" refreshes cached data and goes to
 * /auth.
 */
export function SessionExpiredState() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  async function logInAgain() {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.currentUser }),
      queryClient.invalidateQueries({ queryKey: queryKeys.connection }),
    ]);
    navigate(paths.auth.getHref());
  }
  return (
    <StateCard
      icon={<LogIn aria-hidden className="size-6" />}
      title="Authentication Required"
      actions={
        <Button onClick={() => void logInAgain()}>
          <LogIn aria-hidden />
          Log In Again
        </Button>
      }
    >
      Your session has expired. Please log in again to continue using the application.
    </StateCard>
  );
}

/** docs/product/features.md §2 state 2: not connected to Xero. */
export function NotConnectedState() {
  return (
    <StateCard
      icon={<Link2 aria-hidden className="size-6" />}
      title="Not connected to Xero"
      actions={
        <>
          <BackToHomeButton />
          <Button asChild>
            <Link href={paths.connect.getHref()}>Connect to Xero</Link>
          </Button>
        </>
      }
    >
      Please connect to Xero first to manage CIS bills.
    </StateCard>
  );
}

/** docs/product/features.md §2 state 3: the CIS Bills feature is off for the organisation. */
export function FeatureDisabledState() {
  return (
    <StateCard
      icon={<Lock aria-hidden className="size-6" />}
      title="CIS Bills is not enabled"
      actions={<BackToHomeButton variant="default" />}
    >
      This feature is not enabled for your organization.
    </StateCard>
  );
}
