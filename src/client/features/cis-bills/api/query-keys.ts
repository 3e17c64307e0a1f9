/**
 * Query keys of CIS Bills. They start with the organisation (docs/code-style.md §2), so one tenant's bills
 * are never shown for another after a switch, and the shell's switch invalidation (`['org']`) clears them.
 */
export const cisBillsKeys = {
  all: (orgId: number) => ['org', orgId, 'cis-bills'] as const,
  contacts: (orgId: number) => ['org', orgId, 'cis-bills', 'cis-contacts'] as const,
  accounts: (orgId: number) => ['org', orgId, 'cis-bills', 'direct-costs-accounts'] as const,
  drafts: (orgId: number) => ['org', orgId, 'cis-bills', 'draft-bills'] as const,
  /** Issue 42: the deductions and materials accounts and the reverse-charge setting. */
  setup: (orgId: number) => ['org', orgId, 'cis-bills', 'setup'] as const,
};
