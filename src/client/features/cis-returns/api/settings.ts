import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { cisSettingsSchema, type CisSettings, type CisSettingsRequest } from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

/** GET /api/xero/cis/settings: the contractor's references and the materials accounts. */
export function getCisSettings(orgId: number): Promise<CisSettings> {
  return api.get(orgUrl('/api/xero/cis/settings', orgId), { schema: cisSettingsSchema });
}

/** PUT /api/xero/cis/settings. */
export function updateCisSettings(orgId: number, settings: CisSettingsRequest): Promise<CisSettings> {
  return api.put(orgUrl('/api/xero/cis/settings', orgId), settings, { schema: cisSettingsSchema });
}

export const cisSettingsQueryOptions = (orgId: number) =>
  queryOptions({ queryKey: cisReturnsKeys.settings(orgId), queryFn: () => getCisSettings(orgId) });

export function useCisSettings(orgId: number) {
  return useQuery(cisSettingsQueryOptions(orgId));
}

export function useUpdateCisSettings(orgId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: CisSettingsRequest) => updateCisSettings(orgId, settings),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cisReturnsKeys.all(orgId) }),
  });
}
