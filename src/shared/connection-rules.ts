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
  tenantName?: string | null | undefined;
  tenantId?: string | null | undefined;
  organizationId?: number | null | undefined;
  tokenExpiry?: string | null | undefined;
};

export function normalizeConnectionStatus(raw: ConnectionStatusFields): NormalizedConnectionStatus {
  return {
    connected: raw.connected,
    ...(raw.error ? { error: raw.error } : {}),
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
