import { QueryClient, type DefaultOptions } from '@tanstack/react-query';

const MINUTE = 60 * 1000;

/**
 * Default data fetch (docs/product/shell.md §9): no retry, never stale, unused data cached 5 minutes, no
 * refetch on focus or reconnect.
 */
export const DEFAULT_QUERY_OPTIONS = {
  retry: false,
  staleTime: Number.POSITIVE_INFINITY,
  gcTime: 5 * MINUTE,
  refetchOnWindowFocus: false,
  refetchOnReconnect: false,
} as const;

/**
 * Connection data (docs/product/shell.md §9): stale after 5 min, kept 10 min, refetched every 2 min, on
 * focus, mount and reconnect, 1 retry.
 */
export const CONNECTION_QUERY_OPTIONS = {
  staleTime: 5 * MINUTE,
  gcTime: 10 * MINUTE,
  refetchInterval: 2 * MINUTE,
  refetchOnWindowFocus: true,
  refetchOnMount: true,
  refetchOnReconnect: true,
  retry: 1,
} as const;

/** User organisations (docs/product/shell.md §9): cached without expiry, no automatic refetch, no retry. */
export const USER_ORGANIZATIONS_QUERY_OPTIONS = {
  staleTime: Number.POSITIVE_INFINITY,
  gcTime: Number.POSITIVE_INFINITY,
  refetchOnWindowFocus: false,
  refetchOnMount: false,
  refetchOnReconnect: false,
  retry: false,
} as const;

/** Current user (docs/product/shell.md §9): polled every 30 s, 5 minute staleness, no retry. */
export const CURRENT_USER_QUERY_OPTIONS = {
  refetchInterval: 30 * 1000,
  staleTime: 5 * MINUTE,
  retry: false,
} as const;

export const queryConfig: DefaultOptions = {
  queries: DEFAULT_QUERY_OPTIONS,
  mutations: { retry: false },
};

export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: queryConfig });
}

/**
 * Query keys of the shell. Organisation-scoped feature data starts with `['org', orgId, …]`
 * (docs/code-style.md §2); the spec's named caches are listed too so a switch invalidates them whatever key a
 * feature chose.
 */
export const queryKeys = {
  config: ['config'] as const,
  currentUser: ['current-user'] as const,
  adminCheck: ['admin-check'] as const,
  connection: ['connection'] as const,
  userOrganizations: ['user-organizations'] as const,
  org: (orgId: number | string | null | undefined) => ['org', orgId ?? 'none'] as const,
};

/**
 * Invalidated after an organisation switch (docs/product/shell.md §7): the connection, invoices, sales, bank
 * accounts, customers, contacts, accounts, VAT rates, CIS contacts, stock journal entries, asset accounts,
 * cost accounts, direct-costs accounts and user organisations — plus every organisation-scoped key.
 */
export const ORGANIZATION_SWITCH_INVALIDATION: ReadonlyArray<readonly string[]> = [
  queryKeys.connection,
  ['org'],
  ['invoices'],
  ['sales'],
  ['bank-accounts'],
  ['customers'],
  ['contacts'],
  ['accounts'],
  ['vat-rates'],
  ['cis-contacts'],
  ['stock-journal'],
  ['asset-accounts'],
  ['cost-accounts'],
  ['direct-costs-accounts'],
  queryKeys.userOrganizations,
];
