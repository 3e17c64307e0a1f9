import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { paths } from '@/client/config/paths';
import { useUser } from '@/client/lib/auth';
import { removeStorage, SESSION_KEYS, writeStorage } from '@/client/lib/storage';
import { clearAuthorizationMarkers } from '@/client/lib/xero-authorization';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';

export const CANCEL_REDIRECT_MS = 1500;
export const CANCEL_NOTIFICATION_CLEAR_MS = 10_000;

/**
 * /xero-cancel (docs/product/shell.md §2): clears the auth-in-progress markers, checks whether the user is
 * signed in and after 1.5 s goes to /organizations (signed in) or the login page. The cancel notification
 * flag is cleared after 10 s.
 */
export function XeroCancelPage() {
  const [, navigate] = useLocation();

  useEffect(() => {
    clearAuthorizationMarkers();
    writeStorage('session', SESSION_KEYS.cancelNotification, 'true');
    writeStorage('session', SESSION_KEYS.lastAuthState, 'cancelled');
    // Not cancelled on unmount: the page navigates away after 1.5 s, the flag must still go after 10 s.
    setTimeout(() => removeStorage('session', SESSION_KEYS.cancelNotification), CANCEL_NOTIFICATION_CLEAR_MS);
  }, []);

  // Whether the user is signed in comes from the current-user query (a failed check counts as signed out).
  const { data: user, isLoading } = useUser();
  const signedIn = isLoading ? null : Boolean(user);

  const target = signedIn ? paths.organizations.getHref() : paths.auth.getHref();
  useEffect(() => {
    if (signedIn === null) return;
    const timer = setTimeout(() => navigate(target), CANCEL_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [signedIn, target, navigate]);

  return (
    <div className="mx-auto max-w-md py-10">
      <Card>
        <CardContent className="flex flex-col items-center gap-4 p-8 text-center">
          <Spinner className="size-8" label="Returning to application" />
          <h1 className="text-xl font-semibold tracking-tight">Xero Authentication Process</h1>
          <p className="text-sm text-muted-foreground">Returning to application...</p>
          {signedIn === null ? null : signedIn ? (
            <Button onClick={() => navigate(paths.organizations.getHref())}>Go to Organizations</Button>
          ) : (
            <Button onClick={() => navigate(paths.auth.getHref())}>Go to Login</Button>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
