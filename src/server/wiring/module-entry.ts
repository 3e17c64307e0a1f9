/**
 * What a module's entry (`src/server/modules/<module>/index.ts`) is given and what it answers (issue 46,
 * docs/code-style.md §4 "Adding a module"). src/server/wiring.ts builds the shared parts once
 * (wiring/shared-parts.ts) and lists the modules, each given these parts and, where it really needs one, another
 * module's service by name; a module never reaches into another's entry. This file imports no module entry, so
 * the entries can import it without a cycle.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { FeatureKey } from '../../shared/feature-flags-rules';
import type { ServerConfig } from '../config/env';
import type { Database, Db } from '../db/client';
import type { LocalKindHandlers, WriteKindHandlers, WriteLedger, WriteStepHandlers } from '../ledger/index';
import type { BodyCache } from '../lib/body-cache';
import type { SecretBox } from '../lib/crypto';
import type { Job } from '../lib/jobs';
import type { LiveEvents } from '../lib/live-events';
import type { AppMetrics } from '../metrics/metrics';
import type { AuditLog } from '../modules/audit/audit';
import type { PrincipalCache } from '../modules/auth/principal-cache';
import type { PrincipalRow, SessionStore } from '../modules/auth/sessions';
import type { EgressMeter } from '../modules/organizations/egress-meter';
import type { OrganizationsRepository } from '../modules/organizations/organizations.repository';
import type { RequestContext, ResolveTenant } from '../modules/organizations/tenancy';
import type { WriteCatchUp } from '../xero/sync/settled-write-catch-up';
import type { XeroSync } from '../xero/sync/sync.service';
import type { WebhookHealthService } from '../xero/webhooks/health';
import type { WebhookProcessor } from '../xero/webhooks/processor';
import type { XeroHttp } from '../xero/xero-http/http';
import type { XeroOAuth } from '../xero/xero-http/oauth';
import type { SharedGates } from '../xero/xero-http/shared-gate';
import type { TokenLossReason, TokenStore } from '../xero/xero-http/token-store';
import type { XeroPort } from '../xero/xero-port';
import type { BuildAppOptions } from './build-options';

/** The parts every module may be given, built once by src/server/wiring/shared-parts.ts. */
export interface SharedParts {
  config: ServerConfig;
  /** What buildApp was given: demo mode's extras (credentials, the HMRC sandbox) and what tests tune. */
  options: BuildAppOptions;
  database: Database;
  db: Db;
  log: FastifyBaseLogger;
  /** The activity log (src/server/modules/audit), written by every module. */
  audit: AuditLog;
  /** The key kept secrets are sealed with, and the box that seals them (tokens, MFA secrets, HMRC credentials). */
  encryptionKey: Buffer;
  box: SecretBox;
  /** Who asks: the session store, and who asks kept in memory between requests (issue 32). */
  sessions: SessionStore;
  principals: PrincipalCache<PrincipalRow>;
  /** Organisations and memberships, which organisation a request works on, and Xero's bytes counted. */
  orgs: OrganizationsRepository;
  resolveTenant: ResolveTenant;
  egress: EgressMeter;
  /** Xero: OAuth and its callback addresses, the tokens, the one HTTP client, the port built on it. */
  oauth: XeroOAuth;
  redirectUris: { connect: string; signin: string };
  tokens: TokenStore;
  /** Who says a connection found lost (expired or revoked, issue 45 item 2): the Xero connection module. */
  onConnectionLost(handler: (userId: number, reason: TokenLossReason) => Promise<void>): void;
  xeroHttp: XeroHttp;
  xero: XeroPort;
  /** On PostgreSQL, Xero's limits kept together by the instances (shared-gate.ts); none on PGlite. */
  sharedGates: SharedGates | undefined;
  metrics: AppMetrics;
  /** Xero's webhooks: the signing key (none: every refresh asks Xero), their health, their processor. */
  webhookKey: string | undefined;
  webhookHealth: WebhookHealthService;
  webhooks: WebhookProcessor;
  /** The cache of Xero data and its sync; what the ledger settled without its request, read into it. */
  sync: XeroSync;
  catchUp: WriteCatchUp;
  /** Every money write to Xero (decision 015). */
  ledger: WriteLedger;
  /** Live screens (the webhooks' changes told to open pages), and serialised cached answers. */
  live: LiveEvents;
  bodies: BodyCache;
}

/** A page of the client whose first data is asked of Xero as its HTML leaves (issue 32, wiring/page-data.ts). */
export interface PageData {
  path: string;
  feature: FeatureKey;
  start(ctx: RequestContext): Promise<void>;
}

/**
 * What a module's entry answers; each field only where the module has one. wiring.ts reads them in one place
 * each: the routes in registerModules, the jobs in its one job list, the kinds of Xero write in one list
 * (decision 015), start and close in the app's start and stop.
 */
export interface ModuleEntry {
  /** What another module may be handed, explicitly, by wiring.ts. */
  service?: unknown;
  /** Registers the module's routes on the app (nothing else): called once, in the order wiring.ts lists. */
  register?(app: FastifyInstance): void;
  /** The module's background jobs (lib/jobs.ts): a name, an interval, one run at a time. */
  jobs?: Job[];
  /** Its kinds of Xero write: how a lost answer is found, a resend kept single, a held one sent again. */
  writeKinds?: readonly WriteKindHandlers[];
  /** The steps of its intents (run when an intent's step was left unsent, hooks run on a confirmed write). */
  writeSteps?: readonly WriteStepHandlers[];
  /** Its writes that never go to Xero, settled from the database (issue 44). */
  localKinds?: readonly LocalKindHandlers[];
  /** Its pages whose first data starts with their HTML. */
  pageData?: PageData;
  /** When the app is ready, and when it closes (after the jobs have stopped). */
  start?(): Promise<void>;
  close?(): Promise<void>;
}
