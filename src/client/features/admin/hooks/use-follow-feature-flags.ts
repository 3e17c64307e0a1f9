import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { AdminOrganization } from '@/shared/admin';
import { FEATURE_FLAG_FIELD_NAMES } from '@/shared/feature-flags';
import { queryKeys } from '@/client/lib/query-client';
import { useAdminOrganizations } from '../api/get-admin-organizations';

function flagsSignature(rows: readonly AdminOrganization[] | undefined): string {
  return (rows ?? []).map((row) => `${row.id}:${FEATURE_FLAG_FIELD_NAMES.map((f) => (row[f] ? 1 : 0)).join('')}`).join('|');
}

/**
 * Polls the admin organisation list every 4 s while the user is an admin (000 §4), and when a flag changed
 * since the last answer (another administrator switched a feature), re-reads this browser's connection and
 * organisations, so its menu, organisation cards, pages and settings cards follow within the poll.
 */
export function useFollowFeatureFlags(isAdmin: boolean) {
  const queryClient = useQueryClient();
  const organizations = useAdminOrganizations(isAdmin);
  const previous = useRef<string | null>(null);
  const signature = organizations.data ? flagsSignature(organizations.data) : null;
  useEffect(() => {
    if (signature === null) return;
    if (previous.current !== null && previous.current !== signature) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
      void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
    }
    previous.current = signature;
  }, [signature, queryClient]);
}
