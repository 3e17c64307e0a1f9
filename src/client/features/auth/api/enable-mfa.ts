import { useMutation, useQueryClient } from '@tanstack/react-query';
import { mfaEnableResponseSchema, type MfaEnableRequest, type MfaEnableResponse } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { MFA_STATUS_QUERY_KEY } from './get-mfa-status';

/** POST /api/auth/mfa/enable: turns it on; the answer holds the recovery codes, shown this once. */
export function enableMfa(body: MfaEnableRequest): Promise<MfaEnableResponse> {
  return api.post(apiPaths.mfaEnable, body, { schema: mfaEnableResponseSchema });
}

export function useEnableMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: enableMfa,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MFA_STATUS_QUERY_KEY }),
  });
}
