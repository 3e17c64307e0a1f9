import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { createConnectService } from './connect.service';
import { registerConnectionRoutes } from './connection.routes';
import { createConnectionService } from './connection.service';
import { createOAuthRequests } from './oauth-requests';

/**
 * The Xero connection's entry (issue 46): connecting organisations (OAuth with PKCE, its state kept server-side),
 * each organisation's card, and the connections watch (issue 45 item 2). Its service says a lost connection once,
 * for the token store too; Sign in with Xero (the auth module) is given the service and the OAuth requests.
 */
export function xeroConnectionModule(parts: SharedParts) {
  const { db, config, audit, log, tokens } = parts;
  const oauthRequests = createOAuthRequests(db);
  const connection = createConnectionService({
    orgs: parts.orgs,
    tokens,
    xero: parts.xero.connections,
    audit,
    log,
    watchEveryMs: config.xero.connectionsCheckMs,
  });
  // A connection found lost (expired or revoked, issue 45 item 2) is said once, by the connection service.
  parts.onConnectionLost((userId, reason) => connection.noteLost(userId, reason));
  const connect = createConnectService({
    connection,
    oauth: parts.oauth,
    oauthRequests,
    tokens,
    audit,
    redirectUri: parts.redirectUris.connect,
    appUrl: config.appUrl,
  });
  return {
    service: { connection, oauthRequests },
    register(app) {
      registerConnectionRoutes(app, {
        connection,
        connect,
        secureCookie: config.session.secureCookie,
        liveUpdates: (tenantIds) => parts.webhookHealth.healthOf(tenantIds),
      });
    },
    jobs: [
      {
        // A revoke or a disconnect made in Xero, noticed with nobody acting (issue 45 item 2): Xero's identity
        // service only (GET /connections), never the Accounting API; signed-in users only.
        // It looks for users due a read twice a period, so each is read about every XERO_CONNECTIONS_CHECK_SECONDS.
        name: 'connections watch',
        everyMs: Math.max(1_000, Math.floor(config.xero.connectionsCheckMs / 2)),
        run: async () => {
          await connection.watchConnections();
        },
      },
    ],
  } satisfies ModuleEntry;
}
