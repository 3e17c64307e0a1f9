import { formatCount } from '@/shared/counts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { isInvoiceAwaitingPayment, type Invoice, type InvoiceSyncStatus } from '@/shared/pay-invoices';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { getBankAccounts } from '../api/get-bank-accounts';
import { getInvoices, rememberInvoicesSync } from '../api/get-invoices';
import { payInvoicesKeys } from '../api/query-keys';
import { refreshInvoice } from '../api/refresh-invoice';
import { forceRefreshInvoices } from '../api/refresh-invoices';
import { updateInvoiceInList } from '../utils/invoice-cache';
import { describeInvoiceCount } from '../utils/messages';
import { markPartial } from '../utils/sync-progress';
import type { useOutOfSync } from './use-out-of-sync';

/**
 * The four refreshes of docs/product/features.md §4, each with its toasts: the list (what changed in Xero),
 * the invoice on screen, the whole cache (Force Refresh) and the bank accounts. A failed refresh of the
 * invoice on screen raises `hasRefreshError` until the user moves on or a refresh succeeds.
 */
export function useInvoiceRefreshes({
  orgId,
  sync,
  invoice,
  outOfSync,
}: {
  orgId: number;
  sync: InvoiceSyncStatus;
  invoice: Invoice | null;
  outOfSync: ReturnType<typeof useOutOfSync>;
}) {
  const queryClient = useQueryClient();
  const [hasRefreshError, setRefreshError] = useState(false);
  const [isRefreshingInvoice, setRefreshingInvoice] = useState(false);
  const [isRefreshingList, setRefreshingList] = useState(false);
  const [isRefreshingAccounts, setRefreshingAccounts] = useState(false);

  const refreshList = async () => {
    setRefreshingList(true);
    try {
      let freshSync: InvoiceSyncStatus = sync;
      const fresh = await getInvoices(orgId, {
        refresh: true,
        onSync: (value) => {
          freshSync = value;
          rememberInvoicesSync(queryClient, orgId, value);
        },
      });
      queryClient.setQueryData(payInvoicesKeys.invoices(orgId), fresh);
      toast({
        title: 'Invoices Refreshed',
        description: markPartial(
          describeInvoiceCount(fresh.filter(isInvoiceAwaitingPayment).length),
          freshSync,
        ),
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Refresh Failed',
        description: getMessage(error, 'Invoices could not be refreshed'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingList(false);
    }
  };

  /** Refresh Invoice; from the out-of-sync banner it also works once the invoice has left the list. */
  const refreshCurrent = async () => {
    const invoiceId = invoice?.invoiceId ?? outOfSync.outOfSyncInvoiceId;
    if (!invoiceId) {
      await refreshList();
      outOfSync.clear();
      return;
    }
    setRefreshingInvoice(true);
    try {
      const result = await refreshInvoice(orgId, invoiceId);
      updateInvoiceInList(queryClient, orgId, invoiceId, result.invoice);
      toast({
        title: 'Invoice Refreshed',
        description: 'Latest data from Xero has been loaded',
        variant: 'success',
      });
      outOfSync.clear();
      setRefreshError(false);
    } catch (error) {
      toast({
        title: 'Refresh Failed',
        description: getMessage(error, 'The invoice could not be refreshed'),
        variant: 'destructive',
      });
      setRefreshError(true);
    } finally {
      setRefreshingInvoice(false);
    }
  };

  const forceRefresh = async () => {
    setRefreshingList(true);
    try {
      const result = await forceRefreshInvoices(orgId);
      await queryClient.invalidateQueries({ queryKey: payInvoicesKeys.invoices(orgId) });
      toast({
        title: 'Cache Refreshed',
        description: `${formatCount(result.count, 'invoice')} loaded from Xero`,
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Force Refresh Failed',
        description: getMessage(error, 'The cache could not be refreshed'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingList(false);
    }
  };

  const refreshAccounts = async () => {
    setRefreshingAccounts(true);
    try {
      const fresh = await getBankAccounts(orgId, { refresh: true });
      queryClient.setQueryData(payInvoicesKeys.bankAccounts(orgId), fresh);
      const n = fresh.creditCardAccounts.length + fresh.cashAccounts.length;
      toast({
        title: 'Bank Accounts Refreshed',
        description: `${formatCount(n, 'bank account')} loaded from Xero`,
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Refresh Error',
        description: getMessage(error, 'Failed to get bank accounts'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingAccounts(false);
    }
  };

  return {
    refreshList: () => void refreshList(),
    refreshCurrent: () => void refreshCurrent(),
    forceRefresh: () => void forceRefresh(),
    refreshAccounts: () => void refreshAccounts(),
    isRefreshingList,
    isRefreshingInvoice,
    isRefreshingAccounts,
    hasRefreshError,
    clearRefreshError: () => setRefreshError(false),
  };
}
