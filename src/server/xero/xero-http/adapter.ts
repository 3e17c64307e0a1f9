import type { XeroPort, XeroTenantConnection } from '../xero-port';
import type { XeroHttp } from './http';
import { xeroConnectionsSchema } from './schemas';

/** The Xero port over HTTP: maps Xero's shapes to ours. */
export function createXeroAdapter(http: XeroHttp): XeroPort {
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
