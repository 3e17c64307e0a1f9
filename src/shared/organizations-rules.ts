import { PROVIDER_NAME } from './connection-rules';

/**
 * Organisation names and the active-organisation rule without zod: the client's first screen (the header's
 * switcher) imports them, and zod stays out of its download (bench/results.md §3). The schemas live in
 * `organizations.ts`, which re-exports everything here.
 */

export const UNKNOWN_ORGANIZATION_NAME = 'Unknown Organization';

export function getOrganizationName(org: { tenantName?: string | null }): string {
  return org.tenantName?.trim() ? org.tenantName : UNKNOWN_ORGANIZATION_NAME;
}

/** Alphabetical by tenant name (docs/product/shell.md §2), case-insensitive, stable on ties. */
export function sortOrganizationsByName<T extends { tenantName?: string | null }>(orgs: readonly T[]): T[] {
  return [...orgs].sort((a, b) =>
    getOrganizationName(a).localeCompare(getOrganizationName(b), 'en-GB', { sensitivity: 'base' }),
  );
}

/** Validation messages of docs/product/shell.md §5 for setting the active organisation. */
export const ACTIVE_ORGANIZATION_ERRORS = {
  invalidId: 'Invalid organization ID',
  notFound: (id: string | number) => `Organization with ID ${id} not found`,
  notConnected: (name: string) => `Organization "${name}" is not connected to ${PROVIDER_NAME}`,
} as const;

type ActiveOrganizationCheck<T> =
  { ok: true; organization: T; tokenExpired: boolean } | { ok: false; message: string };

/**
 * The organisation must exist in the list and be connected; the id must be a non-empty string (or a
 * number). An expired token only warns (`tokenExpired`) and still allows the selection.
 */
export function checkActiveOrganizationChoice<
  T extends {
    organizationId: number;
    tenantName?: string | null;
    connected: boolean;
    hasValidToken: boolean;
  },
>(orgs: readonly T[], id: unknown): ActiveOrganizationCheck<T> {
  const text =
    typeof id === 'number' && Number.isFinite(id) ? String(id) : typeof id === 'string' ? id.trim() : '';
  if (text === '') return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.invalidId };
  const organization = orgs.find((org) => String(org.organizationId) === text);
  if (!organization) return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.notFound(text) };
  if (!organization.connected) {
    return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.notConnected(getOrganizationName(organization)) };
  }
  return { ok: true, organization, tokenExpired: !organization.hasValidToken };
}
