import { z } from 'zod';
import { NOT_CONNECTED_REASONS } from './connection-rules';
import { webhookHealthSchema } from './webhook-health';

// Names and rules are zod-free so the client's first screen can import them without zod.
export * from './organizations-rules';

/** Xero calls left for this organisation, from the last answer's rate-limit headers. */
export const rateLimitsSchema = z.object({
  minuteRemaining: z.number().int().nullable(),
  dayRemaining: z.number().int().nullable(),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;

/** Data downloaded from Xero for this organisation in a month (UTC 'YYYY-MM'): Xero bills apps by egress. */
export const egressSchema = z.object({
  month: z.string().regex(/^\d{4}-\d{2}$/),
  bytes: z.number().int().nonnegative(),
});
export type Egress = z.infer<typeof egressSchema>;

/**
 * GET /api/user-organizations: one entry per organisation the user is linked to (docs/product/shell.md §3).
 */
export const userOrganizationSchema = z.object({
  /** Our numeric organisation id (docs/architecture.md §3). */
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
  /** This month's download from Xero, null before the first answer was counted. */
  downloadedThisMonth: egressSchema.nullish(),
  /** Live updates from Xero's webhooks, or the fallback to checking Xero on each refresh (decision 018). */
  liveUpdates: webhookHealthSchema.nullish(),
  /**
   * Beyond the spec (issue 45 item 1): why a membership is not connected ('disconnected' here, 'removed' in
   * Xero, 'not-included' in the last consent) and since when (ISO 8601); null when connected or not known.
   */
  notConnectedReason: z.enum(NOT_CONNECTED_REASONS).nullish(),
  notConnectedSince: z.string().nullish(),
  /** Xero refuses the user's tokens (issue 45 item 2): 'expired' or 'revoked'; null while they work. */
  lostReason: z.enum(['expired', 'revoked']).nullish(),
});
export type UserOrganization = z.infer<typeof userOrganizationSchema>;
export const userOrganizationsResponseSchema = z.array(userOrganizationSchema);

/** POST /api/xero/set-active-organization. */
export const setActiveOrganizationRequestSchema = z.object({
  organizationId: z.number().int().positive(),
});

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
