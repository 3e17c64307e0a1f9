import { checkCisContactsResponseSchema, type CisContact } from '@/shared/cis-bills';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';

/**
 * POST /api/xero/cis-contacts/check (beyond the spec; issue 19): reads the CIS settings of the given
 * subcontractors that are not known yet (one Xero call each, at most 50 ids) and answers their CIS state.
 * The picker sends the rows it shows; `useCisContactChecks` batches them and puts the answers in the list.
 */
export function checkCisContacts(orgId: number, contactIds: readonly string[]): Promise<CisContact[]> {
  return api.post(
    orgUrl('/api/xero/cis-contacts/check', orgId),
    { contactIds },
    { schema: checkCisContactsResponseSchema },
  );
}
