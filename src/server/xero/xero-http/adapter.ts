import type { XeroConnectionsPort, XeroPort, XeroTenantConnection } from '../xero-port';
import { createAddInvoicesXero } from './add-invoices';
import { createBillsHttp, createContactsHttp } from './cis-bills';
import type { XeroHttp } from './http';
import { createPayInvoicesXero } from './pay-invoices';
import { xeroConnectionsSchema } from './schemas';
import { createAccountsHttp } from './settings';
import { createJournalsHttp, createSalesHttp } from './stock-journal';

/**
 * The Xero port over HTTP, every part of it built here, once, by the app's wiring site: each part maps Xero's
 * shapes to ours (xero-port.ts).
 */
export function createXeroPort(http: XeroHttp): XeroPort {
  return {
    connections: createConnectionsHttp(http),
    payInvoices: createPayInvoicesXero(http),
    addInvoices: createAddInvoicesXero(http),
    bills: createBillsHttp(http),
    contacts: createContactsHttp(http),
    journals: createJournalsHttp(http),
    sales: createSalesHttp(http),
    accounts: createAccountsHttp(http),
  };
}

/** The user's connections (`/connections`, docs/xero-api.md §2): organisations only. */
function createConnectionsHttp(http: XeroHttp): XeroConnectionsPort {
  return {
    async listConnections(userId) {
      const { data } = await http.send(userId, null, {
        method: 'GET',
        path: '/connections',
        schema: xeroConnectionsSchema,
      });
      return data
        .filter((c) => c.tenantType === 'ORGANISATION')
        .map((c): XeroTenantConnection => ({
          connectionId: c.id,
          tenantId: c.tenantId,
          tenantName: c.tenantName ?? null,
          tenantType: c.tenantType,
        }));
    },
    async deleteConnection(userId, connectionId) {
      await http.send(userId, null, {
        method: 'DELETE',
        path: `/connections/${encodeURIComponent(connectionId)}`,
      });
    },
  };
}
