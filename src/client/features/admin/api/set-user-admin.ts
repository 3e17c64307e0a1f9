import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminUserSchema, type AdminUser } from '@/shared/admin';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { queryKeys } from '@/client/lib/query-client';
import { adminKeys } from './query-keys';

/** PATCH /api/admin/users/{userId}/admin {isAdmin}: grants or revokes admin (docs/product/shell.md §7). */
export function setUserAdmin({ userId, isAdmin }: { userId: number; isAdmin: boolean }): Promise<AdminUser> {
  return api.patch(apiPaths.adminUserAdmin(userId), { isAdmin }, { schema: adminUserSchema });
}

export function useSetUserAdmin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setUserAdmin,
    onSuccess: async (updated) => {
      queryClient.setQueryData<AdminUser[]>(adminKeys.users, (rows) =>
        rows?.map((row) => (row.id === updated.id ? updated : row)),
      );
      await queryClient.invalidateQueries({ queryKey: adminKeys.users });
      await queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
      await queryClient.invalidateQueries({ queryKey: queryKeys.adminCheck });
    },
  });
}
