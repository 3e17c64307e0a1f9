import { useQueryClient } from '@tanstack/react-query';
import { LogIn } from 'lucide-react';
import { useLocation } from 'wouter';
import { paths } from '@/client/config/paths';
import { queryKeys } from '@/client/lib/query-client';
import {
  BackToHomeButton,
  FeatureDisabledState,
  NotConnectedState,
  StateCard,
} from '@/client/components/state-card';
import { Button } from '@/client/components/ui/button';

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
      placement="page"
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
export function CisNotConnectedState() {
  return (
    <NotConnectedState
      description="Please connect to Xero first to manage CIS bills."
      connectHref={paths.connect.getHref()}
      withBackToHome
    />
  );
}

/** docs/product/features.md §2 state 3: the CIS Bills feature is off for the organisation. */
export function CisFeatureDisabledState() {
  return (
    <FeatureDisabledState title="CIS Bills is not enabled" actions={<BackToHomeButton variant="default" />} />
  );
}
