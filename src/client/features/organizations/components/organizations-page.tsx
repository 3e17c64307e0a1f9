import { useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Building2, ListChecks, Plus, RefreshCw } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import {
  describeConnectionLoss,
  describeNotIncluded,
  getConnectionState,
  isNeverConnected,
} from '@/shared/connection-rules';
import { getOrganizationName, sortOrganizationsByName, type UserOrganization } from '@/shared/organizations';
import { featureHref, paths } from '@/client/config/paths';
import { needsReconnection, useConnection } from '@/client/lib/connection';
import { invalidateOrganizationData, useUserOrganizations } from '@/client/lib/organizations';
import { queryKeys } from '@/client/lib/query-client';
import { LOCAL_KEYS, readStorage, writeStorage } from '@/client/lib/storage';
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

/** `not_included` (beyond the spec, issue 45 item 1): the organisations Xero's consent left out, by id. */
const RETURN_PARAMS = ['error', 'reason', 'message', 'connected', 'not_included'];

/** The ids of a `not_included` parameter ("5,7"); anything else in it is ignored. */
function readIds(value: string | null): number[] {
  return (value ?? '')
    .split(',')
    .filter((part) => /^\d{1,10}$/.test(part))
    .map(Number);
}

/**
 * The return from Xero: error, reason, message, connected — handled once per visit, then removed. A consent
 * that left organisations out (`not_included`) says which (issue 45 item 1); when the one asked for was left
 * out there is no `connected=true`, so nothing says "Connected to Xero". Answers the ids left out, for the
 * visit.
 */
function useReturnParamsOnce(known: readonly UserOrganization[], listed: boolean): number[] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const queryClient = useQueryClient();
  const handled = useRef(false);
  const [notIncluded, setNotIncluded] = useState<number[]>([]);
  useEffect(() => {
    if (handled.current) return;
    const params = new URLSearchParams(search);
    if (!RETURN_PARAMS.some((key) => params.has(key))) return;
    // The organisations left out are named from the list: wait for it.
    if (params.has('not_included') && !listed) return;
    handled.current = true;
    clearAuthorizationInProgress();
    const error = params.get('error');
    const leftOut = readIds(params.get('not_included'));
    const names = leftOut.map((id) => {
      const org = known.find((o) => o.organizationId === id);
      return org ? getOrganizationName(org) : 'An organisation';
    });
    if (error) {
      toast(getConnectionErrorToast(error, { reason: params.get('reason'), message: params.get('message') }));
    } else if (params.get('connected') === 'true') {
      toast(
        leftOut.length > 0
          ? { ...CONNECTED_TOAST, description: `${describeNotIncluded(names)}.`, variant: 'warning' }
          : CONNECTED_TOAST,
      );
    } else if (leftOut.length > 0) {
      toast({
        title: `Not connected`,
        description: `${describeNotIncluded(names)}. Connect again and tick it on Xero’s page.`,
        variant: 'warning',
      });
    }
    if (!error) {
      setNotIncluded(leftOut);
      void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
    }
    for (const key of RETURN_PARAMS) params.delete(key);
    const rest = params.toString();
    navigate(rest ? `${location}?${rest}` : location, { replace: true });
  }, [search, location, navigate, queryClient, known, listed]);
  return notIncluded;
}

type Starting = 'connect' | 'reconnect' | null;

/** "5:2026-03-03T09:00:00.000Z": one removal of one organisation, as this browser remembers having said it. */
const removalKey = (org: UserOrganization) => `${org.organizationId}:${org.notConnectedSince ?? ''}`;

/**
 * An organisation disconnected in Xero's own web app (Settings → Connected apps) is found when this page opens
 * (the server reads Xero's connections once per visit), or before, by the server's watch (issue 45 item 2); its
 * card turns to "Not connected" with Connect (issue 33 item 4), and a toast says so once per removal in this
 * browser. A whole grant revoked in Xero shows as the reconnect state instead.
 */
function useDisconnectsMadeInXero(connected: boolean, organizations: readonly UserOrganization[]) {
  const queryClient = useQueryClient();
  const checked = useRef(false);
  useEffect(() => {
    if (!connected || checked.current) return;
    checked.current = true;
    refreshConnections()
      .then(async (gone) => {
        // The list is read again whatever this check found: the server's watch (or another tab) may have recorded
        // a removal after this page read its list and before this check, which then finds nothing new; the card
        // stayed "connected" with no toast (e2e under load, the watch every 4 s).
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations }),
          ...(gone.length > 0 ? [invalidateOrganizationData(queryClient)] : []),
        ]);
      })
      // Xero unreachable: the cards stay as they were; a connection Xero refuses is handled by the fetch wrapper.
      .catch(() => undefined);
  }, [connected, queryClient]);

  const removed = organizations.filter((o) => !o.connected && o.notConnectedReason === 'removed');
  const unsaid = removed.filter(
    (o) => !(readStorage('local', LOCAL_KEYS.removalsSaid) ?? '').split(' ').includes(removalKey(o)),
  );
  const names = unsaid.map(getOrganizationName).join('\u0000');
  useEffect(() => {
    if (!names) return;
    const list = names.split('\u0000');
    const said = (readStorage('local', LOCAL_KEYS.removalsSaid) ?? '').split(' ').filter(Boolean);
    writeStorage('local', LOCAL_KEYS.removalsSaid, [...said, ...unsaid.map(removalKey)].slice(-50).join(' '));
    toast({
      title: 'Disconnected in Xero',
      description: `${list.join(' and ')} ${list.length === 1 ? 'was' : 'were'} disconnected from Ledgerlink in Xero. History is kept; Connect on the card brings it back.`,
      variant: 'warning',
    });
    // `unsaid` is read with `names`, which says when it changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [names]);
}

export function OrganizationsPage() {
  const { data: connection } = useConnection();
  const organizationsQuery = useUserOrganizations();
  const organizations = useMemo(
    () => sortOrganizationsByName(organizationsQuery.data ?? []),
    [organizationsQuery.data],
  );
  const notIncludedIds = useReturnParamsOnce(organizations, organizationsQuery.isSuccess);
  const state = getConnectionState(connection);
  const loss =
    state.kind === 'lost' && state.reason !== 'removed' ? describeConnectionLoss(state.reason) : null;
  // Left out of the consent just made, and still not connected: said at the top, with the way to connect them.
  const notIncluded = organizations.filter((o) => notIncludedIds.includes(o.organizationId) && !o.connected);
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

  useDisconnectsMadeInXero(Boolean(connection?.connected), organizations);

  async function start(mode: 'connect' | 'reconnect', organizationId?: number) {
    setStarting(mode);
    const redirected =
      mode === 'connect'
        ? await connectToXero(organizationId === undefined ? {} : { organizationId })
        : await reconnectToXero();
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
        <Button
          // The one Reconnect of the page while Xero refuses the connection (issue 45 item 2): the primary button.
          variant={reconnectRequired ? 'xero' : 'xeroOutline'}
          disabled={starting !== null}
          onClick={() => void start('reconnect')}
        >
          {starting === 'reconnect' ? (
            <Spinner className="size-4" label="Reconnecting" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Reconnect
        </Button>
      )}
      <Button variant="xero" disabled={starting !== null} onClick={() => void start('connect')}>
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
          explanation={loss?.explanation ?? describeConnectionLoss(null).explanation}
          starting={starting}
          onStart={(mode) => void start(mode)}
        />
      ) : (
        <>
          {loss ? (
            // What happened, in the words every screen uses (issue 45 item 2); Reconnect is the page's own button.
            <Alert variant="warning" className="mb-4">
              <AlertTriangle aria-hidden />
              <div>
                <AlertTitle>{loss.title}</AlertTitle>
                <AlertDescription>{loss.explanation}</AlertDescription>
              </div>
            </Alert>
          ) : null}
          {notIncluded.length > 0 ? (
            <Alert variant="warning" className="mb-4 items-start">
              <AlertTriangle aria-hidden />
              <div className="flex flex-1 flex-col gap-3">
                <div>
                  <AlertTitle>{describeNotIncluded(notIncluded.map(getOrganizationName))}</AlertTitle>
                  <AlertDescription>
                    Xero’s page lets you tick the organisations Ledgerlink may use. To connect{' '}
                    {notIncluded.length === 1 ? 'it' : 'them'}, choose Connect and tick{' '}
                    {notIncluded.length === 1 ? 'it' : 'each one'} there.
                  </AlertDescription>
                </div>
                <div className="flex flex-wrap gap-2">
                  {notIncluded.map((org) => (
                    <Button
                      key={org.organizationId}
                      size="sm"
                      variant="xero"
                      disabled={starting !== null}
                      onClick={() => void start('connect', org.organizationId)}
                    >
                      <Plus aria-hidden /> Connect {getOrganizationName(org)}
                    </Button>
                  ))}
                </div>
              </div>
            </Alert>
          ) : null}
          <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
            {organizations.map((org) => (
              <OrganizationCard
                key={org.organizationId}
                organization={org}
                reconnectRequired={reconnectRequired}
                lostReason={state.kind === 'lost' ? state.reason : null}
                pending={actions.pendingId === org.organizationId}
                busy={actions.pendingId !== null}
                onActivate={() => void actions.activate(org)}
                onOpenFeature={(feature) => void actions.openFeature(org, featureHref[feature])}
                onOpenSettings={() => void actions.openSettings(org)}
                onDisconnect={() => actions.disconnect(org)}
                onConnect={() => void start('connect', org.organizationId)}
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
  explanation,
  starting,
  onStart,
}: {
  reconnect: boolean;
  explanation: string;
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
            <p className="max-w-md text-sm text-muted-foreground">{explanation}</p>
            <Button variant="xero" disabled={starting !== null} onClick={() => onStart('reconnect')}>
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
            <Button variant="xero" disabled={starting !== null} onClick={() => onStart('connect')}>
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
