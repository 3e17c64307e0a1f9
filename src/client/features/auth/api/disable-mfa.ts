import { useMutation, useQueryClient } from '@tanstack/react-query';
import { mfaDisableResponseSchema, type MfaDisableRequest } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { MFA_STATUS_QUERY_KEY } from './get-mfa-status';

/** POST /api/auth/mfa/disable with a code from the app, a recovery code, or the password. */
export async function disableMfa(body: MfaDisableRequest): Promise<void> {
  await api.post(apiPaths.mfaDisable, body, { schema: mfaDisableResponseSchema });
}

export function useDisableMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: disableMfa,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MFA_STATUS_QUERY_KEY }),
  });
}
