import { useMutation } from '@tanstack/react-query';
import { currentUserSchema, type CurrentUser } from '@/shared/auth';
import type { MfaVerifyRequest } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';
import { useSignedIn } from '@/client/lib/auth';

/** POST /api/auth/mfa/verify: the second step of a password sign-in (a code or a recovery code). */
export function verifyMfa(body: MfaVerifyRequest): Promise<CurrentUser> {
  return api.post(apiPaths.mfaVerify, body, { schema: currentUserSchema });
}

export function useVerifyMfa() {
  const signedIn = useSignedIn();
  return useMutation({ mutationFn: verifyMfa, onSuccess: signedIn });
}
