/**
 * What the Settings feature needs from Xero's chart of accounts, in our vocabulary. The HTTP
 * implementation is in `xero-http/settings.ts`.
 */
import type { xeroAccounts } from '../db/schema/index.ts';
import type { XeroContext } from './xero-port';

/** An account as Xero holds it, as the accounts cache keeps it, without the organisation. */
export type XeroAccountRecord = Omit<typeof xeroAccounts.$inferInsert, 'organizationId'> & {
  accountId: string;
  status: string;
};

export interface AccountsPort {
  /** Every bank account Xero has for the organisation, whatever its status (one call, not paged). */
  listBank(ctx: XeroContext): Promise<XeroAccountRecord[]>;
}
