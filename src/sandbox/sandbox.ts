/**
 * The built-in Xero sandbox: Xero's identity service, /connections and the Accounting API subset
 * Ledgerlink uses, on one loopback port (docs/architecture.md §6, issue 3). The server starts it in demo mode
 * and tests start it on an ephemeral port; `npm run sandbox` runs it alone (main.ts).
 */
import { nextUpdated } from './runtime';
import path from 'node:path';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import type { JWK } from 'jose';
import { registerAttachmentRoutes } from './accounting/attachments';
import { registerContactRoutes } from './accounting/contacts';
import { registerCreditNoteRoutes } from './accounting/credit-notes';
import { registerInvoiceRoutes } from './accounting/invoices';
import { registerJournalRoutes } from './accounting/journals';
import { registerPaymentRoutes } from './accounting/payments';
import { installPipeline } from './accounting/pipeline';
import { registerSettingsRoutes } from './accounting/settings';
import { registerConnectionRoutes } from './connections';
import { registerControlRoutes, type SandboxControl } from './control';
import { Faults, type FaultConfig } from './faults';
import { IdempotencyStore } from './idempotency';
import { createSigningKeys, importSigningKeys, registerIdentityRoutes, revokeUserGrant } from './identity';
import { Ledger } from './ledger';
import { RateLimits } from './limits';
import { loadState, StateSaver } from './persistence';
import { createRandom } from './random';
import type { AutoConsent, Runtime, RuntimeSettings } from './runtime';
import { createPracticeSeed } from './seed-practice';
import { STATE_VERSION, type SandboxState } from './state';
import { approveInvoice, editContact, editInvoice, enterBill, payInvoice, voidInvoice } from './person';
import { allocateCreditNote, enterCreditNote, refundCreditNote, removePayment } from './person-credit';
import { WebhookSender, type WebhookConfig } from './webhooks';

export type { FaultConfig } from './faults';
export type { LedgerSnapshot, LedgerWrite } from './ledger';
export type { AutoConsent, RuntimeSettings } from './runtime';
export type { WebhookConfig, WebhookStatus } from './webhooks';
export type { InvoiceFacts, PersonPayment } from './person';
export type { SandboxControl, SandboxInfo } from './control';
export { SEED_NAMES } from './seed';

/** An OAuth app registered with the sandbox. */
export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Shown on the consent page; default "Ledgerlink". */
  name?: string;
}

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 5055; 0 = ephemeral (tests). */
  port?: number;
  /** State persisted under this folder (e.g. <DATA_DIR>/sandbox); null/undefined = in memory only. */
  dataDir?: string | null;
  /** Deterministic seed data, default 1. */
  seed?: number;
  /** SANDBOX_SCALE volume multiplier, default 1 (≈2,300 invoices; 10 ≈ 20,000), per organisation. */
  scale?: number;
  /**
   * SANDBOX_CLIENTS: this many client organisations for the owner beside the two demo ones, a practice's book
   * (issue 47, seed-practice.ts); each has 200 × scale sales invoices awaiting payment. Default 0.
   */
  practiceClients?: number;
  /** Default 1800. */
  accessTokenTtlSeconds?: number;
  /** How long a rotated refresh token can still be redeemed. Default 1800. */
  refreshGraceSeconds?: number;
  /** Unused refresh tokens expire after this. Default 60 days. */
  refreshTokenTtlSeconds?: number;
  /** Default 300. */
  codeTtlSeconds?: number;
  /** Per tenant; default 60. */
  minuteLimit?: number;
  /** Per tenant; default 5. */
  concurrentLimit?: number;
  /** Per tenant; default 5000 (Xero Starter: 1000). */
  dailyLimit?: number;
  /** Per app; default 10000. */
  appMinuteLimit?: number;
  /** Idempotency-Key replay window; default 360 (6 minutes). */
  idempotencyWindowSeconds?: number;
  /** Registered OAuth apps. */
  clients: SandboxClient[];
  logger?: boolean;
  /** Injectable clock for tests (default real time). */
  now?: () => Date;
  /** Faults active from the start. */
  faults?: FaultConfig;
  /** Authorizations approved at once as this user (same as POST /__sandbox/auto-consent). */
  autoConsent?: AutoConsent | null;
  /** Origin to publish (issuer) when it differs from http://host:port. */
  publicUrl?: string;
  /** A webhook subscription from the start (same as POST /__sandbox/webhooks). */
  webhooks?: WebhookConfig | null;
}

export interface Sandbox extends SandboxControl {
  /** Origin, e.g. http://127.0.0.1:5055; also the OIDC issuer. */
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
  /** Back to the seeded state (data, users, connections, tokens, ledger, limits, faults, clock). */
  reset(): Promise<void>;
  /** Write pending state to disk now. */
  flush(): Promise<void>;
  /** The live state, for white-box tests. Do not keep references across reset(). */
  readonly state: SandboxState;
}

function settingsFrom(options: SandboxOptions): RuntimeSettings {
  return {
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 1800,
    refreshGraceSeconds: options.refreshGraceSeconds ?? 1800,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 60 * 86_400,
    codeTtlSeconds: options.codeTtlSeconds ?? 300,
    minuteLimit: options.minuteLimit ?? 60,
    concurrentLimit: options.concurrentLimit ?? 5,
    dailyLimit: options.dailyLimit ?? 5000,
    appMinuteLimit: options.appMinuteLimit ?? 10_000,
    idempotencyWindowSeconds: options.idempotencyWindowSeconds ?? 360,
  };
}

async function freshState(
  seed: number,
  scale: number,
  practiceClients: number,
  nowMs: number,
  keys?: { privateJwk: JWK; publicJwk: JWK },
): Promise<SandboxState> {
  const { privateJwk, publicJwk } = keys ?? (await createSigningKeys());
  const seeded = createPracticeSeed(seed, scale, nowMs, practiceClients);
  return {
    version: STATE_VERSION,
    seed,
    scale,
    ...(practiceClients > 0 ? { practiceClients } : {}),
    seededAtMs: nowMs,
    identity: {
      privateJwk,
      publicJwk,
      users: seeded.users,
      connections: [],
      refreshTokens: [],
      accessTokens: [],
    },
    orgs: seeded.orgs,
  };
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 5055;
  const seed = options.seed ?? 1;
  const scale = options.scale ?? 1;
  const practiceClients = options.practiceClients ?? 0;
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : null;
  const baseNow = options.now ?? (() => new Date());
  let clockOffset = 0;
  const now = (): number => baseNow().getTime() + clockOffset;

  let state = dataDir ? await loadState(dataDir) : null;
  if (
    state &&
    (state.seed !== seed || state.scale !== scale || (state.practiceClients ?? 0) !== practiceClients)
  ) {
    console.warn(
      `[sandbox] stored state was seeded with seed ${state.seed} scale ${state.scale} clients ${state.practiceClients ?? 0}; reseeding with seed ${seed} scale ${scale} clients ${practiceClients}`,
    );
    state = null;
  }
  const loaded = state !== null;
  const initial = state ?? (await freshState(seed, scale, practiceClients, now()));
  const keys = await importSigningKeys(initial.identity.privateJwk, initial.identity.publicJwk);

  const random = createRandom(seed, 99);
  const ledger = new Ledger(now);
  const faults = new Faults(options.faults, () => random.next());
  const saver = new StateSaver(dataDir, () => rt.state);
  const rt: Runtime = {
    url: options.publicUrl ?? '',
    state: initial,
    settings: settingsFrom(options),
    clients: options.clients.map((c) => ({ ...c, redirectUris: [...c.redirectUris] })),
    keys,
    ledger,
    faults,
    autoConsent: options.autoConsent ?? null,
    pending: new Map(),
    codes: new Map(),
    now,
    markDirty: () => saver.markDirty(),
  };
  const webhooks = new WebhookSender(() => rt.url, now);
  rt.webhooks = webhooks;
  const limits = new RateLimits(() => rt.settings);
  const idempotency = new IdempotencyStore();

  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { caseSensitive: false },
    bodyLimit: 10 * 1024 * 1024,
  });
  await app.register(formbody);
  registerIdentityRoutes(app, rt);
  await app.register(async (scope) => registerConnectionRoutes(scope, rt));
  await app.register(
    async (scope) => {
      installPipeline(scope, { rt, limits, idempotency });
      registerSettingsRoutes(scope, rt);
      registerContactRoutes(scope, rt);
      registerInvoiceRoutes(scope, rt);
      registerCreditNoteRoutes(scope, rt);
      registerAttachmentRoutes(scope, rt);
      registerPaymentRoutes(scope, rt);
      registerJournalRoutes(scope, rt);
    },
    { prefix: '/api.xro/2.0' },
  );

  const userIdsFor = (email?: string): string[] =>
    rt.state.identity.users
      .filter((u) => !email || u.email.toLowerCase() === email.toLowerCase())
      .map((u) => u.userId);

  const control: SandboxControl = {
    info: () => ({
      url: rt.url,
      now: new Date(now()).toISOString(),
      seed: rt.state.seed,
      scale: rt.state.scale,
      orgs: rt.state.orgs.map((o) => ({
        tenantId: o.OrganisationID,
        name: o.Name,
        invoiceCount: o.invoices.length,
        ...(o.practiceKind ? { kind: o.practiceKind } : {}),
      })),
      users: rt.state.identity.users.map((u) => ({
        userId: u.userId,
        email: u.email,
        name: `${u.givenName} ${u.familyName}`,
        tenantIds: [...u.tenantIds],
      })),
      clients: rt.clients.map((c) => c.clientId),
      settings: { ...rt.settings },
    }),
    reset: async () => {
      clockOffset = 0;
      // Keep the signing keys: clients cache the JWKS.
      rt.state = await freshState(seed, scale, practiceClients, now(), {
        privateJwk: rt.state.identity.privateJwk,
        publicJwk: rt.state.identity.publicJwk,
      });
      rt.settings = settingsFrom(options);
      rt.autoConsent = options.autoConsent ?? null;
      rt.pending.clear();
      rt.codes.clear();
      faults.clear();
      if (options.faults) faults.set(options.faults);
      ledger.clear();
      limits.clear();
      idempotency.clear();
      saver.markDirty();
      await saver.flush();
    },
    getFaults: () => structuredClone(faults.config),
    setFaults: (f) => faults.set(f),
    clearFaults: () => faults.clear(),
    expireTokens: (email) => {
      const users = userIdsFor(email);
      let n = 0;
      for (const t of rt.state.identity.accessTokens) {
        if (users.includes(t.userId) && !t.forcedExpired) {
          t.forcedExpired = true;
          n++;
        }
      }
      rt.markDirty();
      return n;
    },
    setJournalStatus: (journalId, status) => {
      const allowed: Record<string, string[]> = { DRAFT: ['POSTED', 'DELETED'], POSTED: ['VOIDED'] };
      for (const org of rt.state.orgs) {
        const journal = org.journals.find((j) => j.ManualJournalID === journalId);
        if (!journal) continue;
        if (!(allowed[journal.Status] ?? []).includes(status)) {
          throw Object.assign(
            new Error(`The status of a ${journal.Status} manual journal cannot be changed to ${status}`),
            { statusCode: 400 },
          );
        }
        journal.Status = status;
        journal.updatedMs = nextUpdated(rt, journal.updatedMs);
        rt.markDirty();
        return journal.Status;
      }
      throw Object.assign(new Error(`Manual journal with ID '${journalId}' could not be found`), {
        statusCode: 404,
      });
    },
    payInvoice: (invoiceId, payment) => payInvoice(rt, invoiceId, payment),
    approveInvoice: (invoiceId) => approveInvoice(rt, invoiceId),
    enterBill: (bill) => enterBill(rt, bill),
    voidInvoice: (invoiceId) => voidInvoice(rt, invoiceId),
    removePayment: (paymentId) => removePayment(rt, paymentId),
    enterCreditNote: (note) => enterCreditNote(rt, note),
    allocateCreditNote: (creditNoteId, allocation) => allocateCreditNote(rt, creditNoteId, allocation),
    refundCreditNote: (creditNoteId, refund) => refundCreditNote(rt, creditNoteId, refund),
    editInvoice: (invoiceId, changes) => editInvoice(rt, invoiceId, changes),
    editContact: (contactId, changes) => editContact(rt, contactId, changes),
    getWebhooks: () => webhooks.status(),
    setWebhooks: (config) => webhooks.configure(config),
    flushWebhooks: () => webhooks.flush(),
    revokeTokens: (email) => {
      const users = userIdsFor(email);
      const pairs = new Set<string>();
      for (const t of rt.state.identity.refreshTokens)
        if (users.includes(t.userId) && !t.revoked) pairs.add(`${t.userId} ${t.clientId}`);
      for (const c of rt.state.identity.connections)
        if (users.includes(c.userId)) pairs.add(`${c.userId} ${c.clientId}`);
      for (const t of rt.state.identity.accessTokens) if (users.includes(t.userId)) t.revoked = true;
      for (const pair of pairs) {
        const [userId = '', clientId = ''] = pair.split(' ');
        revokeUserGrant(rt, userId, clientId);
      }
      rt.markDirty();
      return new Set([...pairs].map((p) => p.split(' ')[0])).size;
    },
    disconnectTenant: (tenantId, email) => {
      const users = userIdsFor(email);
      const ids = rt.state.identity;
      const before = ids.connections.length;
      ids.connections = ids.connections.filter(
        (c) => !(c.tenantId.toLowerCase() === tenantId.toLowerCase() && users.includes(c.userId)),
      );
      rt.markDirty();
      return before - ids.connections.length;
    },
    ledger: () => ledger.snapshot(),
    clearLedger: () => ledger.clear(),
    getAutoConsent: () => (rt.autoConsent ? { ...rt.autoConsent } : null),
    setAutoConsent: (consent) => {
      rt.autoConsent = consent;
    },
    now,
    advanceClock: (seconds) => {
      clockOffset += seconds * 1000;
    },
    setClock: (at) => {
      clockOffset = at.getTime() - baseNow().getTime();
    },
    setClockOffset: (ms) => {
      clockOffset = ms;
    },
    getSettings: () => ({ ...rt.settings }),
    configure: (settings) => {
      rt.settings = { ...rt.settings, ...settings };
    },
  };
  await app.register(async (scope) => registerControlRoutes(scope, control), { prefix: '/__sandbox' });

  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  rt.url = options.publicUrl ?? `http://${urlHost}:${actualPort}`;
  if (options.webhooks) webhooks.configure(options.webhooks);
  if (!loaded) {
    saver.markDirty();
    await saver.flush();
  }

  return {
    ...control,
    url: rt.url,
    app,
    get state() {
      return rt.state;
    },
    flush: async () => {
      saver.markDirty();
      await saver.flush();
    },
    close: async () => {
      webhooks.close();
      await saver.flush();
      await app.close();
    },
  };
}
