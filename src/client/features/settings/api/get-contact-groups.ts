import { useQuery } from '@tanstack/react-query';
import { contactGroupsResponseSchema, type ContactGroup } from '@/shared/settings';
import type { OrgId } from '@/client/lib/org-url';
import { fetchReferenceList, referenceListQueryOptions } from './reference-list';

const PATH = '/api/xero/contact-groups';

/** GET /api/xero/contact-groups (docs/product/shell.md §7), optionally syncing the cache from Xero first. */
export function getContactGroups(orgId: OrgId, refresh = false): Promise<ContactGroup[]> {
  return fetchReferenceList(PATH, contactGroupsResponseSchema, orgId, refresh);
}

export const contactGroupsQueryOptions = (orgId: OrgId) =>
  referenceListQueryOptions<ContactGroup>('contact-groups', PATH, contactGroupsResponseSchema, orgId);

export function useContactGroups(orgId: OrgId | undefined, options: { enabled?: boolean } = {}) {
  return useQuery({
    ...contactGroupsQueryOptions(orgId ?? 'none'),
    enabled: orgId !== undefined && (options.enabled ?? true),
  });
}
