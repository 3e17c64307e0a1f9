import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearch } from 'wouter';
import type { CisReturnLine } from '@/shared/cis-returns';
import { getMessage } from '@/client/lib/api-client';
import { useUser } from '@/client/lib/auth';
import { toast } from '@/client/lib/toast';
import { getCisMonths, useCisMonths } from '../api/get-months';
import { getCisReturn, useCisReturn } from '../api/get-return';
import { cisReturnsKeys } from '../api/query-keys';
import { useCisSettings } from '../api/settings';
import { pickDefaultPeriod } from '../utils/months';

/**
 * The CIS Returns screen's state: the months, the month chosen (the newest ended one until someone picks), its
 * return, the settings, who asks, the subcontractor whose references are being edited, and the refresh from Xero.
 */
export function useCisReturnsPage(orgId: number) {
  const queryClient = useQueryClient();
  const months = useCisMonths(orgId);
  const user = useUser();
  const settings = useCisSettings(orgId);
  const [chosen, setChosen] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [editing, setEditing] = useState<CisReturnLine | null>(null);
  const list = months.data?.months ?? [];
  // A link may name the month (`?period=YYYY-MM`, the Today page's CIS return, issue 47).
  const linked = new URLSearchParams(useSearch()).get('period');
  const period =
    chosen ?? (linked && list.some((m) => m.period === linked) ? linked : null) ?? pickDefaultPeriod(list);
  const ret = useCisReturn(orgId, period);

  async function refresh() {
    setRefreshing(true);
    try {
      // Asks Xero what changed (bills paid meanwhile), then reads both answers from the fresh cache.
      const [freshMonths, freshReturn] = await Promise.all([
        getCisMonths(orgId, { refresh: true }),
        period ? getCisReturn(orgId, period, { refresh: true }) : Promise.resolve(null),
      ]);
      queryClient.setQueryData(cisReturnsKeys.months(orgId), freshMonths);
      if (period && freshReturn) queryClient.setQueryData(cisReturnsKeys.return(orgId, period), freshReturn);
    } catch (error) {
      toast({
        title: 'Error refreshing',
        description: getMessage(error, 'Please try again'),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(false);
    }
  }

  return {
    months,
    list,
    period,
    choose: setChosen,
    ret,
    settings,
    isAdmin: Boolean(user.data?.isAdmin),
    editing,
    edit: setEditing,
    refresh,
    refreshing,
  };
}
