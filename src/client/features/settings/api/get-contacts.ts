import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { contactsResponseSchema, type Contact } from '@/shared/settings';
import { api } from '@/client/lib/api-client';
import { settingsKeys } from './query-keys';
import { orgUrl, type OrgId } from '@/client/lib/org-url';

/**
 * GET /api/xero/contacts?search=&refresh= (docs/product/shell.md §7): active contacts whose name contains the
 * search text. `ids` asks for contacts already chosen too, so the selector can show their names.
 */
export function getContacts(
  orgId: OrgId,
  options: { search?: string; ids?: readonly string[]; refresh?: boolean } = {},
): Promise<Contact[]> {
  return api.get(
    orgUrl('/api/xero/contacts', orgId, {
      search: options.search?.trim() || undefined,
      ids: options.ids && options.ids.length > 0 ? options.ids.join(',') : undefined,
      refresh: options.refresh ? 'true' : undefined,
    }),
    { schema: contactsResponseSchema },
  );
}

export const contactsQueryOptions = (orgId: OrgId, search: string, ids: readonly string[]) =>
  queryOptions({
    queryKey: settingsKeys.contacts(orgId, search.trim(), ids),
    queryFn: async (): Promise<Contact[]> => {
      try {
        return await getContacts(orgId, { search, ids });
      } catch (error) {
        console.warn('Could not search contacts', error);
        return [];
      }
    },
  });

/** Contacts for a search already debounced by the caller; the previous answer stays while the next loads. */
export function useContacts(
  orgId: OrgId | undefined,
  search: string,
  ids: readonly string[],
  options: { enabled?: boolean } = {},
) {
  return useQuery({
    ...contactsQueryOptions(orgId ?? 'none', search, ids),
    enabled: orgId !== undefined && (options.enabled ?? true),
    placeholderData: keepPreviousData,
  });
}
