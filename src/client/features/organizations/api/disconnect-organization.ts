import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';

/**
 * POST /api/xero/disconnect: removes Ledgerlink's connection to one organisation at Xero and here; its
 * history (activity log, recorded payments, bills and journals) stays (issue 33 item 4).
 */
export async function disconnectOrganization(organizationId: number): Promise<void> {
  await api.post(apiPaths.xeroDisconnect, { organizationId });
}
