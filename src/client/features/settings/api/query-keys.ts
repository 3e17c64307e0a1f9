/**
 * Query keys of the settings screen. They start with the organisation (docs/code-style.md §2), so data of one
 * tenant is never shown for another after a switch.
 */
import type { OrgId } from '@/client/lib/org-url';

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
