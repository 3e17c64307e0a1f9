import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminUserSchema, type AdminUser, type AdminUserPatch } from '@/shared/admin';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { queryKeys } from '@/client/lib/query-client';
import { adminKeys } from './query-keys';

/** PATCH /api/admin/users/{userId} with only the changed fields (docs/product/shell.md §4, §7). */
export function updateAdminUser({
  userId,
  patch,
}: {
  userId: number;
  patch: AdminUserPatch;
}): Promise<AdminUser> {
  return api.patch(apiPaths.adminUser(userId), patch, { schema: adminUserSchema });
}

export function useUpdateAdminUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAdminUser,
    onSuccess: async (updated) => {
      queryClient.setQueryData<AdminUser[]>(adminKeys.users, (rows) =>
        rows?.map((row) => (row.id === updated.id ? updated : row)),
      );
      await queryClient.invalidateQueries({ queryKey: adminKeys.users });
      // The signed-in user may have renamed or demoted themselves.
      await queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
      await queryClient.invalidateQueries({ queryKey: queryKeys.adminCheck });
    },
  });
}
