import { useMutation } from '@tanstack/react-query';
import { mfaSetupResponseSchema, type MfaSetupResponse } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';

/** POST /api/auth/mfa/setup: a new key (QR code and text), not in use until a code confirms it. */
export function setupMfa(): Promise<MfaSetupResponse> {
  return api.post(apiPaths.mfaSetup, undefined, { schema: mfaSetupResponseSchema });
}

export function useSetupMfa() {
  return useMutation({ mutationFn: setupMfa });
}
