/**
 * Query keys of Add Invoices. They start with the organisation (docs/code-style.md §2), so one tenant's
 * drafts are never shown for another after a switch.
 */
import type { OrgId } from '@/client/lib/org-url';

export const addInvoicesKeys = {
  all: (orgId: OrgId) => ['org', orgId, 'add-invoices'] as const,
  drafts: (orgId: OrgId) => ['org', orgId, 'add-invoices', 'drafts'] as const,
  defaults: (orgId: OrgId) => ['org', orgId, 'add-invoices', 'defaults'] as const,
  unfinished: (orgId: OrgId) => ['org', orgId, 'add-invoices', 'unfinished'] as const,
};
