import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  settingsUpdateResponseSchema,
  type SettingsUpdateRequestInput,
  type SettingsUpdateResponse,
} from '@/shared/settings';
import { api } from '@/client/lib/api-client';
import { saveDefaults, type Connection } from '@/client/lib/connection';
import { queryKeys } from '@/client/lib/query-client';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

/**
 * PATCH /api/xero/settings (docs/product/shell.md §7): the default fields of docs/product/shell.md §3 for the
 * organisation.
 */
export function updateSettings(
  orgId: OrgId,
  body: SettingsUpdateRequestInput,
): Promise<SettingsUpdateResponse> {
  return api.patch(orgUrl('/api/xero/settings', orgId), body, { schema: settingsUpdateResponseSchema });
}

/**
 * Save Settings: on success the connection is refreshed (docs/product/shell.md §7) and the saved defaults of
 * docs/product/shell.md §3/§4 are written to local storage at once, before the refreshed connection arrives.
 */
export function useUpdateSettings(orgId: OrgId | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsUpdateRequestInput) => {
      if (orgId === undefined) throw new Error('No active Xero connection found');
      return updateSettings(orgId, body);
    },
    onSuccess: async (saved) => {
      const current = queryClient.getQueryData<Connection>(queryKeys.connection);
      if (current && current.organizationId === saved.organizationId) {
        const next: Connection = { ...current, ...saved };
        saveDefaults(next);
        queryClient.setQueryData(queryKeys.connection, next);
      }
      await queryClient.invalidateQueries({ queryKey: queryKeys.connection });
    },
  });
}
