import { resolveFeatureFlags, type FeatureKey } from '@/shared/feature-flags-rules';
import { useConnection } from './connection';
import { useUserOrganizations } from './organizations';

/**
 * The four features for the active organisation: a flag on the active organisation takes precedence over
 * the connection's flag; the default is false (docs/product/shell.md §3). UX only: the server decides
 * (docs/code-style.md §2).
 */
export function useFeatureFlags(): { flags: Record<FeatureKey, boolean>; isLoading: boolean } {
  const connection = useConnection();
  const organizations = useUserOrganizations();
  const active = organizations.data?.find((org) => org.isActive);
  return {
    flags: resolveFeatureFlags(active, connection.data),
    isLoading: connection.isLoading || organizations.isLoading,
  };
}
