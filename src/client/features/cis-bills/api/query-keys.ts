/**
 * Query keys of CIS Bills. They start with the organisation (STYLE §2), so one tenant's bills are never shown
 * for another after a switch, and the shell's switch invalidation (`['org']`) clears them.
 */
export const cisBillsKeys = {
  all: (orgId: number) => ['org', orgId, 'cis-bills'] as const,
  contacts: (orgId: number) => ['org', orgId, 'cis-bills', 'cis-contacts'] as const,
  accounts: (orgId: number) => ['org', orgId, 'cis-bills', 'direct-costs-accounts'] as const,
  drafts: (orgId: number) => ['org', orgId, 'cis-bills', 'draft-bills'] as const,
};

/**
 * Every call names the organisation the screen shows (`?org=`), so a switch made in another tab can never
 * create a bill in a different organisation than the one on screen; the server checks the user may use it.
 */
export function withOrg(path: string, orgId: number, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams({ org: String(orgId) });
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  return `${path}?${params.toString()}`;
}

/** One key per user action (Create, Save, Approve, Delete), reused only by that action's retries. */
export function createIdempotencyKey(): string {
  return crypto.randomUUID();
}
