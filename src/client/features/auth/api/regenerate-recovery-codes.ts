import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import type { MfaEnableRequest } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { MFA_STATUS_QUERY_KEY } from './get-mfa-status';

const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });

/** POST /api/auth/mfa/recovery-codes: ten new codes (the old ones stop working), confirmed with a code. */
export async function regenerateRecoveryCodes(body: MfaEnableRequest): Promise<string[]> {
  return (await api.post(apiPaths.mfaRecoveryCodes, body, { schema: recoveryCodesSchema })).recoveryCodes;
}

export function useRegenerateRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: regenerateRecoveryCodes,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MFA_STATUS_QUERY_KEY }),
  });
}
