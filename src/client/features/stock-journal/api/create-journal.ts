import { useMutation } from '@tanstack/react-query';
import {
  journalCreateResponseSchema,
  type JournalCreateRequest,
  type JournalCreateResponse,
} from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { idempotencyHeader } from '@/client/lib/idempotency';

/**
 * POST /api/xero/stock-journal (docs/product/features.md §7). The Idempotency-Key is made once when the user
 * presses the post button and travels with every retry of that request, so a retry never creates a second
 * journal.
 */
export function createJournal(
  orgId: number,
  request: JournalCreateRequest,
  idempotencyKey: string,
): Promise<JournalCreateResponse> {
  return api.post(orgUrl('/api/xero/stock-journal', orgId), request, {
    schema: journalCreateResponseSchema,
    headers: idempotencyHeader(idempotencyKey),
  });
}

/** Post a journal, as a mutation of the organisation on screen (the caller makes the key, once per press). */
export function useCreateJournal(orgId: number | null) {
  return useMutation({
    mutationFn: ({ request, idempotencyKey }: { request: JournalCreateRequest; idempotencyKey: string }) => {
      if (orgId === null) throw new Error('Invalid organization ID');
      return createJournal(orgId, request, idempotencyKey);
    },
  });
}
