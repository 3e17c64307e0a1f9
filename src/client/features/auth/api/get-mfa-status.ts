import { queryOptions, useQuery } from '@tanstack/react-query';
import { mfaStatusSchema, type MfaStatus } from '@/shared/mfa';
import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';

/** The signed-in user's own data, not an organisation's: the key does not start with the tenant. */
export const MFA_STATUS_QUERY_KEY = ['account', 'mfa'] as const;

/** GET /api/auth/mfa: whether two-step sign-in is on, can be used, is compulsory, and recovery codes left. */
export function getMfaStatus(): Promise<MfaStatus> {
  return api.get(apiPaths.mfaStatus, { schema: mfaStatusSchema });
}

export const mfaStatusQueryOptions = () =>
  queryOptions({ queryKey: MFA_STATUS_QUERY_KEY, queryFn: getMfaStatus });

export function useMfaStatus() {
  return useQuery(mfaStatusQueryOptions());
}
