import { buildCreateBillRequest, type CreateBillResult, type LocalBill } from '@/shared/cis-bills';
import { isApiError } from '@/client/lib/api-client';
import { newIdempotencyKey } from '@/client/lib/idempotency';
import { describeCreateBillError } from './messages';

/**
 * Bills per create request. The server sends each request's bills to Xero in one call, so 10 per request
 * costs 2 Xero calls for 20 bills and still lets the progress bar move on a long list.
 */
export const CREATE_BILLS_CHUNK_SIZE = 10;

/** A bill added to the list, waiting to be sent. */
export interface AddedBill extends LocalBill {
  /**
   * The id the bill is sent under: with the card's Idempotency-Key it names this bill on every retry, so a
   * retry whose first answer was lost never creates it twice. A bill Xero refused gets a new one.
   */
  attemptId: string;
  /**
   * False when Xero has no verified CIS rate for the subcontractor (no CIS, or the 30 % rate); null while its
   * CIS settings are being checked (issue 19), when the subcontractor list has the answer.
   */
  cisVerified: boolean | null;
}

/** What happened to one bill of a "Create N Bill(s) in Xero" run. */
export interface BillRunResult {
  id: string;
  contactName: string;
  total: number;
  reference: string;
  state: 'waiting' | 'created' | 'failed' | 'unknown';
  /** Created: DRAFT or AUTHORISED. */
  status?: string;
  /**
   * Why it failed, as the user reads it (CIS configuration errors rewritten, docs/product/features.md §8).
   */
  title?: string;
  message?: string;
}

export interface BillRun {
  total: number;
  done: number;
  isRunning: boolean;
  results: BillRunResult[];
}

/** Outcomes that mean "Xero may have it": keep the bill's attempt id so the retry settles it, never duplicates it. */
function isUnknownOutcome(statusCode: number | undefined): boolean {
  return statusCode === undefined || statusCode === 409 || statusCode >= 500;
}

/** Every bill of a run, waiting. */
export function startBillRun(bills: readonly AddedBill[]): Map<string, BillRunResult> {
  return new Map(
    bills.map((b) => [
      b.id,
      { id: b.id, contactName: b.contactName, total: b.total, reference: b.reference, state: 'waiting' },
    ]),
  );
}

export function snapshotBillRun(
  results: ReadonlyMap<string, BillRunResult>,
  done: number,
  isRunning: boolean,
): BillRun {
  return { total: results.size, done, isRunning, results: [...results.values()] };
}

/** The request bodies of one chunk: each bill under its attempt id. */
export function buildChunkRequest(chunk: readonly AddedBill[], createAsDraft: boolean) {
  return chunk.map((b) => ({ id: b.attemptId, ...buildCreateBillRequest(b, createAsDraft) }));
}

/** What the server answered for each bill of a chunk (CIS configuration errors rewritten, features.md §8). */
export function settleChunk(
  results: Map<string, BillRunResult>,
  chunk: readonly AddedBill[],
  answers: readonly CreateBillResult[],
): void {
  for (const bill of chunk) {
    const result = answers.find((r) => r.id === bill.attemptId);
    const previous = results.get(bill.id);
    if (!previous) continue;
    if (result?.ok) {
      results.set(bill.id, {
        ...previous,
        state: 'created',
        ...(result.status ? { status: result.status } : {}),
      });
    } else {
      const failure = describeCreateBillError(result?.message);
      results.set(bill.id, {
        ...previous,
        state: isUnknownOutcome(result?.statusCode) ? 'unknown' : 'failed',
        title: failure.title,
        message: failure.description,
      });
    }
  }
}

/** No answer for the whole chunk: whether Xero has these bills is unknown until they are sent again. */
export function failChunk(
  results: Map<string, BillRunResult>,
  chunk: readonly AddedBill[],
  error: unknown,
): void {
  const message = isApiError(error)
    ? error.message
    : 'Network error - please check your connection and try again';
  const refused = isApiError(error) && error.status < 500 && error.status !== 409;
  for (const bill of chunk) {
    const previous = results.get(bill.id);
    if (previous) results.set(bill.id, { ...previous, state: refused ? 'failed' : 'unknown', message });
  }
}

/**
 * The list after a run: created bills leave it; a refused bill is a new attempt next time; an unknown one keeps
 * its id so the retry settles it.
 */
export function keepUnsentBills(
  bills: readonly AddedBill[],
  results: ReadonlyMap<string, BillRunResult>,
): AddedBill[] {
  return bills
    .filter((b) => results.get(b.id)?.state !== 'created')
    .map((b) => (results.get(b.id)?.state === 'failed' ? { ...b, attemptId: newIdempotencyKey() } : b));
}
