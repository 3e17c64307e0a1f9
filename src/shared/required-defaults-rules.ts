/**
 * Which Settings defaults each feature needs before its first action works (issue 33): in live mode nothing
 * is prepared, so a screen says which are missing before the user types anything, with a link to the
 * Settings field, instead of refusing after Process. Zod-free: the feature screens import it.
 */
import type { DefaultIdField } from './connection-rules';
import type { FeatureKey } from './feature-flags-rules';

interface RequiredDefault {
  field: DefaultIdField;
  /** The field's label on the Settings screen (`SETTING_FIELD_LABELS`). */
  label: string;
  /** What the feature cannot do without it, completing "Without a {label}, …". */
  without: string;
}

/**
 * The defaults each feature's actions use, in the order of the Settings screen. Pay Invoices needs none: it
 * falls back to the first card and cash accounts (docs/product/features.md §5 "Default accounts").
 */
export const REQUIRED_DEFAULTS: Record<FeatureKey, readonly RequiredDefault[]> = {
  'pay-invoices': [],
  'add-invoices': [
    {
      field: 'defaultCashAccountId',
      label: 'Cash account',
      without: 'cash amounts cannot be recorded',
    },
    {
      field: 'defaultSalesAccountId',
      label: 'Sales account',
      without: 'new invoices cannot be created',
    },
    {
      field: 'defaultContactId',
      label: 'Default contact',
      without: 'new invoices cannot be created',
    },
  ],
  'cis-bills': [
    {
      field: 'defaultBillAccountId',
      label: 'Bill account',
      without: 'bills cannot be approved',
    },
  ],
  'stock-journal': [
    {
      field: 'defaultStockJournalStockAccountId',
      label: 'Stock account',
      without: 'journals cannot be posted',
    },
    {
      field: 'defaultStockJournalCostAccountId',
      label: 'Cost account',
      without: 'journals cannot be posted',
    },
  ],
};

/** The feature's required defaults that are not set ("", null or absent) in `defaults`. */
export function findMissingDefaults(
  feature: FeatureKey,
  defaults: Partial<Record<DefaultIdField, string | null | undefined>> | null | undefined,
): RequiredDefault[] {
  return REQUIRED_DEFAULTS[feature].filter((r) => !defaults?.[r.field]?.trim());
}

/**
 * The required default a refusal names, for its toast's "Open Settings" (issue 33 item 6): the server says
 * "No default cash account is set … Choose a Default Cash Account in Settings"; null when the message does
 * not send the user to Settings or names none of the feature's defaults.
 */
export function findDefaultNamedIn(
  feature: FeatureKey,
  message: string | null | undefined,
): RequiredDefault | null {
  const text = message?.toLowerCase() ?? '';
  if (!/\bsettings\b/.test(text)) return null;
  return REQUIRED_DEFAULTS[feature].find((r) => text.includes(r.label.toLowerCase())) ?? null;
}
