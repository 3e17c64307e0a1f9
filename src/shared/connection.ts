import { z } from 'zod';
import { CONNECTION_LOSS_REASONS, POSTING_STATUSES, TAX_STATUSES } from './connection-rules';

// Texts and rules are zod-free so the client's first screen can import them without zod.
export * from './connection-rules';

export const taxStatusSchema = z.enum(TAX_STATUSES);
export const postingStatusSchema = z.enum(POSTING_STATUSES);

const optionalId = z.string().nullish();

/**
 * GET /api/xero/connection: the user's active organisation (docs/product/shell.md §3). Not every field is
 * always present; `normalizeConnectionStatus` applies the spec's defaults.
 */
export const connectionStatusSchema = z.object({
  connected: z.boolean(),
  error: z.string().optional(),
  tenantName: z.string().nullish(),
  tenantId: z.string().nullish(),
  /** Our numeric organisation id (docs/architecture.md §3). */
  organizationId: z.number().int().nullish(),
  /** ISO 8601 date-time of the access token's expiry. */
  tokenExpiry: z.string().nullish(),
  /**
   * Beyond the spec (issue 45): why the connection was lost, when it was: 'expired', 'revoked' (Xero refuses the
   * tokens) or 'removed' (no organisation is connected because Xero stopped listing them). The error text
   * stays the spec's.
   */
  lostReason: z.enum(CONNECTION_LOSS_REASONS).nullish(),
  defaultCreditCardAccountId: optionalId,
  defaultCashAccountId: optionalId,
  defaultSalesAccountId: optionalId,
  defaultVatRateId: optionalId,
  defaultBillVatRateId: optionalId,
  defaultBillAccountId: optionalId,
  defaultContactId: optionalId,
  defaultTaxStatus: taxStatusSchema.nullish(),
  defaultCisSubcontractorsGroupId: optionalId,
  defaultStockJournalContactId: optionalId,
  defaultStockJournalMarginRate: z.number().nullish(),
  defaultStockJournalStockAccountId: optionalId,
  defaultStockJournalCostAccountId: optionalId,
  defaultStockJournalPostingStatus: postingStatusSchema.nullish(),
  featurePayInvoices: z.boolean().nullish(),
  featureAddInvoices: z.boolean().nullish(),
  featureCisBills: z.boolean().nullish(),
  featureStockJournal: z.boolean().nullish(),
});
export type ConnectionStatus = z.infer<typeof connectionStatusSchema>;

/** GET /api/xero/connect and /api/xero/reconnect. */
export const xeroAuthUrlResponseSchema = z.object({
  url: z.string().min(1),
  cancelUrl: z.string().optional(),
});
