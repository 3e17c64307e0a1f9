import { queryOptions, useIsMutating, useQuery } from '@tanstack/react-query';
import { adminOrganizationsResponseSchema, type AdminOrganization } from '@/shared/admin';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { adminKeys } from './query-keys';
import { FEATURE_TOGGLE_MUTATION_KEY } from './update-organization-features';

/** The organisation list is polled every 4 s while the user is an admin (docs/product/shell.md §4, §9). */
export const ADMIN_POLL_MS = 4000;

/** GET /api/admin/organizations (docs/product/shell.md §7). */
export function getAdminOrganizations(): Promise<AdminOrganization[]> {
  return api.get(apiPaths.adminOrganizations, { schema: adminOrganizationsResponseSchema });
}

export const adminOrganizationsQueryOptions = () =>
  queryOptions({ queryKey: adminKeys.organizations, queryFn: getAdminOrganizations });

/**
 * The admin organisation list, polled while the user is an admin. The poll pauses while a toggle is being
 * sent, so an answer read before the change cannot undo the optimistic row.
 */
export function useAdminOrganizations(isAdmin: boolean) {
  const toggling = useIsMutating({ mutationKey: FEATURE_TOGGLE_MUTATION_KEY }) > 0;
  return useQuery({
    ...adminOrganizationsQueryOptions(),
    enabled: isAdmin,
    refetchInterval: isAdmin && !toggling ? ADMIN_POLL_MS : false,
  });
}
