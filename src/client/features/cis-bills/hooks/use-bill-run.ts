import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { validateBillSubmission, type UserMessage } from '@/shared/cis-bills';
import type { Connection } from '@/client/lib/connection';
import { newIdempotencyKey } from '@/client/lib/idempotency';
import { toast } from '@/client/lib/toast';
import { useCreateBills } from '../api/create-bills';
import { cisBillsKeys } from '../api/query-keys';
import {
  buildChunkRequest,
  CREATE_BILLS_CHUNK_SIZE,
  failChunk,
  settleChunk,
  snapshotBillRun,
  startBillRun,
  type AddedBill,
  type BillRun,
  type BillRunResult,
} from '../utils/bill-run';
import { checkConnectionForWrite } from '../utils/check-connection';
import { describeBillCreationSummary } from '../utils/messages';

export function showMessage(message: UserMessage, variant: 'destructive' | 'warning' = 'destructive') {
  toast({ title: message.title, description: message.description, variant });
}

/** The summary toast of a finished run (docs/product/features.md §8). */
function announceOutcome(outcome: readonly BillRunResult[]): boolean {
  const created = outcome.filter((r) => r.state === 'created').length;
  const failed = outcome.length - created;
  const firstFailure = outcome.find((r) => r.state !== 'created' && r.state !== 'waiting');
  const summary = describeBillCreationSummary(created, failed);
  const description = firstFailure?.message ? { description: firstFailure.message } : {};
  if (created === 0) {
    // All failed: 'Failed to create bills', or 'CIS Configuration Error' when that is the reason.
    toast({
      title: firstFailure?.title === 'CIS Configuration Error' ? firstFailure.title : summary.message,
      ...description,
      variant: 'destructive',
    });
    return false;
  }
  toast({ title: summary.message, ...description, variant: failed > 0 ? 'warning' : 'success' });
  return true;
}

/**
 * "Create N Bill(s) in Xero": the bills go in chunks of CREATE_BILLS_CHUNK_SIZE, each bill under its attempt
 * id and the card's one Idempotency-Key, the progress after each chunk, then one summary toast. `onSettled`
 * gets every bill's result before the drafts list is read again.
 */
export function useBillRun({
  orgId,
  connection,
  onSettled,
}: {
  orgId: number;
  connection: Connection;
  onSettled: (results: ReadonlyMap<string, BillRunResult>) => void;
}) {
  const queryClient = useQueryClient();
  const { mutateAsync: sendBills } = useCreateBills(orgId);
  // One key for the card: each bill's attempt id makes the key of that bill (see AddedBill.attemptId).
  const actionKey = useRef(newIdempotencyKey());
  const [run, setRun] = useState<BillRun | null>(null);

  async function send(bills: readonly AddedBill[], createAsDraft: boolean) {
    const problem = validateBillSubmission(bills) ?? checkConnectionForWrite(connection);
    if (problem) return showMessage(problem);
    const results = startBillRun(bills);
    setRun(snapshotBillRun(results, 0, true));
    let done = 0;
    for (let start = 0; start < bills.length; start += CREATE_BILLS_CHUNK_SIZE) {
      const chunk = bills.slice(start, start + CREATE_BILLS_CHUNK_SIZE);
      try {
        const answer = await sendBills({
          bills: buildChunkRequest(chunk, createAsDraft),
          idempotencyKey: actionKey.current,
        });
        settleChunk(results, chunk, answer.results);
      } catch (error) {
        failChunk(results, chunk, error);
      }
      done += chunk.length;
      setRun(snapshotBillRun(results, done, true));
    }
    setRun(snapshotBillRun(results, done, false));
    onSettled(results);
    if (announceOutcome([...results.values()])) {
      await queryClient.invalidateQueries({ queryKey: cisBillsKeys.drafts(orgId) });
    }
  }

  return { run, isProcessing: run?.isRunning === true, send, dismiss: () => setRun(null) };
}
