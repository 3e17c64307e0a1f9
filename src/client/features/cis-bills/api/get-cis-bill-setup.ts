import { queryOptions, useQuery } from '@tanstack/react-query';
import { cisBillSetupSchema, type CisBillSetup } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisBillsKeys } from './query-keys';

/**
 * GET /api/xero/cis-bill-setup (beyond the spec, issue 42): where a bill's deduction and materials go, and
 * whether the reverse charge applies. Read each time the screen opens: it is chosen in Settings.
 */
export function getCisBillSetup(orgId: number): Promise<CisBillSetup> {
  return api.get(orgUrl('/api/xero/cis-bill-setup', orgId), { schema: cisBillSetupSchema });
}

export const cisBillSetupQueryOptions = (orgId: number) =>
  queryOptions({ queryKey: cisBillsKeys.setup(orgId), queryFn: () => getCisBillSetup(orgId), staleTime: 0 });

export function useCisBillSetup(orgId: number) {
  return useQuery(cisBillSetupQueryOptions(orgId));
}
