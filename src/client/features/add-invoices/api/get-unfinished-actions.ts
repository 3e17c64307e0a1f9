import { queryOptions, useQuery } from '@tanstack/react-query';
import { unfinishedDraftActionsSchema, type UnfinishedDraftAction } from '@/shared/add-invoices';
import { api } from '@/client/lib/api-client';
import { orgUrl, type OrgId } from '@/client/lib/org-url';
import { addInvoicesKeys } from './query-keys';

/**
 * GET /api/xero/draft-invoices/unfinished (issue 28): this user's changes Ledgerlink could not finish on its
 * own (a cash payment Xero refused after the approval, an approval whose outcome is not known), waiting for
 * an administrator under Admin → Needs review.
 */
export function getUnfinishedActions(orgId: OrgId): Promise<UnfinishedDraftAction[]> {
  return api.get(orgUrl('/api/xero/draft-invoices/unfinished', orgId), {
    schema: unfinishedDraftActionsSchema,
  });
}

export const unfinishedActionsQueryOptions = (orgId: OrgId) =>
  queryOptions({
    queryKey: addInvoicesKeys.unfinished(orgId),
    queryFn: () => getUnfinishedActions(orgId),
    staleTime: 0,
  });

export function useUnfinishedActions(orgId: OrgId) {
  return useQuery(unfinishedActionsQueryOptions(orgId));
}
