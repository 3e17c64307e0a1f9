import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { isInvoiceAwaitingPayment, type BankAccountsResponse } from '@/shared/pay-invoices';
import { paths } from '@/client/config/paths';
import { getMessage } from '@/client/lib/api-client';
import { isFeatureDisabled } from '@/client/lib/api-errors';
import { connectionQueryOptions } from '@/client/lib/connection';
import { queryKeys } from '@/client/lib/query-client';
import { toast } from '@/client/lib/toast';
import { PageHeader } from '@/client/components/layouts/page-header';
import { useBankAccounts, BANK_ACCOUNTS_ORG_CHANGE_DELAY_MS } from '../api/get-bank-accounts';
import { useInvoices, useInvoicesSync } from '../api/get-invoices';
import { payInvoicesKeys } from '../api/query-keys';
import { describeInvoiceCount } from '../utils/messages';
import { markPartial } from '../utils/sync-progress';
import { ConnectionErrorState, FeatureNotAvailableState, LoadingInvoicesState } from './page-states';
import { PayInvoicesWorkspace } from './pay-invoices-workspace';

const NO_ACCOUNTS: BankAccountsResponse = { creditCardAccounts: [], cashAccounts: [] };
/** Connection data on Pay Invoices is cached 30 s (docs/product/features.md §9). */
const CONNECTION_STALE_MS = 30_000;

/**
 * The Pay Invoices screen (docs/product/features.md §2): loads the invoices and bank accounts, then shows the
 * workspace or a state.
 */
export function PayInvoicesPage() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const { data: connection } = useQuery({ ...connectionQueryOptions(), staleTime: CONNECTION_STALE_MS });
  const orgId = connection?.organizationId ?? null;
  const invoicesQuery = useInvoices(orgId);
  const sync = useInvoicesSync(orgId);
  const accountsQuery = useBankAccounts(orgId);
  const [isRetrying, setRetrying] = useState(false);

  // 'Connection Error' when the invoices or the bank accounts fail to load (docs/product/features.md §8).
  const invoicesError = invoicesQuery.error;
  useEffect(() => {
    if (invoicesError && !isFeatureDisabled(invoicesError)) {
      toast({
        title: 'Connection Error',
        description: `Failed to load invoices: ${getMessage(invoicesError, 'Xero could not be reached')}`,
        variant: 'destructive',
      });
    }
  }, [invoicesError]);
  const accountsError = accountsQuery.error;
  useEffect(() => {
    if (accountsError && !isFeatureDisabled(accountsError.cause)) {
      toast({
        title: 'Connection Error',
        description: getMessage(accountsError, 'Failed to load bank accounts'),
        variant: 'destructive',
      });
    }
  }, [accountsError]);

  // Bank accounts are fetched again 0.5 s after the organisation changes (docs/product/features.md §9).
  const previousOrg = useRef(orgId);
  useEffect(() => {
    const before = previousOrg.current;
    previousOrg.current = orgId;
    if (before === null || orgId === null || before === orgId) return;
    const timer = setTimeout(() => {
      void queryClient.refetchQueries({ queryKey: payInvoicesKeys.bankAccounts(orgId) });
    }, BANK_ACCOUNTS_ORG_CHANGE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [orgId, queryClient]);

  const retry = async () => {
    setRetrying(true);
    try {
      await queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      await Promise.all([invoicesQuery.refetch(), accountsQuery.refetch()]);
    } finally {
      setRetrying(false);
    }
  };

  const awaiting = useMemo(
    () => (invoicesQuery.data ?? []).filter(isInvoiceAwaitingPayment),
    [invoicesQuery.data],
  );

  let content;
  if (orgId === null || invoicesQuery.isPending) {
    content = <LoadingInvoicesState />;
  } else if (invoicesQuery.isError) {
    content = isFeatureDisabled(invoicesQuery.error) ? (
      <FeatureNotAvailableState
        isRefreshing={isRetrying}
        onRefreshPermissions={() => {
          void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
          void retry();
        }}
        onReturn={() => navigate(paths.organizations.getHref())}
      />
    ) : (
      <ConnectionErrorState
        message={getMessage(invoicesQuery.error, 'Xero could not be reached')}
        onRetry={() => void retry()}
        isRetrying={isRetrying}
      />
    );
  } else {
    content = (
      <PayInvoicesWorkspace
        orgId={orgId}
        invoices={invoicesQuery.data}
        sync={sync}
        accounts={accountsQuery.data ?? NO_ACCOUNTS}
        isAccountsLoading={accountsQuery.isPending}
        connection={connection}
      />
    );
  }

  return (
    <div>
      <PageHeader
        title="Pay Invoices"
        description={
          invoicesQuery.data
            ? markPartial(describeInvoiceCount(awaiting.length), sync)
            : 'Record card and cash payments against outstanding sales invoices.'
        }
      />
      {content}
    </div>
  );
}
