import { z } from 'zod';
import { PROVIDER_NAME } from './connection';

export const UNKNOWN_ORGANIZATION_NAME = 'Unknown Organization';

/** Xero calls left for this organisation, from the last answer's rate-limit headers. */
export const rateLimitsSchema = z.object({
  minuteRemaining: z.number().int().nullable(),
  dayRemaining: z.number().int().nullable(),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;

/** GET /api/user-organizations: one entry per organisation the user is linked to (spec 000 §3). */
export const userOrganizationSchema = z.object({
  /** Our numeric organisation id (DESIGN §3). */
  organizationId: z.number().int(),
  tenantId: z.string(),
  tenantName: z.string().nullish(),
  connected: z.boolean(),
  hasValidToken: z.boolean(),
  isActive: z.boolean(),
  /** ISO 8601 date-time, or null when never. */
  lastAccessed: z.string().nullish(),
  /** ISO 8601 date-time of the access token's expiry. */
  tokenExpiry: z.string().nullish(),
  featurePayInvoices: z.boolean().nullish(),
  featureAddInvoices: z.boolean().nullish(),
  featureCisBills: z.boolean().nullish(),
  featureStockJournal: z.boolean().nullish(),
  rateLimits: rateLimitsSchema.nullish(),
});
export type UserOrganization = z.infer<typeof userOrganizationSchema>;
export const userOrganizationsResponseSchema = z.array(userOrganizationSchema);

/** POST /api/xero/set-active-organization. */
export const setActiveOrganizationRequestSchema = z.object({
  organizationId: z.number().int().positive(),
});
export type SetActiveOrganizationRequest = z.infer<typeof setActiveOrganizationRequestSchema>;

export function getOrganizationName(org: { tenantName?: string | null }): string {
  return org.tenantName?.trim() ? org.tenantName : UNKNOWN_ORGANIZATION_NAME;
}

/** Alphabetical by tenant name (spec 000 §2), case-insensitive, stable on ties. */
export function sortOrganizationsByName<T extends { tenantName?: string | null }>(orgs: readonly T[]): T[] {
  return [...orgs].sort((a, b) =>
    getOrganizationName(a).localeCompare(getOrganizationName(b), 'en-GB', { sensitivity: 'base' }),
  );
}

/** Validation messages of spec 000 §5 for setting the active organisation. */
export const ACTIVE_ORGANIZATION_ERRORS = {
  invalidId: 'Invalid organization ID',
  notFound: (id: string | number) => `Organization with ID ${id} not found`,
  notConnected: (name: string) => `Organization "${name}" is not connected to ${PROVIDER_NAME}`,
} as const;

export type ActiveOrganizationCheck<T> =
  | { ok: true; organization: T; tokenExpired: boolean }
  | { ok: false; message: string };

/**
 * The organisation must exist in the list and be connected; the id must be a non-empty string (or a
 * number). An expired token only warns (`tokenExpired`) and still allows the selection.
 */
export function checkActiveOrganizationChoice<
  T extends { organizationId: number; tenantName?: string | null; connected: boolean; hasValidToken: boolean },
>(orgs: readonly T[], id: unknown): ActiveOrganizationCheck<T> {
  const text = typeof id === 'number' && Number.isFinite(id) ? String(id) : typeof id === 'string' ? id.trim() : '';
  if (text === '') return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.invalidId };
  const organization = orgs.find((org) => String(org.organizationId) === text);
  if (!organization) return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.notFound(text) };
  if (!organization.connected) {
    return { ok: false, message: ACTIVE_ORGANIZATION_ERRORS.notConnected(getOrganizationName(organization)) };
  }
  return { ok: true, organization, tokenExpired: !organization.hasValidToken };
}

/**
 * GET /api/feature-flags: the four flags of every organisation the user is linked to. Cheap to poll, so every
 * signed-in browser follows an administrator's switch within the admin poll interval (4 s) without
 * re-fetching the organisation list, which the spec caches without expiry.
 */
export const featureFlagsEntrySchema = z.object({
  organizationId: z.number().int(),
  featurePayInvoices: z.boolean(),
  featureAddInvoices: z.boolean(),
  featureCisBills: z.boolean(),
  featureStockJournal: z.boolean(),
});
export type FeatureFlagsEntry = z.infer<typeof featureFlagsEntrySchema>;
export const featureFlagsResponseSchema = z.array(featureFlagsEntrySchema);
