import { z } from 'zod';
import { FEATURE_FLAG_FIELD_NAMES, FEATURE_KEYS } from './feature-flags-rules';

// Keys, labels and rules are zod-free so the client's first screen can import them without zod.
export * from './feature-flags-rules';

export const featureKeySchema = z.enum(FEATURE_KEYS);
export const featureFlagFieldSchema = z.enum(FEATURE_FLAG_FIELD_NAMES);

/** The four flags; a missing flag means false (docs/product/shell.md §3). */
export const featureFlagsSchema = z.object({
  featurePayInvoices: z.boolean(),
  featureAddInvoices: z.boolean(),
  featureCisBills: z.boolean(),
  featureStockJournal: z.boolean(),
});
