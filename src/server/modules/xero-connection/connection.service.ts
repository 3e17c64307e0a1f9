import type { ConnectionStatus } from '../../../shared/connection';
import { CONNECTION_ERRORS, NEVER_CONNECTED_ERROR } from '../../../shared/connection';
import type { UserOrganization } from '../../../shared/organizations';
import { toConnectionDefaults } from '../../../shared/settings';
import { AppError } from '../../lib/app-error';
import {
  REFRESH_MARGIN_MS,
  RENEW_AHEAD_MS,
  type TokenStore,
  type XeroConnectionsPort,
} from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { RequestPrincipal, XeroTokenStatus } from '../auth/sessions';
import type {
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

const NO_CONNECTED_ORGANIZATION = 'No connected organization. Connect an organization to continue.';

/** A token that cannot be used whatever its expiry: the answer is settled without reading it further. */
function describeSettledToken(
  token: Pick<XeroTokenStatus, 'status' | 'lastError' | 'hasRefreshToken'>,
): ConnectionStatus | null {
  if (token.status === 'reconnect_required')
    return { connected: false, error: token.lastError ?? CONNECTION_ERRORS.refreshFailed };
  if (!token.hasRefreshToken) return { connected: false, error: CONNECTION_ERRORS.noRefreshToken };
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

export function createConnectionService(deps: {
  orgs: OrganizationsRepository;
  tokens: TokenStore;
  xero: XeroConnectionsPort;
  audit: AuditLog;
}) {
  const { orgs, tokens, xero, audit } = deps;

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
          if (!knownActive || !knownActive.membership.connected)
            return { connected: false, error: NO_CONNECTED_ORGANIZATION };
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
            return { connected: false, error: e.message };
          // Xero could not be reached: a token with time left is still good; say so only when it is running out.
          const left = current.expiresAt.getTime() - Date.now();
          if (left <= REFRESH_MARGIN_MS)
            error = left <= 0 ? CONNECTION_ERRORS.expired : CONNECTION_ERRORS.aboutToExpire;
        }
      }
      const active = await orgs.findActive(userId);
      if (!active || !active.membership.connected)
        return { connected: false, error: NO_CONNECTED_ORGANIZATION };
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

    /** Pulls the user's connections from Xero and records them; returns how many organisations there are. */
    async syncFromXero(userId: number): Promise<OrganizationRow[]> {
      const connections = await xero.listConnections(userId);
      return orgs.syncConnections(userId, connections);
    },

    /**
     * Reads Xero's GET /connections again and records it (issue 33 item 4): an organisation disconnected in
     * Xero's own web app (Settings → Connected apps) shows as not connected, each one once in the activity
     * log. One identity call, no Accounting API call; nothing to read for a user who never connected.
     */
    async refreshConnections(userId: number, ip: string): Promise<{ disconnectedInXero: string[] }> {
      const current = await tokens.read(userId);
      // Never connected, or already waiting for a reconnect: Xero has nothing to tell.
      if (!current || current.status === 'reconnect_required') return { disconnectedInXero: [] };
      const before = await orgs.listForUser(userId);
      const synced = await orgs.syncConnections(userId, await xero.listConnections(userId));
      const kept = new Set(synced.map((o) => o.id));
      const gone = before.filter((r) => r.membership.connected && !kept.has(r.org.id));
      for (const { org } of gone) {
        await audit.record({
          userId,
          organizationId: org.id,
          action: 'xero.disconnected-in-xero',
          target: org.tenantName,
          result: 'success',
          ip,
        });
      }
      return { disconnectedInXero: gone.map((r) => r.org.tenantName ?? 'Unknown Organization') };
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
