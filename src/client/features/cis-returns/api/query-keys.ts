/**
 * Query keys of the CIS month-end. They start with the organisation (docs/code-style.md §2); live events of
 * changed invoices make `months` and `return` stale (src/client/lib/live-events.ts).
 */
export const cisReturnsKeys = {
  all: (orgId: number) => ['org', orgId, 'cis-returns'] as const,
  months: (orgId: number) => ['org', orgId, 'cis-returns', 'months'] as const,
  return: (orgId: number, period: string) => ['org', orgId, 'cis-returns', 'return', period] as const,
  settings: (orgId: number) => ['org', orgId, 'cis-returns', 'settings'] as const,
};
