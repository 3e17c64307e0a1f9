import type { z } from 'zod';
import type { XeroHttp } from './http';
import { xeroAccountsEnvelope, type xeroAccountSchema } from './schemas';

/** The organisation whose data a settings call reads, and whose Xero token it uses. */
export interface SettingsXeroContext {
  organizationId: number;
  tenantId: string;
  userId: number;
}

export type XeroAccount = z.infer<typeof xeroAccountSchema>;

/**
 * Every bank account Xero has for the organisation, whatever its status (REFERENCE §4.4: `GET /Accounts`
 * with a `where` filter, not paged). One read call; the bank-account clean-up compares the cache with it.
 */
export async function fetchXeroBankAccounts(http: XeroHttp, ctx: SettingsXeroContext): Promise<XeroAccount[]> {
  const { data } = await http.send(ctx.userId, ctx.tenantId, {
    method: 'GET',
    path: '/api.xro/2.0/Accounts',
    query: { where: 'Type=="BANK"' },
    schema: xeroAccountsEnvelope,
  });
  return data.Accounts;
}
