import { AlertCircle, Link2, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'wouter';
import {
  CONNECTION_ERRORS,
  describeConnectionLoss,
  getConnectionState,
  isNeverConnected,
} from '@/shared/connection-rules';
import { apiPaths, paths } from '@/client/config/paths';
import { api, getMessage, isApiError } from '@/client/lib/api-client';
import { useConnection } from '@/client/lib/connection';
import { useDocumentTitle } from '@/client/lib/document-title';
import { toast } from '@/client/lib/toast';
import { sleep } from '@/client/lib/utils';
import {
  clearAuthorizationInProgress,
  markAuthorizationInProgress,
  redirectToProvider,
} from '@/client/lib/xero-authorization';
import { SESSION_KEYS, writeStorage } from '@/client/lib/storage';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';

/** On the connect page the redirect to Xero is delayed 0.5 s (docs/product/shell.md §4). */
export const CONNECT_PAGE_REDIRECT_DELAY_MS = 500;

type Action = 'connect' | 'reconnect' | 'force';

/**
 * The connect page of docs/product/shell.md §2: shown at /connect and instead of a protected page's content
 * when the user is not connected. Connect mode, or reconnect mode when the connection error asks for it.
 */
export function ConnectPanel() {
  const { data: connection } = useConnection();
  const [pending, setPending] = useState<Action | null>(null);
  const [authError, setAuthError] = useState(false);
  // Reconnect mode when the connection was lost (docs/product/shell.md §2: the error asks for a reconnection),
  // saying why in the one wording (issue 45 item 2).
  const state = getConnectionState(connection);
  const reconnectMode = state.kind === 'lost';
  const loss = state.kind === 'lost' ? describeConnectionLoss(state.reason) : null;
  // Nothing was ever connected: there is nothing to reconnect, so only Connect (issue 33 item 5).
  const neverConnected = isNeverConnected(connection);
  const notAuthenticated = Boolean(connection?.error?.includes(CONNECTION_ERRORS.notAuthenticated));
  const showAuthError = authError || notAuthenticated;

  async function start(action: Action) {
    // Reconnect is used for forced reconnects or when reconnection is required; otherwise connect.
    const useReconnect = action === 'force' || action === 'reconnect' || reconnectMode;
    setPending(action);
    setAuthError(false);
    markAuthorizationInProgress(useReconnect ? 'reconnect' : 'connect');
    try {
      const answer = await api.get<{ url?: unknown; cancelUrl?: unknown }>(
        useReconnect ? apiPaths.xeroReconnect : apiPaths.xeroConnect,
      );
      const url = typeof answer.url === 'string' && answer.url !== '' ? answer.url : null;
      if (!url) throw new Error('No authorization URL received from server');
      if (typeof answer.cancelUrl === 'string')
        writeStorage('session', SESSION_KEYS.cancelUrl, answer.cancelUrl);
      toast({
        title: `Redirecting to Xero`,
        description: `You'll be redirected to Xero for authorization...`,
        variant: 'info',
      });
      await sleep(CONNECT_PAGE_REDIRECT_DELAY_MS);
      if (!redirectToProvider(url)) setPending(null);
    } catch (error) {
      clearAuthorizationInProgress();
      if (isApiError(error) && error.status === 401) setAuthError(true);
      toast({
        title: 'Connection Error',
        description: getMessage(error, `Failed to connect to Xero`),
        variant: 'destructive',
      });
      setPending(null);
    }
  }

  const title = reconnectMode ? `Reconnect to Xero` : `Connect to Xero`;
  useDocumentTitle(title);
  const busy = pending !== null;

  return (
    <div className="mx-auto flex max-w-xl flex-col gap-4 py-6 sm:py-10">
      <Card>
        <CardContent className="flex flex-col items-center gap-5 p-6 text-center sm:p-8">
          <div className="flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
            <Link2 aria-hidden className="size-6" />
          </div>
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
            {loss ? (
              <>
                <p className="mt-3 inline-flex items-center gap-2 rounded-full bg-destructive-soft px-3 py-1 text-sm font-medium text-destructive">
                  <AlertCircle aria-hidden className="size-4" />
                  {loss.title}
                </p>
                <p className="mt-2 text-sm text-muted-foreground">{loss.explanation}</p>
              </>
            ) : (
              <p className="mt-2 text-sm text-muted-foreground">
                Connect Ledgerlink to your Xero organisations to pay invoices, add sales, create CIS bills and
                post stock journals.
              </p>
            )}
          </div>

          {showAuthError ? (
            <Alert variant="destructive" className="text-left">
              <AlertCircle aria-hidden />
              <div>
                <AlertTitle>Authentication Error</AlertTitle>
                <AlertDescription>
                  Your session has expired or you are not signed in.{' '}
                  <Link href={paths.auth.getHref()} className="font-medium underline underline-offset-2">
                    Sign in again
                  </Link>{' '}
                  and then connect.
                </AlertDescription>
              </div>
            </Alert>
          ) : null}

          <div className="flex w-full flex-col gap-2 sm:flex-row sm:justify-center">
            {reconnectMode ? (
              <Button size="lg" variant="xero" disabled={busy} onClick={() => void start('reconnect')}>
                {pending === 'reconnect' ? (
                  <Spinner className="size-4 text-current" label="Reconnecting" />
                ) : (
                  <RefreshCw aria-hidden />
                )}
                Reconnect
              </Button>
            ) : (
              <Button size="lg" variant="xero" disabled={busy} onClick={() => void start('connect')}>
                {pending === 'connect' ? (
                  <Spinner className="size-4 text-current" label="Connecting" />
                ) : (
                  <Link2 aria-hidden />
                )}
                Connect
              </Button>
            )}
            {/* Force Reconnect runs Xero's consent again while connected; in reconnect mode it would be a
                second Reconnect doing the same (issue 45 item 2), and a user who never connected has nothing to
                renew (issue 33 item 5). */}
            {neverConnected || reconnectMode ? null : (
              <Button size="lg" variant="xeroOutline" disabled={busy} onClick={() => void start('force')}>
                {pending === 'force' ? (
                  <Spinner className="size-4" label="Reconnecting" />
                ) : (
                  <RefreshCw aria-hidden />
                )}
                Force Reconnect
              </Button>
            )}
          </div>
          {neverConnected || reconnectMode ? null : (
            <div className="grid gap-1 text-xs text-muted-foreground">
              <p>If you encounter connection issues, try using the Force Reconnect option.</p>
              <p>It asks Xero again for every organisation, including those still connected.</p>
            </div>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
