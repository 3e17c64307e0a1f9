/** The shared context every sandbox module works with: state, clock, settings, keys, ledger, faults. */
import type { CryptoKey } from 'jose';
import type { Faults } from './faults';
import type { Ledger } from './ledger';
import type { WebhookSender } from './webhooks';
import type { OrgRec, SandboxState, UserRec } from './state';

export interface SandboxClientConfig {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  name?: string;
}

/** Settings that tests may change at run time through POST /__sandbox/config. */
export interface RuntimeSettings {
  accessTokenTtlSeconds: number;
  refreshGraceSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
  minuteLimit: number;
  concurrentLimit: number;
  dailyLimit: number;
  appMinuteLimit: number;
  idempotencyWindowSeconds: number;
}

export interface AutoConsent {
  email: string;
  tenants: 'all' | string[];
}

export interface PendingAuthorization {
  id: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string | undefined;
  createdMs: number;
  userId?: string;
}

export interface AuthCode {
  code: string;
  clientId: string;
  redirectUri: string;
  userId: string;
  scopes: string[];
  nonce: string | undefined;
  codeChallenge: string | undefined;
  authEventId: string;
  expMs: number;
  used: boolean;
}

export interface SigningKeys {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  kid: string;
}

export interface Runtime {
  url: string;
  state: SandboxState;
  settings: RuntimeSettings;
  clients: SandboxClientConfig[];
  keys: SigningKeys;
  ledger: Ledger;
  faults: Faults;
  autoConsent: AutoConsent | null;
  pending: Map<string, PendingAuthorization>;
  codes: Map<string, AuthCode>;
  /** Current time in ms (injected clock + run-time offset). */
  now(): number;
  /** Schedule a debounced save of the state. */
  markDirty(): void;
  /** Tells a subscribed app about changes, as Xero's webhooks do (src/sandbox/webhooks.ts). */
  webhooks?: Pick<WebhookSender, 'notify'>;
}

export function findOrg(rt: Runtime, tenantId: string): OrgRec | undefined {
  return rt.state.orgs.find((o) => o.OrganisationID === tenantId);
}

export function findUser(rt: Runtime, userId: string): UserRec | undefined {
  return rt.state.identity.users.find((u) => u.userId === userId);
}

/** A timestamp that moves forward on every change even under a frozen test clock. */
export function nextUpdated(rt: Runtime, previousMs: number): number {
  return Math.max(rt.now(), previousMs + 1);
}
