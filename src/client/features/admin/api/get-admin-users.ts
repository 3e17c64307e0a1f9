import { queryOptions, useQuery } from '@tanstack/react-query';
import { adminUsersResponseSchema, type AdminUser } from '@/shared/admin';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { adminKeys } from './query-keys';

/** GET /api/admin/users (docs/product/shell.md §7). */
export function getAdminUsers(): Promise<AdminUser[]> {
  return api.get(apiPaths.adminUsers, { schema: adminUsersResponseSchema });
}

export const adminUsersQueryOptions = () =>
  queryOptions({ queryKey: adminKeys.users, queryFn: getAdminUsers });

export function useAdminUsers(isAdmin: boolean) {
  return useQuery({ ...adminUsersQueryOptions(), enabled: isAdmin });
}
