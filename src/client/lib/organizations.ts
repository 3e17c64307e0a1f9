import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { UserOrganization } from '@/shared/organizations';
import { checkActiveOrganizationChoice, getOrganizationName } from '@/shared/organizations-rules';
import { apiPaths } from '@/client/config/paths';
import { api, isApiError } from './api-client';
import { getConnection, type Connection } from './connection';
import { lazySchema } from './lazy-schema';
import {
  ORGANIZATION_SWITCH_INVALIDATION,
  queryKeys,
  USER_ORGANIZATIONS_QUERY_OPTIONS,
} from './query-client';
import { toast } from './toast';
import { sleep } from './utils';
import { useUser } from './auth';

/** GET /api/user-organizations; a failed fetch yields an empty list (docs/product/shell.md §7). */
export async function getUserOrganizations(): Promise<UserOrganization[]> {
  try {
    return await api.get(apiPaths.userOrganizations, {
      schema: lazySchema('userOrganizationsResponseSchema'),
    });
  } catch (error) {
    console.warn(
      isApiError(error)
        ? `Failed to get user organizations: ${error.status} ${error.message}`
        : 'Failed to get user organizations',
    );
    return [];
  }
}

export const userOrganizationsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.userOrganizations,
    queryFn: getUserOrganizations,
    ...USER_ORGANIZATIONS_QUERY_OPTIONS,
  });

export function useUserOrganizations() {
  const { data: user } = useUser();
  return useQuery({ ...userOrganizationsQueryOptions(), enabled: Boolean(user) });
}

/** POST /api/xero/set-active-organization. */
export async function setActiveOrganization(organizationId: number): Promise<void> {
  try {
    await api.post(apiPaths.setActiveOrganization, { organizationId });
  } catch (error) {
    if (isApiError(error)) {
      throw new Error(`Failed to set active organization: ${error.status} ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

export const SWITCH_INITIAL_WAIT_MS = 1000;
export const SWITCH_MAX_POLLS = 20;
export const SWITCH_POLL_STEP_MS = 200;

/** Invalidates every provider-related cache (docs/product/shell.md §7). */
export async function invalidateOrganizationData(queryClient: QueryClient): Promise<void> {
  await Promise.all(
    ORGANIZATION_SWITCH_INVALIDATION.map((queryKey) => queryClient.invalidateQueries({ queryKey })),
  );
}

export interface SwitchResult {
  synced: boolean;
  organization: UserOrganization;
  connection: Connection | null;
}

/**
 * The organisation switch protocol (docs/product/shell.md §4): validate, call the server, clear the cached
 * connection and organisations, wait 1 s, then poll the connection up to 20 times (200 ms × attempt) until it
 * reports the chosen organisation; then invalidate every provider-related cache. Throws the validation or
 * server message; when the poll gives up, a warning is logged and the caches are cleared.
 */
export async function switchOrganization(
  queryClient: QueryClient,
  organizations: readonly UserOrganization[],
  organizationId: unknown,
): Promise<SwitchResult> {
  const check = checkActiveOrganizationChoice(organizations, organizationId);
  if (!check.ok) throw new Error(check.message);
  const { organization } = check;
  if (check.tokenExpired) {
    console.warn(`The token of "${getOrganizationName(organization)}" has expired; selecting it anyway.`);
  }
  await setActiveOrganization(organization.organizationId);
  // "Clear the cached connection and organisations": stop what is in flight and mark them stale. Removing
  // them instead would detach the screens observing them, which would then keep showing the old tenant.
  for (const queryKey of [queryKeys.connection, queryKeys.userOrganizations]) {
    await queryClient.cancelQueries({ queryKey });
    await queryClient.invalidateQueries({ queryKey, refetchType: 'none' });
  }
  await sleep(SWITCH_INITIAL_WAIT_MS);

  let connection: Connection | null = null;
  for (let attempt = 1; attempt <= SWITCH_MAX_POLLS; attempt += 1) {
    const current = await getConnection({ bustCacheForOrg: organization.organizationId });
    if (current.organizationId === organization.organizationId) {
      connection = current;
      break;
    }
    if (attempt < SWITCH_MAX_POLLS) await sleep(SWITCH_POLL_STEP_MS * attempt);
  }

  if (!connection) {
    console.warn(
      `Organization switch: the connection did not report organization ${organization.organizationId} after ${SWITCH_MAX_POLLS} attempts`,
    );
    await Promise.all(
      ORGANIZATION_SWITCH_INVALIDATION.map((queryKey) => queryClient.resetQueries({ queryKey })),
    );
    return { synced: false, organization, connection: null };
  }
  queryClient.setQueryData(queryKeys.connection, connection);
  await invalidateOrganizationData(queryClient);
  return { synced: true, organization, connection };
}

/** The switch as a mutation, with the "Organization Changed" and "Error Changing Organization" toasts. */
export function useSwitchOrganization() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      organizations,
      organizationId,
    }: {
      organizations: readonly UserOrganization[];
      organizationId: unknown;
    }) => switchOrganization(queryClient, organizations, organizationId),
    onSuccess: ({ organization, connection }) => {
      toast({
        title: 'Organization Changed',
        description: `Now working with: ${connection?.tenantName || getOrganizationName(organization)}`,
        variant: 'success',
      });
    },
    onError: (error) => {
      toast({
        title: 'Error Changing Organization',
        description: error instanceof Error ? error.message : String(error),
        variant: 'destructive',
      });
    },
  });
}
