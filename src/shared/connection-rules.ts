/**
 * Connection texts and rules without zod: the client's first screen (header, connection indicator, gates)
 * imports them, and zod stays out of its download (bench/results.md §3). The schemas live in `connection.ts`,
 * which re-exports everything here.
 */

/** Xero's name in user-visible texts ("{provider}" in the spec). */
export const PROVIDER_NAME = 'Xero';

export const TAX_STATUSES = ['Tax inclusive', 'Tax exclusive', 'No tax'] as const;
export type TaxStatus = (typeof TAX_STATUSES)[number];

export const POSTING_STATUSES = ['draft', 'posted'] as const;
export type PostingStatus = (typeof POSTING_STATUSES)[number];

export const DEFAULT_TAX_STATUS: TaxStatus = 'Tax inclusive';
export const DEFAULT_STOCK_JOURNAL_MARGIN_RATE = 1.35;
export const DEFAULT_STOCK_JOURNAL_POSTING_STATUS: PostingStatus = 'draft';

/** The id-valued defaults of docs/product/shell.md §3, in the spec's order. */
export const DEFAULT_ID_FIELDS = [
  'defaultCreditCardAccountId',
  'defaultCashAccountId',
  'defaultSalesAccountId',
  'defaultVatRateId',
  'defaultBillVatRateId',
  'defaultBillAccountId',
  'defaultContactId',
  'defaultCisSubcontractorsGroupId',
  'defaultStockJournalContactId',
  'defaultStockJournalStockAccountId',
  'defaultStockJournalCostAccountId',
] as const;
export type DefaultIdField = (typeof DEFAULT_ID_FIELDS)[number];

/**
 * The connection defaults of docs/product/shell.md §3 as sent: every id ('' when not set), the tax and
 * posting statuses, the rate.
 */
export type ConnectionDefaults = Record<DefaultIdField, string> & {
  defaultTaxStatus: TaxStatus;
  defaultStockJournalMarginRate: number;
  defaultStockJournalPostingStatus: PostingStatus;
};

/** Stored defaults as a database row or an answer may hold them: any field missing or null. */
export type StoredDefaults = {
  [K in keyof ConnectionDefaults]?: ConnectionDefaults[K] | string | number | null;
};

const isOneOf = <T extends string>(options: readonly T[], value: unknown): value is T =>
  (options as readonly unknown[]).includes(value);

/**
 * Build the connection defaults from stored values (docs/product/shell.md §3): null or missing ids become "",
 * an unknown or missing tax status becomes "Tax inclusive", a missing or non-numeric margin rate 1.35, an
 * unknown posting status draft. The one mapping of the defaults: the server's connection status and settings
 * answers, the settings form and the client's connection status all go through it.
 */
export function toConnectionDefaults(stored: StoredDefaults | null | undefined): ConnectionDefaults {
  const source = stored ?? {};
  const ids = Object.fromEntries(
    DEFAULT_ID_FIELDS.map((field) => {
      const value = source[field];
      return [field, typeof value === 'string' ? value : ''];
    }),
  ) as Record<DefaultIdField, string>;
  const tax = source.defaultTaxStatus;
  const posting = source.defaultStockJournalPostingStatus;
  const rate = source.defaultStockJournalMarginRate;
  const numericRate = typeof rate === 'string' && rate.trim() !== '' ? Number(rate) : rate;
  return {
    ...ids,
    defaultTaxStatus: isOneOf(TAX_STATUSES, tax) ? tax : DEFAULT_TAX_STATUS,
    defaultStockJournalMarginRate:
      typeof numericRate === 'number' && Number.isFinite(numericRate)
        ? numericRate
        : DEFAULT_STOCK_JOURNAL_MARGIN_RATE,
    defaultStockJournalPostingStatus: isOneOf(POSTING_STATUSES, posting)
      ? posting
      : DEFAULT_STOCK_JOURNAL_POSTING_STATUS,
  };
}

/** Connection error texts the client reacts to (docs/product/shell.md §4, docs/architecture.md §4). */
export const CONNECTION_ERRORS = {
  noRefreshToken: 'No refresh token, reconnection required',
  refreshFailed: 'Token refresh failed',
  aboutToExpire: 'Token is about to expire',
  expired: 'Token has expired',
  notAuthenticated: 'Not authenticated',
  unknown: 'Unknown error getting connection status',
} as const;

/**
 * The connection status's error when the user has no Xero token at all: never connected (or every
 * organisation disconnected). The screens then offer "Connect to Xero", not "Reconnect" (issue 33 item 5).
 */
export const NEVER_CONNECTED_ERROR = 'Not connected to Xero';

/** The connection status's error when no organisation of the user's is connected (each disconnected). */
export const NO_CONNECTED_ORGANIZATION_ERROR =
  'No connected organization. Connect an organization to continue.';

/** Whether the status says the user has no Xero connection to renew: nothing was ever connected. */
export function isNeverConnected(
  status: { connected: boolean; error?: string | undefined } | undefined,
): boolean {
  return Boolean(status && !status.connected && status.error === NEVER_CONNECTED_ERROR);
}

/** The connection status with the spec's defaults applied: missing ids are '', flags are false. */
export interface NormalizedConnectionStatus {
  connected: boolean;
  error?: string;
  /** Why the connection was lost (issue 45), when the server said. */
  lostReason: ConnectionLossReason | null;
  tenantName: string;
  tenantId: string;
  organizationId: number | null;
  tokenExpiry: string | null;
  defaultCreditCardAccountId: string;
  defaultCashAccountId: string;
  defaultSalesAccountId: string;
  defaultVatRateId: string;
  defaultBillVatRateId: string;
  defaultBillAccountId: string;
  defaultContactId: string;
  defaultTaxStatus: TaxStatus;
  defaultCisSubcontractorsGroupId: string;
  defaultStockJournalContactId: string;
  defaultStockJournalMarginRate: number;
  defaultStockJournalStockAccountId: string;
  defaultStockJournalCostAccountId: string;
  defaultStockJournalPostingStatus: PostingStatus;
  featurePayInvoices: boolean;
  featureAddInvoices: boolean;
  featureCisBills: boolean;
  featureStockJournal: boolean;
}

/** The four feature switches of the connection status. */
type FeatureFlagField =
  'featurePayInvoices' | 'featureAddInvoices' | 'featureCisBills' | 'featureStockJournal';

/** A connection status as `connectionStatusSchema` (connection.ts) parses it: fields may be missing or null. */
type ConnectionStatusFields = StoredDefaults & {
  [K in FeatureFlagField]?: boolean | null | undefined;
} & {
  connected: boolean;
  error?: string | undefined;
  lostReason?: ConnectionLossReason | null | undefined;
  tenantName?: string | null | undefined;
  tenantId?: string | null | undefined;
  organizationId?: number | null | undefined;
  tokenExpiry?: string | null | undefined;
};

export function normalizeConnectionStatus(raw: ConnectionStatusFields): NormalizedConnectionStatus {
  return {
    connected: raw.connected,
    ...(raw.error ? { error: raw.error } : {}),
    lostReason: !raw.connected && isConnectionLossReason(raw.lostReason) ? raw.lostReason : null,
    tenantName: raw.tenantName ?? '',
    tenantId: raw.tenantId ?? '',
    organizationId: raw.organizationId ?? null,
    tokenExpiry: raw.tokenExpiry ?? null,
    ...toConnectionDefaults(raw),
    featurePayInvoices: raw.featurePayInvoices === true,
    featureAddInvoices: raw.featureAddInvoices === true,
    featureCisBills: raw.featureCisBills === true,
    featureStockJournal: raw.featureStockJournal === true,
  };
}

/** Under this much time left the token counts as expiring (docs/product/shell.md §9). */
export const TOKEN_EXPIRING_THRESHOLD_MS = 5 * 60 * 1000;

export type TokenStatus = 'valid' | 'expiring' | 'expired';

/**
 * No expiry or an expiry in the past means expired; under 5 minutes left means expiring
 * (docs/product/shell.md §4).
 */
export function getTokenStatus(
  tokenExpiry: string | null | undefined,
  now: number = Date.now(),
): TokenStatus {
  if (!tokenExpiry) return 'expired';
  const expiresAt = Date.parse(tokenExpiry);
  if (Number.isNaN(expiresAt) || expiresAt <= now) return 'expired';
  if (expiresAt - now < TOKEN_EXPIRING_THRESHOLD_MS) return 'expiring';
  return 'valid';
}

/**
 * Reconnection is needed when the error is "No refresh token, reconnection required" or "Token refresh
 * failed", or the message mentions a refresh token (docs/product/shell.md §4) or reconnection
 * (docs/product/shell.md §2, Connect page).
 */
export function isReconnectionRequired(error: string | null | undefined): boolean {
  if (!error) return false;
  if (error === CONNECTION_ERRORS.noRefreshToken || error === CONNECTION_ERRORS.refreshFailed) return true;
  const lower = error.toLowerCase();
  return lower.includes('refresh token') || lower.includes('reconnection required');
}

/**
 * Errors after which connection and organisation data are re-fetched automatically
 * (docs/product/shell.md §4).
 */
export function isTokenRefreshPending(error: string | null | undefined): boolean {
  return error === CONNECTION_ERRORS.aboutToExpire || error === CONNECTION_ERRORS.expired;
}

/**
 * Why a Xero connection was lost (issue 45 items 1 and 2), as the server found it:
 * - `expired`: Xero no longer honours the refresh token because it went unused for 60 days (Xero's OAuth FAQ,
 *   developer.xero.com/faq/oauth2; ../shared/xero-openapi/REFERENCE.md §2.2), or none was kept;
 * - `revoked`: Xero refused a refresh token that was in date: the grant was revoked (in Xero's Connected apps,
 *   or by revoking the token), which ends every organisation's connection at once;
 * - `removed`: Xero's GET /connections no longer lists the organisation: someone disconnected it from
 *   Ledgerlink in Xero while the others stay connected.
 */
export const CONNECTION_LOSS_REASONS = ['expired', 'revoked', 'removed'] as const;
export type ConnectionLossReason = (typeof CONNECTION_LOSS_REASONS)[number];

export function isConnectionLossReason(value: unknown): value is ConnectionLossReason {
  return (CONNECTION_LOSS_REASONS as readonly unknown[]).includes(value);
}

/**
 * The one wording of a lost connection (issue 45 item 2): the header, the reconnect screens, the Organizations
 * cards and banner, the activity log and the server's warning all say it in these words. `title` names what
 * happened; `past` finishes "Demo Shop Ltd was …"; `explanation` says what it means and what to do.
 */
export const CONNECTION_LOSS_TEXTS: Record<
  ConnectionLossReason,
  { title: string; past: string; explanation: string }
> = {
  expired: {
    title: 'Xero connection expired',
    past: 'no longer connected: its Xero connection expired',
    explanation:
      'Xero ends a connection that has not been used for 60 days, so Ledgerlink can no longer read or send anything. Reconnect to carry on; nothing has been changed.',
  },
  revoked: {
    title: 'Xero access revoked',
    past: 'no longer connected: Ledgerlink’s access was revoked in Xero',
    explanation:
      'Ledgerlink’s access was revoked in Xero, so it can no longer read or send anything. Reconnect to carry on; nothing has been changed.',
  },
  removed: {
    title: 'Removed in Xero',
    past: 'disconnected from Ledgerlink in Xero',
    explanation:
      'It was disconnected from Ledgerlink in Xero (Settings → Connected apps). Its history is kept; connect it again to use it.',
  },
};

/** The words for a lost connection whose cause is not known yet (an answer said so before the status did). */
export const CONNECTION_LOST_TEXT = {
  title: 'Xero connection lost',
  explanation:
    'Xero no longer accepts Ledgerlink’s connection. Reconnect to carry on; nothing has been changed.',
} as const;

/** Why an organisation is not connected, as the server records it (issue 45 item 1). */
export const NOT_CONNECTED_REASONS = ['disconnected', 'removed', 'not-included'] as const;
export type NotConnectedReason = (typeof NOT_CONNECTED_REASONS)[number];

/** "Demo Builders Ltd was not included in what you allowed in Xero": a consent that left it out. */
export function describeNotIncluded(names: readonly string[]): string {
  const list =
    names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
  return `${list} ${names.length > 1 ? 'were' : 'was'} not included in what you allowed in Xero`;
}

/**
 * The connection in one state (issue 45 item 2), from the status the server answers: every screen reads this,
 * never the error text itself.
 * - `connected`: with its token's state (docs/product/shell.md §4: valid, expiring, expired);
 * - `lost`: Xero refuses the user's connection (expired or revoked) or removed the active organisation;
 *   `reason` is null until the server has said why;
 * - `none`: connected once, but no organisation is connected now (each disconnected);
 * - `never`: nothing was ever connected;
 * - `unknown`: the status could not be read (or the session has ended).
 */
export type ConnectionState =
  | { kind: 'connected'; token: TokenStatus }
  | { kind: 'lost'; reason: ConnectionLossReason | null }
  | { kind: 'none' }
  | { kind: 'never' }
  | { kind: 'unknown' };

export function getConnectionState(
  status:
    | {
        connected: boolean;
        error?: string | undefined;
        tokenExpiry?: string | null | undefined;
        lostReason?: ConnectionLossReason | null | undefined;
      }
    | undefined,
  now: number = Date.now(),
): ConnectionState {
  if (!status) return { kind: 'unknown' };
  if (status.connected) return { kind: 'connected', token: getTokenStatus(status.tokenExpiry, now) };
  if (status.lostReason) return { kind: 'lost', reason: status.lostReason };
  if (isReconnectionRequired(status.error)) return { kind: 'lost', reason: null };
  if (status.error === NEVER_CONNECTED_ERROR) return { kind: 'never' };
  if (status.error === NO_CONNECTED_ORGANIZATION_ERROR) return { kind: 'none' };
  return { kind: 'unknown' };
}

/** The title and explanation of a lost connection, in the one wording. */
export function describeConnectionLoss(reason: ConnectionLossReason | null): {
  title: string;
  explanation: string;
} {
  return reason ? CONNECTION_LOSS_TEXTS[reason] : CONNECTION_LOST_TEXT;
}
