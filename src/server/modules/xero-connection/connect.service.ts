import { AppError } from '../../lib/app-error';
import { OAuthError, type TokenStore, type XeroOAuth } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { ConnectionService } from './connection.service';
import {
  createAuthorization,
  exchangeCallbackCode,
  findOAuthErrorRedirect,
  type OAuthRequests,
} from './oauth-requests';

/** Where a flow's warnings go: the request's log, so a line names the request it belongs to. */
export interface FlowLog {
  warn(obj: object | string, msg?: string): void;
}

/** Where the organisations page learns what happened (docs/product/shell.md §8, query-string errors). */
function organizationsUrl(params: Record<string, string>): string {
  return `/organizations?${new URLSearchParams(params).toString()}`;
}

/** The OAuth errors Xero may answer a code exchange with that the page names as they are. */
const EXCHANGE_ERRORS: Record<string, string> = {
  invalid_grant: 'invalid_grant',
  invalid_client: 'invalid_client',
  invalid_request: 'invalid_request',
};

/** What the callback of a connect or reconnect brings back, as the route read it. */
export interface ConnectCallback {
  query: { code?: string | undefined; state?: string | undefined; error?: string | undefined };
  /** The URL the callback reached us at (Xero's answer is read from its query string). */
  url: string;
  /** The signed-in user whose browser followed the callback; null when none (or still in two-step sign-in). */
  userId: number | null;
  /** Whether this browser started the authorisation of `query.state` (issue 16, oauth-requests.ts). */
  startedHere: boolean;
  ip: string;
  log: FlowLog;
}

/**
 * Connecting and reconnecting Xero organisations (OAuth with PKCE, docs/architecture.md §4 Connection and
 * organisations): the authorisation URL, and the callback that trades the code for tokens, records the
 * organisations Xero lists and answers where the browser goes, with exactly the codes of shell.md §8.
 */
export function createConnectService(deps: {
  connection: ConnectionService;
  oauth: XeroOAuth;
  oauthRequests: OAuthRequests;
  tokens: TokenStore;
  audit: AuditLog;
  redirectUri: string;
  appUrl: string;
}) {
  const { connection, oauth, oauthRequests, tokens, audit } = deps;

  return {
    /**
     * GET /api/xero/connect and /reconnect: Xero's consent URL, the flow's checks kept server-side. The route
     * binds `state` to the browser that asked.
     */
    async startAuthorization(
      userId: number,
      purpose: 'connect' | 'reconnect',
      log: FlowLog,
      organizationId: number | null = null,
    ) {
      let authorization: Awaited<ReturnType<typeof createAuthorization>>;
      try {
        authorization = await createAuthorization(oauth, deps.redirectUri);
      } catch (error) {
        log.warn({ err: error }, 'Xero authorization URL failed');
        throw new AppError(
          'XERO_UNAVAILABLE',
          purpose === 'connect'
            ? 'Failed to generate Xero connection URL'
            : 'Failed to generate Xero reconnection URL',
        );
      }
      await oauthRequests.create({ ...authorization.checks, purpose, userId, organizationId });
      return {
        url: authorization.url,
        cancelUrl: `${deps.appUrl}/xero-cancel`,
        state: authorization.checks.state,
      };
    },

    /**
     * GET /api/xero/callback: finishes a connect or reconnect and answers where the browser goes
     * (`/organizations?connected=true`, or the error of shell.md §8; a declined consent to /xero-cancel).
     * The stored request is used up whatever happens.
     */
    async finishCallback(callback: ConnectCallback): Promise<string> {
      const { code, state, error } = callback.query;
      const { userId, ip, log } = callback;
      const pending = await oauthRequests.consume(state);
      const errorRedirect = findOAuthErrorRedirect(error, organizationsUrl);
      if (errorRedirect) return errorRedirect;
      if (userId === null) return organizationsUrl({ error: 'unauthorized' });
      if (!code) return organizationsUrl({ error: 'missing_code' });
      if (!pending || pending.purpose === 'signin') return organizationsUrl({ error: 'invalid_request' });
      if (pending.userId !== userId) return organizationsUrl({ error: 'unauthorized' });
      // A callback this browser did not start connects nothing (issue 16).
      if (!callback.startedHere) {
        await audit.record({
          userId,
          action: pending.purpose === 'reconnect' ? 'xero.reconnect' : 'xero.connect',
          result: 'failure',
          ip,
          detail: { reason: 'state_not_bound_to_browser' },
        });
        return organizationsUrl({ error: 'invalid_request' });
      }

      let tokenSet;
      try {
        tokenSet = await exchangeCallbackCode(oauth, deps.redirectUri, callback.url, pending);
      } catch (e) {
        const kind = e instanceof OAuthError ? e.error : 'token_exchange_failed';
        log.warn({ err: e, kind }, 'Xero code exchange failed');
        await audit.record({
          userId,
          action: 'xero.connect',
          result: 'failure',
          ip,
          detail: { reason: kind },
        });
        return organizationsUrl({ error: EXCHANGE_ERRORS[kind] ?? 'token_exchange_failed' });
      }
      if (!tokenSet.accessToken) return organizationsUrl({ error: 'missing_access_token' });
      if (!tokenSet.refreshToken) return organizationsUrl({ error: 'missing_refresh_token' });
      await tokens.save(userId, tokenSet, tokenSet.idTokenClaims?.xero_userid ?? null);

      let orgs;
      let notIncluded;
      try {
        ({ orgs, notIncluded } = await connection.recordConsent(userId, pending.organizationId));
      } catch (e) {
        log.warn({ err: e }, 'Xero connections could not be read');
        const message = e instanceof AppError ? e.message : 'Could not record the organisations';
        return organizationsUrl(
          e instanceof AppError && e.code.startsWith('XERO')
            ? { error: 'xero_connection_failed' }
            : { error: 'tenant_update_failed', message },
        );
      }
      if (orgs.length === 0) return organizationsUrl({ error: 'no_tenants' });
      await audit.record({
        userId,
        action: pending.purpose === 'reconnect' ? 'xero.reconnect' : 'xero.connect',
        result: 'success',
        ip,
        detail: {
          organizations: orgs.map((o) => o.tenantName),
          ...(notIncluded.length > 0 ? { notIncluded: notIncluded.map((o) => o.tenantName) } : {}),
        },
      });
      // Organisations the consent left out are named by the page (issue 45 item 1): `not_included` carries
      // their ids. When the one the user asked to connect is among them, nothing they asked for was connected,
      // so the page does not say "Connected to Xero".
      const leftOut: Record<string, string> =
        notIncluded.length > 0 ? { not_included: notIncluded.map((o) => o.id).join(',') } : {};
      const wantedLeftOut =
        pending.organizationId !== null && notIncluded.some((o) => o.id === pending.organizationId);
      return organizationsUrl(wantedLeftOut ? leftOut : { connected: 'true', ...leftOut });
    },
  };
}
export type ConnectService = ReturnType<typeof createConnectService>;
