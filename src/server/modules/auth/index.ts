import nodeCrypto from 'node:crypto';
import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import type { ConnectionService } from '../xero-connection/connection.service';
import type { OAuthRequests } from '../xero-connection/oauth-requests';
import { createUsersRepository } from './auth.repository';
import { registerAuthRoutes } from './auth.routes';
import { createAuthService } from './auth.service';
import { createLoginLimiter } from './login-limiter';
import { createMfaLimiter } from './mfa.limiter';
import { createMfaRepository } from './mfa.repository';
import { createMfaService } from './mfa.service';
import { registerXeroSignInRoutes } from './xero-signin.routes';
import { createXeroSignInService } from './xero-signin.service';

/** Expired sessions and old sign-in attempts are purged this often. */
const HOUSEKEEPING_MS = 15 * 60_000;

/**
 * Sign-in's entry (issue 46): accounts, passwords and their limits, two-step sign-in, and Sign in with Xero (which
 * connects the organisations in the same consent: given the Xero connection's service and OAuth requests). The
 * session store itself is a shared part (app.ts's request hook reads it). Admin is given the users and the limits.
 */
export function authModule(
  parts: SharedParts,
  deps: { connection: ConnectionService; oauthRequests: OAuthRequests },
) {
  const { db, config, audit, sessions, log } = parts;
  const users = createUsersRepository(db);
  // Device cookies of the sign-in limits are signed with a key of their own, derived from the encryption key.
  const limiter = createLoginLimiter(
    db,
    nodeCrypto.createHmac('sha256', parts.encryptionKey).update('ledgerlink device cookie').digest(),
  );
  const auth = createAuthService({ users, limiter, audit });
  const mfa = createMfaService({
    repo: createMfaRepository(db),
    limiter: createMfaLimiter(db),
    box: () => parts.box,
    audit,
    requireMfaForAdmins: config.requireMfaForAdmins,
  });
  const signIn = createXeroSignInService({
    users,
    oauth: parts.oauth,
    oauthRequests: deps.oauthRequests,
    tokens: parts.tokens,
    connection: deps.connection,
    audit,
    redirectUri: parts.redirectUris.signin,
  });
  const secureCookie = config.session.secureCookie;
  return {
    service: { users, limiter },
    register(app) {
      registerAuthRoutes(app, {
        auth,
        sessions,
        demoCredentials: parts.options.demoCredentials,
        mfa,
        limiter,
        secureCookie,
        registrationsPerHour: config.registrationsPerHour,
      });
      registerXeroSignInRoutes(app, { signIn, sessions, secureCookie });
    },
    jobs: [
      {
        name: 'housekeeping',
        everyMs: HOUSEKEEPING_MS,
        run: () => {
          void sessions
            .purgeExpired()
            .catch((error: unknown) => log.warn({ err: error }, 'purging expired sessions failed'));
          void limiter
            .purgeOld()
            .catch((error: unknown) => log.warn({ err: error }, 'purging old sign-in attempts failed'));
        },
      },
    ],
  } satisfies ModuleEntry;
}
