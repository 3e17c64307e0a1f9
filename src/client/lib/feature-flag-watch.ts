import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { apiPaths } from '@/client/config/paths';
import { FEATURE_FLAG_FIELD_NAMES } from '@/shared/feature-flags-rules';
import type { FeatureFlagsEntry } from '@/shared/organizations';
import { api } from './api-client';
import { lazySchema } from './lazy-schema';
import { queryKeys } from './query-client';

/**
 * The admin list poll of docs/product/shell.md §9: other browsers follow an administrator's switch within it.
 */
export const FEATURE_FLAG_POLL_MS = 4000;

function signatureOf(rows: readonly FeatureFlagsEntry[]): string {
  return rows
    .map((row) => `${row.organizationId}:${FEATURE_FLAG_FIELD_NAMES.map((f) => (row[f] ? 1 : 0)).join('')}`)
    .join('|');
}

/**
 * Watches the feature flags of the user's organisations (a small answer, polled every 4 s) and, when an
 * administrator changed one, re-reads the connection and the organisation list so the menu, the organisation
 * cards and the feature pages follow at once. The organisation list itself keeps the spec's cache policy
 * (no automatic refetch): it is only re-read when a flag really changed.
 */
export function useFeatureFlagWatch(enabled: boolean) {
  const queryClient = useQueryClient();
  const flags = useQuery({
    queryKey: ['feature-flags'],
    queryFn: () => api.get(apiPaths.featureFlags, { schema: lazySchema('featureFlagsResponseSchema') }),
    enabled,
    refetchInterval: FEATURE_FLAG_POLL_MS,
    refetchIntervalInBackground: false,
    retry: false,
  });
  const previous = useRef<string | null>(null);
  const signature = flags.data ? signatureOf(flags.data) : null;
  useEffect(() => {
    if (signature === null) return;
    if (previous.current !== null && previous.current !== signature) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
    }
    previous.current = signature;
  }, [signature, queryClient]);
}
