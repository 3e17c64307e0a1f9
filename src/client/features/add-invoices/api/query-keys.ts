/**
 * Query keys of Add Invoices. They start with the organisation (STYLE §2), so one tenant's drafts are never
 * shown for another after a switch.
 */
export type OrgId = number | string;

export const addInvoicesKeys = {
  all: (orgId: OrgId) => ['org', orgId, 'add-invoices'] as const,
  drafts: (orgId: OrgId) => ['org', orgId, 'add-invoices', 'drafts'] as const,
  defaults: (orgId: OrgId) => ['org', orgId, 'add-invoices', 'defaults'] as const,
};

/** `?organizationId=` pins a call to the organisation the screen shows (the server checks it is the user's). */
export function withOrganization(
  path: string,
  orgId: OrgId,
  extra: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams({ organizationId: String(orgId) });
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, value);
  return `${path}?${params.toString()}`;
}

/** One key per user action (Process, Process All batch, Create), reused only by that request's retries. */
export function createIdempotencyKey(): string {
  return crypto.randomUUID();
}
