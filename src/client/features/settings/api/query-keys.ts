/**
 * Query keys of the settings screen. They start with the organisation (STYLE §2), so data of one tenant is
 * never shown for another after a switch.
 */
export type OrgId = number | string;

export const settingsKeys = {
  all: (orgId: OrgId) => ['org', orgId, 'settings'] as const,
  list: (
    orgId: OrgId,
    name:
      | 'bank-accounts'
      | 'sales-accounts'
      | 'vat-rates'
      | 'bill-accounts'
      | 'asset-accounts'
      | 'cost-accounts'
      | 'contact-groups',
  ) => ['org', orgId, 'settings', name] as const,
  contacts: (orgId: OrgId, search: string, ids: readonly string[]) =>
    ['org', orgId, 'settings', 'contacts', { search, ids }] as const,
};

/** `?org=` and `?refresh=true`, as every settings endpoint reads them. */
export function withOrg(path: string, orgId: OrgId, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams({ org: String(orgId) });
  for (const [key, value] of Object.entries(extra))
    if (value !== undefined && value !== '') params.set(key, value);
  return `${path}?${params.toString()}`;
}
