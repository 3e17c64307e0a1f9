import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  subcontractorRefsSchema,
  type SubcontractorRefs,
  type SubcontractorRefsRequest,
} from '@/shared/cis-returns';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { cisReturnsKeys } from './query-keys';

/** PUT /api/xero/cis/subcontractors/{contactId}: the subcontractor's UTR and verification number. */
export function updateSubcontractorRefs(
  orgId: number,
  contactId: string,
  refs: SubcontractorRefsRequest,
): Promise<SubcontractorRefs> {
  return api.put(orgUrl(`/api/xero/cis/subcontractors/${encodeURIComponent(contactId)}`, orgId), refs, {
    schema: subcontractorRefsSchema,
  });
}

export function useUpdateSubcontractorRefs(orgId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ contactId, refs }: { contactId: string; refs: SubcontractorRefsRequest }) =>
      updateSubcontractorRefs(orgId, contactId, refs),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cisReturnsKeys.all(orgId) }),
  });
}
