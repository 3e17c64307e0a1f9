import { z } from 'zod';

/**
 * Zod schemas for the parts of Xero's answers Ledgerlink reads (PascalCase stays inside xero-http).
 * Unknown fields are allowed through: Xero adds fields without notice.
 */
export const xeroConnectionSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  tenantType: z.string(),
  tenantName: z.string().nullish(),
  createdDateUtc: z.string().nullish(),
  updatedDateUtc: z.string().nullish(),
  authEventId: z.string().nullish(),
});
export const xeroConnectionsSchema = z.array(xeroConnectionSchema);
export type XeroConnection = z.infer<typeof xeroConnectionSchema>;
