import type { AccountsPort, XeroAccountRecord } from '../xero-port';
import { toAccountRow } from '../sync/mappers';
import type { XeroHttp } from './http';
import { xeroAccountsEnvelope } from './schemas';

/**
 * Every bank account Xero has for the organisation, whatever its status (docs/xero-api.md §4.4:
 * `GET /Accounts` with a `where` filter, not paged). One read call; the bank-account clean-up compares the
 * cache with it.
 */
export function createAccountsHttp(http: XeroHttp): AccountsPort {
  return {
    async listBank(ctx) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Accounts',
        query: { where: 'Type=="BANK"' },
        schema: xeroAccountsEnvelope,
      });
      return data.Accounts.map((a): XeroAccountRecord => {
        const { organizationId: _organizationId, ...row } = toAccountRow(0, a);
        return row;
      });
    },
  };
}
