import { useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Building2, ListChecks, Plus, RefreshCw } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { isNeverConnected } from '@/shared/connection-rules';
import { sortOrganizationsByName } from '@/shared/organizations';
import { featureHref, paths } from '@/client/config/paths';
import { needsReconnection, useConnection } from '@/client/lib/connection';
import { invalidateOrganizationData, useUserOrganizations } from '@/client/lib/organizations';
import { queryKeys } from '@/client/lib/query-client';
import { toast } from '@/client/lib/toast';
import {
  clearAuthorizationInProgress,
  connectToXero,
  reconnectToXero,
} from '@/client/lib/xero-authorization';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { refreshConnections } from '../api/refresh-connections';
import { useOrganizationActions } from '../hooks/use-organization-actions';
import { CONNECTED_TOAST, getConnectionErrorToast } from '../utils/connection-query-messages';
import { OrganizationCard } from './organization-card';

const RETURN_PARAMS = ['error', 'reason', 'message', 'connected'];

/** The return from Xero: error, reason, message, connected — handled once per visit, then removed. */
function useReturnParamsOnce() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const queryClient = useQueryClient();
  const handled = useRef(false);
  useEffect(() => {
    if (handled.current) return;
    const params = new URLSearchParams(search);
    if (!RETURN_PARAMS.some((key) => params.has(key))) return;
    handled.current = true;
    clearAuthorizationInProgress();
    const error = params.get('error');
    if (error) {
      toast(getConnectionErrorToast(error, { reason: params.get('reason'), message: params.get('message') }));
    } else if (params.get('connected') === 'true') {
      toast(CONNECTED_TOAST);
      void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
    }
    for (const key of RETURN_PARAMS) params.delete(key);
    const rest = params.toString();
    navigate(rest ? `${location}?${rest}` : location, { replace: true });
  }, [search, location, navigate, queryClient]);
}

type Starting = 'connect' | 'reconnect' | null;

/**
 * An organisation disconnected in Xero's own web app (Settings → Connected apps) is found when this page opens:
 * the server reads Xero's connections once per visit, and a card that went away turns to "Not connected" with
 * Connect (issue 33 item 4). A whole grant revoked in Xero shows as the reconnect state instead.
 */
function useDisconnectsMadeInXero(connected: boolean) {
  const queryClient = useQueryClient();
  const checked = useRef(false);
  useEffect(() => {
    if (!connected || checked.current) return;
    checked.current = true;
    refreshConnections()
      .then(async (gone) => {
        if (gone.length === 0) return;
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations }),
          invalidateOrganizationData(queryClient),
        ]);
        toast({
          title: 'Disconnected in Xero',
          description: `${gone.join(' and ')} ${gone.length === 1 ? 'was' : 'were'} disconnected from Ledgerlink in Xero. History is kept; Connect on the card brings it back.`,
          variant: 'warning',
        });
      })
      // Xero unreachable: the cards stay as they were; a connection Xero refuses is handled by the fetch wrapper.
      .catch(() => undefined);
  }, [connected, queryClient]);
}

export function OrganizationsPage() {
  useReturnParamsOnce();
  const { data: connection } = useConnection();
  const organizationsQuery = useUserOrganizations();
  const organizations = useMemo(
    () => sortOrganizationsByName(organizationsQuery.data ?? []),
    [organizationsQuery.data],
  );
  const actions = useOrganizationActions(organizations);
  const [starting, setStarting] = useState<Starting>(null);
  const reconnectRequired = needsReconnection(connection);
  const queryClient = useQueryClient();

  // The list is cached without expiry (docs/product/shell.md §9): when the connection turns out to need a
  // reconnect, the cards' token lines are re-read once so they stop promising a token that no longer works.
  useEffect(() => {
    if (reconnectRequired) void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
  }, [reconnectRequired, queryClient]);

  // The same when the token was renewed: the connection carries a later expiry than the cards, which would
  // otherwise keep "Expired N minutes ago" in red (issue 17 item 5). Only a later expiry re-reads, so the
  // two answers cannot chase each other.
  const renewedExpiry = connection?.connected ? (connection.tokenExpiry ?? null) : null;
  const listedExpiry =
    organizationsQuery.data?.find((org) => org.connected && org.tokenExpiry)?.tokenExpiry ?? null;
  useEffect(() => {
    if (!renewedExpiry || !listedExpiry) return;
    if (Date.parse(renewedExpiry) > Date.parse(listedExpiry)) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
    }
  }, [renewedExpiry, listedExpiry, queryClient]);

  useDisconnectsMadeInXero(Boolean(connection?.connected));

  async function start(mode: 'connect' | 'reconnect') {
    setStarting(mode);
    const redirected = mode === 'connect' ? await connectToXero() : await reconnectToXero();
    if (!redirected) setStarting(null);
  }

  // A user who never connected has nothing to reconnect (issue 33 item 5): only the way to connect.
  const neverConnected = isNeverConnected(connection) && organizations.length === 0;
  const topButtons = (
    <>
      {/* Every organisation at a glance (issue 47), for someone who keeps more than one. */}
      {organizations.length > 1 ? (
        <Button asChild variant="ghost">
          <Link href={paths.today.getHref()}>
            <ListChecks aria-hidden /> Today
          </Link>
        </Button>
      ) : null}
      {neverConnected ? null : (
        <Button variant="outline" disabled={starting !== null} onClick={() => void start('reconnect')}>
          {starting === 'reconnect' ? (
            <Spinner className="size-4" label="Reconnecting" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Reconnect
        </Button>
      )}
      <Button disabled={starting !== null} onClick={() => void start('connect')}>
        {starting === 'connect' ? (
          <Spinner className="size-4 text-current" label="Connecting" />
        ) : (
          <Plus aria-hidden />
        )}
        Connect New Organization
      </Button>
    </>
  );

  return (
    <div>
      <PageHeader
        title={`Your Xero Organizations`}
        description="Choose the organisation you want to work with. Features are switched on per organisation by an administrator."
        actions={topButtons}
      />
      {organizationsQuery.isLoading ? (
        <PageSpinner label="Loading organizations" />
      ) : organizations.length === 0 ? (
        <EmptyState
          reconnect={needsReconnection(connection)}
          starting={starting}
          onStart={(mode) => void start(mode)}
        />
      ) : (
        <>
          {reconnectRequired ? (
            <Alert variant="warning" className="mb-4 items-start">
              <AlertTriangle aria-hidden />
              <div className="flex flex-1 flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
                <div>
                  <AlertTitle>Xero Connection Needs Refreshing</AlertTitle>
                  <AlertDescription>
                    Xero no longer accepts this connection. Reconnect to keep working with your organisations.
                  </AlertDescription>
                </div>
                <Button
                  size="sm"
                  className="shrink-0 self-start sm:self-center"
                  disabled={starting !== null}
                  onClick={() => void start('reconnect')}
                >
                  {starting === 'reconnect' ? (
                    <Spinner className="size-4 text-current" label="Reconnecting" />
                  ) : (
                    <RefreshCw aria-hidden />
                  )}
                  Reconnect now
                </Button>
              </div>
            </Alert>
          ) : null}
          <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
            {organizations.map((org) => (
              <OrganizationCard
                key={org.organizationId}
                organization={org}
                reconnectRequired={reconnectRequired}
                pending={actions.pendingId === org.organizationId}
                busy={actions.pendingId !== null}
                onActivate={() => void actions.activate(org)}
                onOpenFeature={(feature) => void actions.openFeature(org, featureHref[feature])}
                onOpenSettings={() => void actions.openSettings(org)}
                onDisconnect={() => actions.disconnect(org)}
                onConnect={() => void start('connect')}
                connecting={starting !== null}
              />
            ))}
          </div>
        </>
      )}
    </div>
  );
}

function EmptyState({
  reconnect,
  starting,
  onStart,
}: {
  reconnect: boolean;
  starting: Starting;
  onStart: (mode: 'connect' | 'reconnect') => void;
}) {
  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-4 px-6 py-14 text-center">
        <div className="flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
          <Building2 aria-hidden className="size-6" />
        </div>
        {reconnect ? (
          <>
            <h2 className="text-lg font-semibold">Xero Connection Needs Refreshing</h2>
            <p className="max-w-md text-sm text-muted-foreground">
              Your Xero authorisation has expired. Reconnect to see and use your organisations again.
            </p>
            <Button disabled={starting !== null} onClick={() => onStart('reconnect')}>
              {starting === 'reconnect' ? (
                <Spinner className="size-4 text-current" label="Reconnecting" />
              ) : (
                <RefreshCw aria-hidden />
              )}
              Reconnect
            </Button>
          </>
        ) : (
          <>
            <h2 className="text-lg font-semibold">No Organizations Connected</h2>
            <p className="max-w-md text-sm text-muted-foreground">
              Connect a Xero organisation to start paying invoices, adding sales and posting journals.
            </p>
            <Button disabled={starting !== null} onClick={() => onStart('connect')}>
              {starting === 'connect' ? (
                <Spinner className="size-4 text-current" label="Connecting" />
              ) : (
                <Plus aria-hidden />
              )}
              Connect
            </Button>
          </>
        )}
      </CardContent>
    </Card>
  );
}
