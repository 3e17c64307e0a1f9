import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminOrganizationSchema, createFeatureTogglePatch, type AdminOrganization } from '@/shared/admin';
import type { FeatureFlagField } from '@/shared/feature-flags';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { queryKeys } from '@/client/lib/query-client';
import { adminKeys } from './query-keys';

export const FEATURE_TOGGLE_MUTATION_KEY = ['admin', 'features'] as const;

export interface FeatureToggle {
  organizationId: number;
  field: FeatureFlagField;
  enabled: boolean;
}

/**
 * PATCH /api/admin/organizations/{orgId}/features with one flag and its boolean (docs/product/shell.md §7).
 */
export function updateOrganizationFeatures({
  organizationId,
  field,
  enabled,
}: FeatureToggle): Promise<AdminOrganization> {
  return api.patch(
    apiPaths.adminOrganizationFeatures(organizationId),
    createFeatureTogglePatch(field, enabled),
    { schema: adminOrganizationSchema },
  );
}

/**
 * Toggling a feature updates the row at once and then sends the change (docs/product/shell.md §4 Admin); a
 * refusal puts the row back. Afterwards this browser's own connection and organisations are read again, so
 * its menu, cards and pages follow the new flag straight away.
 */
export function useUpdateOrganizationFeatures() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: FEATURE_TOGGLE_MUTATION_KEY,
    mutationFn: updateOrganizationFeatures,
    onMutate: async ({ organizationId, field, enabled }) => {
      await queryClient.cancelQueries({ queryKey: adminKeys.organizations });
      const previous = queryClient.getQueryData<AdminOrganization[]>(adminKeys.organizations);
      queryClient.setQueryData<AdminOrganization[]>(adminKeys.organizations, (rows) =>
        rows?.map((row) => (row.id === organizationId ? { ...row, [field]: enabled } : row)),
      );
      return { previous };
    },
    onError: (_error, _toggle, context) => {
      if (context?.previous) queryClient.setQueryData(adminKeys.organizations, context.previous);
    },
    onSuccess: (updated) => {
      queryClient.setQueryData<AdminOrganization[]>(adminKeys.organizations, (rows) =>
        rows?.map((row) => (row.id === updated.id ? updated : row)),
      );
    },
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.connection }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations }),
      ]);
    },
  });
}
