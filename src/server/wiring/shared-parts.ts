/**
 * The shared parts every module may be given (issue 46; wiring/module-entry.ts says each): who asks, the sealed
 * secrets, the write ledger, live events, the body cache, and Xero's side (wiring/xero-parts.ts). Built once by
 * src/server/wiring.ts from the two modules everything stands on: the activity log and the organisations.
 */
import type { FastifyInstance } from 'fastify';
import { redirectUris } from '../demo';
import { createWriteLedger, RECONCILE_INTERVAL_MS } from '../ledger/index';
import { createBodyCache } from '../lib/body-cache';
import { createSecretBox, loadEncryptionKey } from '../lib/crypto';
import type { Job } from '../lib/jobs';
import { createLiveEvents } from '../lib/live-events';
import type { AuditLog } from '../modules/audit/audit';
import { createPrincipalCache } from '../modules/auth/principal-cache';
import { createSessionStore, type PrincipalRow } from '../modules/auth/sessions';
import type { EgressMeter } from '../modules/organizations/egress-meter';
import type { OrganizationsRepository } from '../modules/organizations/organizations.repository';
import type { ResolveTenant } from '../modules/organizations/tenancy';
import type { TokenLossReason } from '../xero/xero-http/token-store';
import type { BuildAppOptions } from './build-options';
import type { SharedParts } from './module-entry';
import { createXeroParts } from './xero-parts';

/** Memory for serialised cached answers: a 5,000-invoice list is about 1.3 MB. */
const BODY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

type ConnectionLost = (userId: number, reason: TokenLossReason) => Promise<void>;

export function createSharedParts(
  app: FastifyInstance,
  options: BuildAppOptions,
  given: {
    audit: AuditLog;
    organizations: { orgs: OrganizationsRepository; egress: EgressMeter; resolveTenant: ResolveTenant };
  },
): SharedParts {
  const { config, database } = options;
  const db = database.db;
  const log = app.log;
  // Who asks, kept in memory while the database's change notices reach this instance (issue 32).
  const principals = createPrincipalCache<PrincipalRow>({ database, log });
  void principals.start();
  const sessions = createSessionStore(database, {
    ...config.session,
    principalQueriesInFlight: database.kind === 'pglite' ? 1 : 4,
    cache: principals,
  });
  const encryptionKey = loadEncryptionKey({ configured: config.tokenEncryptionKey, dataDir: config.dataDir });
  const box = createSecretBox(encryptionKey);
  const ledger = createWriteLedger({ db, log });
  const live = createLiveEvents({ database, log });
  // A connection found lost is said once, by the Xero connection module's service (it sets this as it is built).
  let connectionLost: ConnectionLost = async () => undefined;
  const xero = createXeroParts(app, options, {
    box,
    orgs: given.organizations.orgs,
    egress: given.organizations.egress,
    ledger,
    live,
    onLost: (userId, reason) =>
      void connectionLost(userId, reason).catch((error: unknown) =>
        log.warn({ err: error, userId }, 'recording a lost Xero connection failed'),
      ),
  });
  return {
    config,
    options,
    database,
    db,
    log,
    audit: given.audit,
    encryptionKey,
    box,
    sessions,
    principals,
    ...given.organizations,
    ...xero,
    redirectUris: redirectUris(config.appUrl),
    onConnectionLost(handler) {
      connectionLost = handler;
    },
    ledger,
    live,
    bodies: createBodyCache({ maxBytes: BODY_CACHE_MAX_BYTES }),
  };
}

/**
 * The ledger's job: settles the writes the staleness rule calls stale (a crashed instance's, a lost answer) by asking
 * Xero, at start and every RECONCILE_INTERVAL_MS, one pass at a time; then what was settled without its request is
 * read into the cache and told to the open screens (issue 44).
 */
export function reconcileJob(parts: Pick<SharedParts, 'ledger' | 'catchUp' | 'metrics'>): Job {
  const { ledger, catchUp, metrics } = parts;
  return {
    name: 'reconcile',
    everyMs: RECONCILE_INTERVAL_MS,
    runAtStart: true,
    run: async () => {
      try {
        await ledger.reconcile();
        await catchUp.run();
        metrics.reconcilerRan('ok');
      } catch (error) {
        metrics.reconcilerRan('error');
        throw error;
      }
    },
  };
}
