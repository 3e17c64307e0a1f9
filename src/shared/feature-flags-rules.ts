/**
 * The feature keys, labels and flag rules without zod: the client's first screen (header, menu, router)
 * imports them, and zod stays out of its download (bench/results.md §3). The schemas live in
 * `feature-flags.ts`, which re-exports everything here.
 */

/**
 * One feature key everywhere: folder, URL segment, flag key and query-key segment (docs/code-style.md §5).
 */
export const FEATURE_KEYS = ['pay-invoices', 'add-invoices', 'cis-bills', 'stock-journal'] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

/** The connection / organisation flag that carries each feature (docs/product/shell.md §3). */
export const FEATURE_FLAG_FIELDS = {
  'pay-invoices': 'featurePayInvoices',
  'add-invoices': 'featureAddInvoices',
  'cis-bills': 'featureCisBills',
  'stock-journal': 'featureStockJournal',
} as const satisfies Record<FeatureKey, string>;

export const FEATURE_FLAG_FIELD_NAMES = [
  'featurePayInvoices',
  'featureAddInvoices',
  'featureCisBills',
  'featureStockJournal',
] as const;
export type FeatureFlagField = (typeof FEATURE_FLAG_FIELD_NAMES)[number];

/** Flags as they may arrive on the wire: any of them may be missing or null. */
type PartialFeatureFlags = Partial<Record<FeatureFlagField, boolean | null | undefined>>;

/** User-visible names (menu entries, card buttons, admin table). */
export const FEATURE_LABELS: Record<FeatureKey, string> = {
  'pay-invoices': 'Pay Invoices',
  'add-invoices': 'Add Invoices',
  'cis-bills': 'CIS Bills',
  'stock-journal': 'Stock Journal',
};

/** The screen path of each feature (docs/product/shell.md §2). */
export const FEATURE_PATHS = {
  'pay-invoices': '/invoices',
  'add-invoices': '/add-invoices',
  'cis-bills': '/cis-invoices',
  'stock-journal': '/stock-journal',
} as const satisfies Record<FeatureKey, string>;

/** Flag on one source (organisation or connection); missing means false. */
export function isFeatureEnabled(
  flags: PartialFeatureFlags | null | undefined,
  feature: FeatureKey,
): boolean {
  return flags?.[FEATURE_FLAG_FIELDS[feature]] === true;
}

/**
 * A flag on the active organisation takes precedence over the connection's flag; the default is false
 * (docs/product/shell.md §3).
 */
export function resolveFeatureFlag(
  feature: FeatureKey,
  activeOrganization: PartialFeatureFlags | null | undefined,
  connection: PartialFeatureFlags | null | undefined,
): boolean {
  const field = FEATURE_FLAG_FIELDS[feature];
  const fromOrg = activeOrganization?.[field];
  if (typeof fromOrg === 'boolean') return fromOrg;
  return connection?.[field] === true;
}

/** All four flags with the precedence rule applied. */
export function resolveFeatureFlags(
  activeOrganization: PartialFeatureFlags | null | undefined,
  connection: PartialFeatureFlags | null | undefined,
): Record<FeatureKey, boolean> {
  return {
    'pay-invoices': resolveFeatureFlag('pay-invoices', activeOrganization, connection),
    'add-invoices': resolveFeatureFlag('add-invoices', activeOrganization, connection),
    'cis-bills': resolveFeatureFlag('cis-bills', activeOrganization, connection),
    'stock-journal': resolveFeatureFlag('stock-journal', activeOrganization, connection),
  };
}
