import type { ConnectionStatus } from '../../../shared/connection';
import {
  CONNECTION_ERRORS,
  CONNECTION_LOSS_TEXTS,
  NEVER_CONNECTED_ERROR,
  NO_CONNECTED_ORGANIZATION_ERROR,
} from '../../../shared/connection';
import type { UserOrganization } from '../../../shared/organizations';
import { toConnectionDefaults } from '../../../shared/settings';
import { AppError } from '../../lib/app-error';
import {
  REFRESH_MARGIN_MS,
  RENEW_AHEAD_MS,
  type TokenStore,
  type XeroConnectionsPort,
  type XeroTenantConnection,
} from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { RequestPrincipal, XeroTokenStatus } from '../auth/sessions';
import type {
  MembershipRow,
  OrganizationAccessRow,
  OrganizationRow,
  OrganizationsRepository,
} from '../organizations/organizations.repository';
import { egressMonthOf } from '../organizations/egress-meter';

export const NOT_CONNECTED_ERROR = NEVER_CONNECTED_ERROR;

/**
 * The saved defaults and flags of an organisation, as the connection status carries them
 * (docs/product/shell.md §3).
 */
export function toOrganizationDefaults(org: OrganizationAccessRow) {
  return {
    ...toConnectionDefaults(org),
    featurePayInvoices: org.featurePayInvoices,
    featureAddInvoices: org.featureAddInvoices,
    featureCisBills: org.featureCisBills,
    featureStockJournal: org.featureStockJournal,
  };
}

const NO_CONNECTED_ORGANIZATION = NO_CONNECTED_ORGANIZATION_ERROR;

/** Someone signed in this recently counts as present for the connections watch (issue 45 item 2). */
export const WATCH_SEEN_WITHIN_MS = 30 * 60_000;
/**
 * Users read in one run of the watch, one after another (the rest wait for the next run, longest unread first):
 * at about 0.2 s a read, a run stays well inside the half period between runs.
 */
const WATCH_BATCH = 100;

/** "Demo Shop Ltd and Demo Builders Ltd". */
function nameList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** Where the service's warnings go: the app's log (pino). */
export interface ConnectionLog {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** A token that cannot be used whatever its expiry: the answer is settled without reading it further. */
function describeSettledToken(
  token: Pick<XeroTokenStatus, 'status' | 'lastError' | 'hasRefreshToken' | 'lostReason'>,
): ConnectionStatus | null {
  if (token.status === 'reconnect_required')
    return {
      connected: false,
      error: token.lastError ?? CONNECTION_ERRORS.refreshFailed,
      lostReason: token.lostReason ?? 'revoked',
    };
  if (!token.hasRefreshToken)
    return { connected: false, error: CONNECTION_ERRORS.noRefreshToken, lostReason: 'expired' };
  return null;
}

/**
 * An organisation's defaults as sent, once per organisation row: rows kept with a principal (decision 032) are
 * frozen and shared by the requests until the organisation changes, so most answers reuse the mapping.
 */
const defaultsOfRow = new WeakMap<OrganizationAccessRow, ReturnType<typeof toOrganizationDefaults>>();
function defaultsOf(org: OrganizationAccessRow): ReturnType<typeof toOrganizationDefaults> {
  let defaults = defaultsOfRow.get(org);
  if (!defaults) {
    defaults = toOrganizationDefaults(org);
    if (Object.isFrozen(org)) defaultsOfRow.set(org, defaults);
  }
  return defaults;
}

/**
 * The answers built from rows kept with a principal, one per row and token expiry: the same frozen object for
 * every request until the organisation, the membership or the token changes (the principal cache then holds
 * a new row), so the route can send it serialised once (`connectionBody`, issue 32).
 */
const connectedOfRow = new WeakMap<OrganizationAccessRow, { expiresAt: number; status: ConnectionStatus }>();

function describeConnected(org: OrganizationAccessRow, tokenExpiry: Date, error?: string): ConnectionStatus {
  if (!error && Object.isFrozen(org)) {
    const kept = connectedOfRow.get(org);
    if (kept && kept.expiresAt === tokenExpiry.getTime()) return kept.status;
    const status = Object.freeze(buildConnected(org, tokenExpiry));
    connectedOfRow.set(org, { expiresAt: tokenExpiry.getTime(), status });
    return status;
  }
  return buildConnected(org, tokenExpiry, error);
}

function buildConnected(org: OrganizationAccessRow, tokenExpiry: Date, error?: string): ConnectionStatus {
  return {
    connected: true,
    ...(error ? { error } : {}),
    tenantName: org.tenantName,
    tenantId: org.tenantId,
    organizationId: org.id,
    tokenExpiry: tokenExpiry.toISOString(),
    ...defaultsOf(org),
  };
}

/**
 * Xero lists the same connections the user's memberships already record as connected: same organisations,
 * connection ids and names, none missing. A round of the connections watch that finds this writes nothing.
 */
function sameConnections(
  listed: readonly XeroTenantConnection[],
  memberships: ReadonlyArray<{ org: OrganizationRow; membership: MembershipRow }>,
): boolean {
  const connected = memberships.filter((m) => m.membership.connected);
  if (connected.length !== listed.length) return false;
  const byTenant = new Map(connected.map((m) => [m.org.tenantId, m]));
  return listed.every((c) => {
    const known = byTenant.get(c.tenantId);
    return (
      known !== undefined &&
      known.membership.connectionId === c.connectionId &&
      known.org.tenantName === c.tenantName
    );
  });
}

export function createConnectionService(deps: {
  orgs: OrganizationsRepository;
  tokens: TokenStore;
  xero: XeroConnectionsPort;
  audit: AuditLog;
  log: ConnectionLog;
  /** Each signed-in user's Xero connections are read at most this often by the watch (XERO_CONNECTIONS_CHECK_SECONDS). */
  watchEveryMs?: number;
}) {
  const { orgs, tokens, xero, audit, log } = deps;
  const watchEveryMs = deps.watchEveryMs ?? 120_000;

  /**
   * No organisation of the user's is connected: when the last ones went because Xero stopped listing them, the
   * answer says so (issue 45 item 2) rather than only "no connected organization".
   */
  async function describeNoneConnected(userId: number): Promise<ConnectionStatus> {
    const memberships = await orgs.listForUser(userId);
    const removed = memberships.some((m) => m.membership.disconnectedReason === 'removed');
    return {
      connected: false,
      error: NO_CONNECTED_ORGANIZATION,
      ...(removed ? { lostReason: 'removed' as const } : {}),
    };
  }

  /**
   * Reads Xero's GET /connections and records it: what Xero no longer lists is marked not connected, "removed"
   * in Xero, each one once (the update that turns it is the one that reports it, whichever instance or request
   * gets there first): one activity-log line and one warning naming it. One identity call, no Accounting API
   * call; nothing to read for a user who never connected or must reconnect. A grant Xero refuses throws
   * XERO_AUTH_EXPIRED after the token store has marked it lost (which says so once itself: `noteLost`).
   */
  async function checkConnections(userId: number, ip: string | null): Promise<string[]> {
    const current = await tokens.read(userId);
    if (!current || current.status === 'reconnect_required') return [];
    // The watch and a person's check may read the same user's list side by side: the one read first must not
    // undo what the other recorded meanwhile (organizations.repository.ts syncConnections, `readAt`).
    const readAt = new Date();
    const listed = await xero.listConnections(userId);
    // Nothing changed in Xero (the watch's usual round): write nothing, so no change notice empties the
    // principals and the Today page's rows of every organisation the user keeps (decisions 032, 047).
    if (sameConnections(listed, await orgs.listForUser(userId))) return [];
    const { dropped } = await orgs.syncConnections(userId, listed, { missing: 'removed', readAt });
    for (const org of dropped) {
      const name = org.tenantName ?? 'Unknown Organization';
      log.warn(
        { userId, organizationId: org.id, tenantId: org.tenantId },
        `Xero: ${name} was ${CONNECTION_LOSS_TEXTS.removed.past}; it is no longer connected`,
      );
      await audit.record({
        userId,
        organizationId: org.id,
        action: 'xero.disconnected-in-xero',
        target: org.tenantName,
        result: 'success',
        ip,
      });
    }
    return dropped.map((o) => o.tenantName ?? 'Unknown Organization');
  }

  return {
    /**
     * GET /api/xero/connection: the user's active organisation, refreshing a token close to expiry. With the
     * request's principal (read with its session), a token that needs nothing and the active organisation
     * come from there, so the answer costs no further query.
     */
    async getStatus(userId: number, principal?: RequestPrincipal | null): Promise<ConnectionStatus> {
      const known = principal?.session?.user.id === userId ? principal : null;
      const knownActive = known?.tenancy?.requested === 0 ? known.tenancy.found : undefined;
      if (known && knownActive !== undefined) {
        const token = known.xeroToken;
        if (!token) return { connected: false, error: NOT_CONNECTED_ERROR };
        const settled = describeSettledToken(token);
        if (settled) return settled;
        if (token.expiresAt.getTime() - Date.now() > RENEW_AHEAD_MS) {
          if (!knownActive || !knownActive.membership.connected) return describeNoneConnected(userId);
          return describeConnected(knownActive.org, token.expiresAt);
        }
      }
      let current = await tokens.read(userId);
      if (!current) return { connected: false, error: NOT_CONNECTED_ERROR };
      const settled = describeSettledToken({ ...current, hasRefreshToken: Boolean(current.refreshToken) });
      if (settled) return settled;
      let error: string | undefined;
      // Renewed ahead of expiry (single-flight), so a healthy idle connection never shows as expiring.
      if (current.expiresAt.getTime() - Date.now() <= RENEW_AHEAD_MS) {
        try {
          current = await tokens.refresh(userId, false, undefined, RENEW_AHEAD_MS);
        } catch (e) {
          if (e instanceof AppError && e.code === 'XERO_AUTH_EXPIRED')
            return {
              connected: false,
              error: e.message,
              lostReason: (await tokens.read(userId))?.lostReason ?? 'revoked',
            };
          // Xero could not be reached: a token with time left is still good; say so only when it is running out.
          const left = current.expiresAt.getTime() - Date.now();
          if (left <= REFRESH_MARGIN_MS)
            error = left <= 0 ? CONNECTION_ERRORS.expired : CONNECTION_ERRORS.aboutToExpire;
        }
      }
      const active = await orgs.findActive(userId);
      if (!active || !active.membership.connected) return describeNoneConnected(userId);
      return describeConnected(active.org, current.expiresAt, error);
    },

    /** The user's organisations; the token's state comes from the request's principal when it was read. */
    async listUserOrganizations(
      userId: number,
      principal?: RequestPrincipal | null,
    ): Promise<UserOrganization[]> {
      const known = principal?.session?.user.id === userId ? principal : null;
      const [rows, current] = await Promise.all([
        orgs.listForUser(userId),
        known ? known.xeroToken : tokens.read(userId),
      ]);
      const expiry = current?.expiresAt ?? null;
      const valid = Boolean(
        current && current.status === 'active' && expiry && expiry.getTime() > Date.now(),
      );
      const lostReason = current?.status === 'reconnect_required' ? (current.lostReason ?? 'revoked') : null;
      const thisMonth = egressMonthOf(new Date());
      return rows.map(({ org, membership }) => ({
        organizationId: org.id,
        tenantId: org.tenantId,
        tenantName: org.tenantName,
        connected: membership.connected,
        hasValidToken: membership.connected && valid,
        isActive: membership.isActive,
        lastAccessed: membership.lastAccessed?.toISOString() ?? null,
        tokenExpiry: membership.connected && expiry ? expiry.toISOString() : null,
        featurePayInvoices: org.featurePayInvoices,
        featureAddInvoices: org.featureAddInvoices,
        featureCisBills: org.featureCisBills,
        featureStockJournal: org.featureStockJournal,
        notConnectedReason: membership.connected ? null : membership.disconnectedReason,
        notConnectedSince:
          membership.connected || !membership.disconnectedAt ? null : membership.disconnectedAt.toISOString(),
        lostReason: membership.connected ? lostReason : null,
        rateLimits:
          org.rateUpdatedAt === null
            ? null
            : {
                minuteRemaining: org.rateMinuteRemaining ?? null,
                dayRemaining: org.rateDayRemaining ?? null,
              },
        downloadedThisMonth:
          org.egressMonth === null
            ? null
            : {
                month: thisMonth,
                bytes: org.egressMonth === thisMonth ? org.egressBytes : 0,
              },
      }));
    },

    /** Validation messages of docs/product/shell.md §5. An expired token only warns. */
    async setActive(userId: number, organizationId: number, ip: string) {
      const found = await orgs.findMembership(userId, organizationId);
      if (!found) throw new AppError('NOT_FOUND', `Organization with ID ${organizationId} not found`);
      const name = found.org.tenantName ?? 'Unknown Organization';
      if (!found.membership.connected)
        throw new AppError('VALIDATION_ERROR', `Organization "${name}" is not connected to Xero`);
      await orgs.setActive(userId, organizationId);
      await audit.record({
        userId,
        organizationId,
        action: 'organization.activate',
        target: name,
        result: 'success',
        ip,
      });
      const current = await tokens.read(userId);
      const expired = !current || current.expiresAt.getTime() <= Date.now();
      return {
        success: true as const,
        organizationId,
        tenantId: found.org.tenantId,
        tenantName: found.org.tenantName,
        ...(expired ? { warning: 'The Xero token has expired; it will be refreshed on the next call.' } : {}),
      };
    },

    /**
     * After a consent (connect, reconnect, Sign in with Xero): records the organisations Xero now lists, each
     * connected now ("Last connected" moves). Those the user had connected, or asked to connect
     * (`wantedOrganizationId`, Connect on its card), that the consent left out are marked 'not-included' and
     * answered (issue 45 item 1): Xero's consent page lets a person untick an organisation.
     */
    async recordConsent(
      userId: number,
      wantedOrganizationId?: number | null,
    ): Promise<{ orgs: OrganizationRow[]; notIncluded: OrganizationRow[] }> {
      const connections = await xero.listConnections(userId);
      const { orgs: listed, dropped } = await orgs.syncConnections(userId, connections, {
        missing: 'not-included',
        consented: true,
      });
      const notIncluded = [...dropped];
      const wanted = wantedOrganizationId ?? null;
      if (wanted !== null && !listed.some((o) => o.id === wanted) && !dropped.some((o) => o.id === wanted)) {
        const found = await orgs.findMembership(userId, wanted);
        if (found) {
          await orgs.markNotIncluded(userId, wanted);
          notIncluded.push(found.org);
        }
      }
      return { orgs: listed, notIncluded };
    },

    /**
     * POST /api/xero/connections/refresh, when the Organizations page opens: Xero's GET /connections read again
     * (issue 33 item 4); the connections watch does the same every few minutes with nobody acting (issue 45).
     */
    async refreshConnections(userId: number, ip: string): Promise<{ disconnectedInXero: string[] }> {
      return { disconnectedInXero: await checkConnections(userId, ip) };
    },

    /**
     * The connections watch (issue 45 item 2), a background job: a revoke or a disconnect made in Xero is
     * noticed within minutes though nobody acts. Each signed-in user with a working connection has Xero's
     * GET /connections read at most every `watchEveryMs` (identity service only: no Accounting API call, nothing
     * counted against an organisation's limits); a user is claimed in the database first, so several instances
     * never read the same user twice in a round. Answers how many users were read.
     */
    async watchConnections(options: { allDue?: boolean } = {}): Promise<number> {
      const now = new Date();
      const due = await orgs.claimConnectionChecks({
        // A little early, so a user due a read just after a run is read by it rather than a whole run later.
        // `allDue` (tests): every watched user is due now, however recently read.
        dueBefore: options.allDue
          ? new Date(now.getTime() + 1000)
          : new Date(now.getTime() - watchEveryMs * 0.9),
        seenAfter: new Date(now.getTime() - WATCH_SEEN_WITHIN_MS),
        limit: WATCH_BATCH,
      });
      for (const userId of due) {
        try {
          await checkConnections(userId, null);
        } catch (error) {
          // Refused by Xero: the token store has marked it lost and said so (noteLost). Xero unreachable or
          // busy: the next round asks again.
          if (!(error instanceof AppError && error.code === 'XERO_AUTH_EXPIRED'))
            log.debug(
              { err: error, userId },
              'reading the Xero connections failed; the next round asks again',
            );
        }
      }
      return due.length;
    },

    /**
     * The token store found the user's connection lost (issue 45 item 2): said once, as a warning naming each
     * organisation it ends, and one activity-log line per organisation.
     */
    async noteLost(userId: number, reason: 'expired' | 'revoked'): Promise<void> {
      const connected = (await orgs.listForUser(userId)).filter((m) => m.membership.connected);
      const names = connected.map((m) => m.org.tenantName ?? 'Unknown Organization');
      const text = CONNECTION_LOSS_TEXTS[reason];
      log.warn(
        { userId, reason, organizationIds: connected.map((m) => m.org.id) },
        `${text.title}: ${names.length > 0 ? nameList(names) : 'no organisation'} ${names.length === 1 ? 'needs' : 'need'} reconnecting (user ${userId})`,
      );
      for (const { org } of connected) {
        await audit.record({
          userId,
          organizationId: org.id,
          action: 'xero.connection-lost',
          target: org.tenantName,
          result: 'failure',
          detail: { reason },
        });
      }
    },

    /** The organisation must be one of the user's (a connect naming it): 404 otherwise, as setActive says. */
    async requireMembership(userId: number, organizationId: number): Promise<void> {
      if (!(await orgs.findMembership(userId, organizationId)))
        throw new AppError('NOT_FOUND', `Organization with ID ${organizationId} not found`);
    },

    /** Disconnects one organisation at Xero (DELETE /connections/{id}) and here. */
    async disconnect(userId: number, organizationId: number, ip: string): Promise<void> {
      const found = await orgs.findMembership(userId, organizationId);
      if (!found) throw new AppError('NOT_FOUND', `Organization with ID ${organizationId} not found`);
      if (found.membership.connectionId && found.membership.connected) {
        try {
          await xero.deleteConnection(userId, found.membership.connectionId);
        } catch (error) {
          // Already gone at Xero (404) is fine; anything else is reported.
          if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
        }
      }
      await orgs.markDisconnected(userId, [organizationId]);
      const rest = (await orgs.listForUser(userId)).filter((r) => r.membership.connected);
      const next = rest[0];
      if (found.membership.isActive && next) await orgs.setActive(userId, next.org.id);
      await audit.record({
        userId,
        organizationId,
        action: 'xero.disconnect',
        target: found.org.tenantName,
        result: 'success',
        ip,
      });
    },
  };
}
export type ConnectionService = ReturnType<typeof createConnectionService>;
