import { formatDistanceToNowStrict } from 'date-fns';
import { CheckCircle2, Clock, Download, Gauge, Lock, Plug, Radio, Settings } from 'lucide-react';
import {
  CONNECTION_LOSS_TEXTS,
  describeConnectionLoss,
  describeNotIncluded,
  getTokenStatus,
  type ConnectionLossReason,
} from '@/shared/connection';
import { FEATURE_KEYS, FEATURE_LABELS, isFeatureEnabled, type FeatureKey } from '@/shared/feature-flags';
import { getOrganizationName, type Egress, type UserOrganization } from '@/shared/organizations';
import { describeWebhookHealth } from '../utils/live-updates';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { CisDeadlineItem } from '@/client/components/hmrc/cis-deadline';
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { Tooltip } from '@/client/components/ui/tooltip';
import { SwitchOnInAdmin, useIsAdministrator } from '@/client/components/switch-on-in-admin';
import { DisconnectDialog } from './disconnect-dialog';

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
const fullDateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'long' });
const count = new Intl.NumberFormat('en-GB');
const oneDecimal = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });
const monthName = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' });

/** Decimal units, as Xero's egress allowance is stated (10 GB a month on Core). */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${oneDecimal.format(bytes / 1_000)} KB`;
  if (bytes < 1_000_000_000) return `${oneDecimal.format(bytes / 1_000_000)} MB`;
  return `${oneDecimal.format(bytes / 1_000_000_000)} GB`;
}

/** "1.2 MB in November": what Ledgerlink downloaded from Xero for this organisation this month. */
export function describeDownload(egress: Egress): string {
  return `${formatBytes(egress.bytes)} in ${monthName.format(new Date(`${egress.month}-01T00:00:00Z`))}`;
}

function parseDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function TokenExpiry({
  tokenExpiry,
  lost,
}: {
  tokenExpiry: string | null | undefined;
  /** What happened to the connection, in the words every screen uses (issue 45 item 2); null while it works. */
  lost: string | null;
}) {
  if (lost) return <span className="font-medium text-destructive">{lost}</span>;
  const expiry = parseDate(tokenExpiry);
  if (!expiry) return <span className="text-muted-foreground">Unknown</span>;
  const status = getTokenStatus(tokenExpiry);
  const relative = formatDistanceToNowStrict(expiry, { addSuffix: true });
  return (
    <Tooltip content={`Full expiry: ${fullDateTime.format(expiry)}`}>
      <span
        tabIndex={0}
        className={
          status === 'expired'
            ? 'cursor-help text-destructive underline decoration-dotted underline-offset-4'
            : status === 'expiring'
              ? 'cursor-help text-warning-foreground underline decoration-dotted underline-offset-4'
              : 'cursor-help underline decoration-dotted underline-offset-4'
        }
      >
        {status === 'expired' ? `Expired ${relative}` : `Expires ${relative}`}
      </span>
    </Tooltip>
  );
}

/** Why a not-connected organisation is not connected, on its card (issue 45 item 1). */
function notConnectedText(org: UserOrganization, name: string): string {
  switch (org.notConnectedReason) {
    case 'removed':
      return `${CONNECTION_LOSS_TEXTS.removed.explanation}`;
    case 'not-included':
      return `${describeNotIncluded([name])}. Connect it and tick it on Xero’s page to use it.`;
    default:
      return 'Disconnected from Xero. Its history is kept; connect it again to use it.';
  }
}

/** Why a card's buttons are off while Xero's tokens for it are refused (issue 17 item 7, issue 33 item 3). */
const RECONNECT_FIRST = 'Reconnect to Xero first';
/** Why a disconnected organisation's buttons are off (issue 33 item 4). */
const CONNECT_FIRST = 'Connect this organization to Xero first';

export interface OrganizationCardProps {
  organization: UserOrganization;
  /** Xero refused the user's tokens (revoked or refresh failed): the expiry no longer means anything. */
  reconnectRequired?: boolean;
  /** Why, as the connection says (issue 45 item 2); the card's own `lostReason` when the page knows none. */
  lostReason?: ConnectionLossReason | null;
  pending: boolean;
  busy: boolean;
  onActivate: () => void;
  onOpenFeature: (feature: FeatureKey) => void;
  onOpenSettings: () => void;
  /** Disconnect after the confirmation; resolves true when done. */
  onDisconnect: () => Promise<boolean>;
  /** Connect a disconnected organisation again (Xero's consent). */
  onConnect: () => void;
  /** A connect or reconnect is on its way to Xero. */
  connecting?: boolean;
}

export function OrganizationCard({
  organization: org,
  reconnectRequired = false,
  lostReason = null,
  pending,
  busy,
  onActivate,
  onOpenFeature,
  onOpenSettings,
  onDisconnect,
  onConnect,
  connecting = false,
}: OrganizationCardProps) {
  const name = getOrganizationName(org);
  const lastAccessed = parseDate(org.lastAccessed);
  const administrator = useIsAdministrator();
  const needsReconnect = reconnectRequired && org.connected;
  return (
    <Card className={org.isActive ? 'ring-2 ring-primary/60' : undefined} aria-label={name} role="group">
      <CardHeader className="flex-row items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle className="truncate text-lg" title={name}>
            {name}
          </CardTitle>
          {!org.connected ? (
            <Badge variant="destructive" className="mt-2">
              Not connected
            </Badge>
          ) : null}
        </div>
        {org.isActive ? (
          <Badge variant="success" className="shrink-0">
            <CheckCircle2 aria-hidden className="size-3.5" /> Active
          </Badge>
        ) : needsReconnect ? (
          // Issue 33 item 3: activating an organisation whose tokens Xero refused would switch to it silently
          // and leave every screen waiting on Xero; reconnect first.
          <Tooltip content={RECONNECT_FIRST}>
            <span tabIndex={0} className="inline-flex shrink-0 cursor-not-allowed rounded-lg">
              <Button size="sm" variant="outline" disabled aria-label={`Activate ${name}`}>
                <Lock aria-hidden />
                Activate
              </Button>
            </span>
          </Tooltip>
        ) : (
          <Button
            size="sm"
            variant="outline"
            className="shrink-0"
            disabled={!org.connected || busy}
            onClick={onActivate}
            aria-label={`Activate ${name}`}
          >
            {pending ? <Spinner className="size-4" label="Activating" /> : null}
            Activate
          </Button>
        )}
      </CardHeader>
      <CardContent className="grid gap-2 text-sm">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5">
          <dt className="text-muted-foreground">Last connected</dt>
          <dd>{lastAccessed ? dateTime.format(lastAccessed) : 'Never'}</dd>
          <dt className="flex items-center gap-1.5 text-muted-foreground">
            <Clock aria-hidden className="size-3.5" /> Token
          </dt>
          <dd>
            <TokenExpiry
              tokenExpiry={org.tokenExpiry}
              lost={
                needsReconnect ? describeConnectionLoss(lostReason ?? org.lostReason ?? null).title : null
              }
            />
          </dd>
          {org.rateLimits ? (
            <>
              <dt className="flex items-center gap-1.5 text-muted-foreground">
                <Gauge aria-hidden className="size-3.5" /> Xero calls left
              </dt>
              <dd className="tabular">
                {org.rateLimits.minuteRemaining ?? '–'} this minute ·{' '}
                {org.rateLimits.dayRemaining === null ? '–' : count.format(org.rateLimits.dayRemaining)} today
              </dd>
            </>
          ) : null}
          {org.downloadedThisMonth ? (
            <>
              <dt className="flex items-center gap-1.5 text-muted-foreground">
                <Download aria-hidden className="size-3.5" /> Downloaded
              </dt>
              <dd className="tabular">{describeDownload(org.downloadedThisMonth)}</dd>
            </>
          ) : null}
          {org.connected && isFeatureEnabled(org, 'cis-bills') ? (
            <CisDeadlineItem orgId={org.organizationId} />
          ) : null}
          {org.connected && org.liveUpdates ? (
            <>
              <dt className="flex items-center gap-1.5 text-muted-foreground">
                <Radio aria-hidden className="size-3.5" /> Live updates
              </dt>
              <dd
                data-live-updates={org.liveUpdates.state}
                className={org.liveUpdates.state === 'live' ? undefined : 'text-warning-foreground'}
              >
                {describeWebhookHealth(org.liveUpdates)}
              </dd>
            </>
          ) : null}
        </dl>
      </CardContent>
      <CardFooter className="flex-wrap gap-2">
        {FEATURE_KEYS.map((feature) => {
          const enabled = isFeatureEnabled(org, feature);
          // Xero refused the tokens: nothing on this organisation can be opened until it is reconnected (issue 17 item 7).
          const blocked = !org.connected || needsReconnect;
          const usable = enabled && !blocked;
          const button = (
            <Button
              size="sm"
              variant={usable ? 'outline' : 'ghost'}
              data-feature-state={usable ? 'on' : enabled ? 'reconnect' : 'off'}
              // On: a bordered button in the primary colour. Off: no border, a lock, muted text at full opacity
              // (readable, not a faded copy of the on state), and a not-allowed cursor on its wrapper.
              className={
                usable
                  ? 'border-primary/50 text-primary hover:bg-primary/10'
                  : 'border border-dashed border-border text-muted-foreground disabled:opacity-100'
              }
              disabled={!usable || busy}
              onClick={() => onOpenFeature(feature)}
            >
              {usable ? null : <Lock aria-hidden />}
              {FEATURE_LABELS[feature]}
            </Button>
          );
          if (!usable) {
            return (
              <Tooltip
                key={feature}
                content={
                  !enabled
                    ? 'Feature disabled by administrator'
                    : org.connected
                      ? RECONNECT_FIRST
                      : CONNECT_FIRST
                }
              >
                <span tabIndex={0} className="inline-flex cursor-not-allowed rounded-lg">
                  {button}
                </span>
              </Tooltip>
            );
          }
          return <span key={feature}>{button}</span>;
        })}
        {/* Settings and Disconnect keep one line of their own at the end: beside four feature buttons they
            wrapped apart in a three-column grid at 1280 px (issue 33 item 10). */}
        <div className="flex basis-full items-center justify-end gap-2">
          {needsReconnect ? (
            <Tooltip content={RECONNECT_FIRST}>
              <span tabIndex={0} className="inline-flex cursor-not-allowed rounded-lg">
                <Button size="sm" variant="ghost" disabled className="disabled:opacity-100">
                  <Lock aria-hidden /> Settings
                </Button>
              </span>
            </Tooltip>
          ) : (
            <Button size="sm" variant="ghost" disabled={!org.connected || busy} onClick={onOpenSettings}>
              <Settings aria-hidden /> Settings
            </Button>
          )}
          {org.connected && !needsReconnect ? (
            <DisconnectDialog name={name} disabled={busy} onDisconnect={onDisconnect} />
          ) : null}
        </div>
        {!org.connected ? (
          <div className="flex basis-full flex-wrap items-center justify-between gap-2 text-sm text-muted-foreground">
            <p data-not-connected={org.notConnectedReason ?? 'disconnected'}>{notConnectedText(org, name)}</p>
            <Button
              size="sm"
              variant="xero"
              disabled={busy || connecting}
              onClick={onConnect}
              aria-label={`Connect ${name}`}
            >
              {connecting ? (
                <Spinner className="size-4 text-current" label="Connecting" />
              ) : (
                <Plug aria-hidden />
              )}
              Connect
            </Button>
          </div>
        ) : null}
        {needsReconnect ? (
          <p className="basis-full text-sm text-muted-foreground">
            Xero needs you to reconnect before this organization can be activated or opened.
          </p>
        ) : null}
        {administrator && FEATURE_KEYS.some((feature) => !isFeatureEnabled(org, feature)) ? (
          <p className="basis-full text-sm text-muted-foreground">
            A feature with a lock is off for this organization. <SwitchOnInAdmin />
          </p>
        ) : null}
      </CardFooter>
    </Card>
  );
}
