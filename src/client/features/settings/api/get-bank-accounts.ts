import { queryOptions, useQuery } from '@tanstack/react-query';
import { bankAccountsResponseSchema, type BankAccountsResponse } from '@/shared/pay-invoices';
import { settingsKeys } from './query-keys';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList } from './reference-list';

/**
 * The card and cash accounts the Pay Invoices defaults are chosen from. The settings screen reads them
 * through its own endpoint: `GET /api/xero/bank-accounts` belongs to Pay Invoices and answers only while
 * that feature is on, but the saved defaults should be readable whatever the flag.
 */
const PATH = '/api/xero/settings/bank-accounts';

const EMPTY: BankAccountsResponse = { creditCardAccounts: [], cashAccounts: [] };

export function getBankAccounts(orgId: OrgId, refresh = false): Promise<BankAccountsResponse> {
  return fetchReferenceList(PATH, bankAccountsResponseSchema, orgId, refresh);
}

export const bankAccountsQueryOptions = (orgId: OrgId) =>
  queryOptions({
    queryKey: settingsKeys.list(orgId, 'bank-accounts'),
    queryFn: async (): Promise<BankAccountsResponse> => {
      try {
        return await getBankAccounts(orgId);
      } catch (error) {
        console.warn('Could not load bank accounts', error);
        return EMPTY;
      }
    },
  });

export function useBankAccounts(orgId: OrgId | undefined) {
  return useQuery({ ...bankAccountsQueryOptions(orgId ?? 'none'), enabled: orgId !== undefined });
}
