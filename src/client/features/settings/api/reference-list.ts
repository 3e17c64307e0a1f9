import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/client/lib/api-client';
import { settingsKeys } from './query-keys';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

export type ListName = Parameters<typeof settingsKeys.list>[1];

/**
 * One reference list (docs/product/shell.md §7): GET with `?org=`, and `?refresh=true` to make the server
 * sync that cache from Xero first. Throws on failure; the queries below turn a failure into an empty list, as
 * the spec tolerates, while the refresh buttons report it.
 */
export function fetchReferenceList<T>(
  path: string,
  schema: z.ZodType<T>,
  orgId: OrgId,
  refresh = false,
): Promise<T> {
  return api.get(orgUrl(path, orgId, { refresh: refresh ? 'true' : undefined }), { schema });
}

export function referenceListQueryOptions<T>(
  name: ListName,
  path: string,
  schema: z.ZodType<T[]>,
  orgId: OrgId,
) {
  return queryOptions({
    queryKey: settingsKeys.list(orgId, name),
    queryFn: async (): Promise<T[]> => {
      try {
        return await fetchReferenceList(path, schema, orgId);
      } catch (error) {
        console.warn(`Could not load ${name}`, error);
        return [];
      }
    },
  });
}
