import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminUnlockResponseSchema } from '@/shared/admin';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { adminKeys } from './query-keys';

/** POST /api/admin/users/{userId}/unlock: lifts the user's sign-in lock (too many failed attempts). */
export function unlockAdminUser({ userId }: { userId: number }): Promise<{ ok: true }> {
  return api.post(apiPaths.adminUserUnlock(userId), undefined, { schema: adminUnlockResponseSchema });
}

export function useUnlockAdminUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: unlockAdminUser,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: adminKeys.users });
    },
  });
}
