import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { CisContact } from '@/shared/cis-bills';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { getCisContacts, useCisContacts } from '../api/get-cis-contacts';
import { getDirectCostsAccounts, useDirectCostsAccounts } from '../api/get-direct-costs-accounts';
import { cisBillsKeys } from '../api/query-keys';

/**
 * What the Create CIS Bills card picks from: the CIS subcontractors and the direct-costs accounts, each with
 * a refresh that reads Xero again and says how it went.
 */
export function useBillLists(orgId: number) {
  const queryClient = useQueryClient();
  const contacts = useCisContacts(orgId);
  const accounts = useDirectCostsAccounts(orgId);
  const [isRefreshingAccounts, setRefreshingAccounts] = useState(false);
  const [isRefreshingContacts, setRefreshingContacts] = useState(false);

  const contactList: CisContact[] = useMemo(() => contacts.data ?? [], [contacts.data]);
  const accountList = useMemo(() => accounts.data ?? [], [accounts.data]);

  const contactsFailed = contacts.isError;
  useEffect(() => {
    if (contactsFailed)
      toast({
        title: 'Failed to fetch CIS subcontractors',
        description: getMessage(contacts.error, 'Please try again.'),
        variant: 'destructive',
      });
  }, [contactsFailed, contacts.error]);

  async function refreshAccounts() {
    setRefreshingAccounts(true);
    try {
      const fresh = await getDirectCostsAccounts(orgId, { refresh: true });
      queryClient.setQueryData(cisBillsKeys.accounts(orgId), fresh);
    } catch (error) {
      toast({
        title: 'Error Refreshing Accounts',
        description: getMessage(error, 'Could not refresh the accounts from Xero.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingAccounts(false);
    }
  }

  async function refreshContacts() {
    setRefreshingContacts(true);
    try {
      const fresh = await getCisContacts(orgId, { refresh: true });
      queryClient.setQueryData(cisBillsKeys.contacts(orgId), fresh);
      toast({
        title: 'Subcontractors Refreshed',
        description: 'Read again from Xero; CIS settings of changed subcontractors are checked again.',
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Failed to fetch CIS subcontractors',
        description: getMessage(error, 'Please try again.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingContacts(false);
    }
  }

  return {
    contacts: contactList,
    isLoadingContacts: contacts.isLoading || isRefreshingContacts,
    isRefreshingContacts,
    refreshContacts: () => void refreshContacts(),
    accounts: accountList,
    isLoadingAccounts: accounts.isLoading || (isRefreshingAccounts && accountList.length === 0),
    isAccountsError: accounts.isError,
    isAccountsBusy: accounts.isFetching || isRefreshingAccounts,
    refreshAccounts: () => void refreshAccounts(),
  };
}
