import {
  journalCreateResponseSchema,
  type JournalCreateRequest,
  type JournalCreateResponse,
} from '@/shared/stock-journal';
import { api } from '@/client/lib/api-client';
import { withOrg } from './keys';

/**
 * POST /api/xero/stock-journal (001 §7). The Idempotency-Key is made once when the user presses the post
 * button and travels with every retry of that request, so a retry never creates a second journal.
 */
export function createJournal(
  orgId: number,
  request: JournalCreateRequest,
  idempotencyKey: string,
): Promise<JournalCreateResponse> {
  return api.post(withOrg('/api/xero/stock-journal', orgId), request, {
    schema: journalCreateResponseSchema,
    headers: { 'Idempotency-Key': idempotencyKey },
  });
}
