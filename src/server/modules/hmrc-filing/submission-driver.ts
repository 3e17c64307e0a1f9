/**
 * The exchange with HMRC's Transaction Engine for one recorded submission (issue 43, decision 043), one step at a
 * time, so the request that asked for it, a retry, another instance or the background job may all push it on and
 * exactly one sends each message:
 *
 * - `recorded` → claimed (`phase recorded → submitting`, conditional) and sent; the acknowledgement's CorrelationID,
 *   endpoint and interval are kept (`polling`), an error answer settles it (`rejected`), a call that never reached
 *   HMRC settles it too (nothing was sent), a call that may have reached HMRC leaves it `submitting`.
 * - `submitting` and not in flight here, once its sender is dead or the send is 2 minutes old: looked up on HMRC's
 *   queue by our TransactionID (a data request). Found: it is polled. Not there: HMRC never got it, and it goes back
 *   to `recorded`, to be sent as recorded. Never sent blindly a second time.
 * - `polling`, when due and leased: polled; `acknowledgement` sets the next poll, `response`/`error` settle it.
 * - `answered`: taken off HMRC's queue (delete), once.
 */
import crypto from 'node:crypto';
import type { CisMessageClass, GovTalkAnswer, GovTalkSender, SchemeKeys } from '../../hmrc/govtalk';
import { readSuccessReceipt } from '../../hmrc/govtalk';
import { describeErrors, isRecoverable, type HmrcReason } from '../../hmrc/errors';
import { TransportError, withPassword, type TransactionEngine } from '../../hmrc/transaction-engine';
import { isSenderAlive } from '../../ledger/index';
import type { HmrcFilingRepository, SubmissionRow } from './hmrc-filing.repository';

/** A send still unanswered this long (HMRC's 30 s call limit, with room) is looked up even if its sender lives. */
export const RECOVER_AFTER_MS = 2 * 60_000;
/** How long a poller holds a row. */
const LEASE_MS = 30_000;
/** The least wait between two polls after a failed call. */
const RETRY_AFTER_FAILURE_MS = 5_000;

export interface DriverDeps {
  repo: HmrcFilingRepository;
  engine: () => TransactionEngine | null;
  /** The organisation's sender (decrypted credentials, vendor ID) and scheme keys; null when not set up. */
  senderFor: (organizationId: number) => Promise<{ sender: GovTalkSender; keys: SchemeKeys } | null>;
  /** Called once, when a submission is settled (accepted or rejected), to record what follows. */
  onSettled: (row: SubmissionRow) => Promise<void>;
  instanceId: string;
  log?: { warn: (o: object, m: string) => void };
}

export interface Settlement {
  state: 'accepted' | 'rejected';
  receipt?: Record<string, unknown>;
  reasons?: HmrcReason[];
  retryable?: boolean;
  result?: Record<string, unknown>;
}

/** What an answer settles, or null while HMRC is still working (acknowledgement). */
export function settlementOf(
  row: SubmissionRow,
  answer: GovTalkAnswer,
  read: (answer: GovTalkAnswer) => Record<string, unknown> | undefined,
): Settlement | null {
  if (answer.qualifier === 'acknowledgement') return null;
  if (answer.qualifier === 'response') {
    const receipt = readSuccessReceipt(answer);
    return {
      state: 'accepted',
      receipt: {
        irmark: row.irmark,
        irmarkBase32: row.irmarkBase32,
        hmrcIrmark: receipt?.irmark ?? null,
        timestamp: receipt?.acceptedTime || answer.gatewayTimestamp || new Date().toISOString(),
        message: receipt?.receiptMessage || receipt?.messages[0] || 'HMRC accepted the submission.',
      },
      result: read(answer),
    };
  }
  return {
    state: 'rejected',
    reasons: describeErrors(answer.errors, answer.bodyErrors),
    retryable: isRecoverable(answer.errors),
  };
}

export function createSubmissionDriver(
  deps: DriverDeps & {
    readResult: (row: SubmissionRow, answer: GovTalkAnswer) => Record<string, unknown> | undefined;
  },
) {
  const { repo, instanceId } = deps;
  /** Rows this instance is talking to HMRC about right now. */
  const inFlight = new Set<number>();

  const messageClass = (row: SubmissionRow): CisMessageClass =>
    row.kind === 'cis300' ? 'IR-CIS-CIS300MR' : 'IR-CIS-VERIFY';

  async function settle(
    row: SubmissionRow,
    s: Settlement,
    from: SubmissionRow['phase'],
  ): Promise<SubmissionRow> {
    const settled = await repo.updateSubmission(
      row.id,
      {
        state: s.state,
        phase: 'answered',
        receipt: s.receipt ?? null,
        reasons: (s.reasons as Array<Record<string, unknown>> | undefined) ?? null,
        retryable: s.retryable ?? false,
        result: s.result ?? null,
        answeredAt: new Date(),
        leaseUntil: null,
        nextPollAt: null,
        // Nothing on HMRC's queue to delete without a CorrelationID.
        queueDeleted: !row.correlationId,
      },
      { phase: from, state: 'sending' },
    );
    if (!settled) return (await repo.getSubmission(row.id)) ?? row;
    await deps.onSettled(settled);
    return settled;
  }

  async function send(row: SubmissionRow): Promise<SubmissionRow> {
    const engine = deps.engine();
    const who = await deps.senderFor(row.organizationId);
    if (!engine || !who)
      return settle(
        row,
        {
          state: 'rejected',
          reasons: [
            {
              number: 'setup',
              message: 'Filing with HMRC is not set up for this organisation: nothing was sent.',
              hmrcText: '',
              location: null,
            },
          ],
        },
        'recorded',
      );
    const claimed = await repo.updateSubmission(
      row.id,
      { phase: 'submitting', instanceId, sentAt: new Date() },
      { phase: 'recorded', state: 'sending' },
    );
    if (!claimed) return (await repo.getSubmission(row.id)) ?? row;
    inFlight.add(row.id);
    try {
      const answer = await engine.submit({
        xml: withPassword(claimed.requestXml, who.sender.password),
        recorded: claimed.requestXml,
        irmark: { base64: claimed.irmark, base32: claimed.irmarkBase32 },
      });
      return await afterAnswer(claimed, answer, 'submitting');
    } catch (error) {
      if (error instanceof TransportError && !error.mayHaveArrived)
        return settle(
          claimed,
          {
            state: 'rejected',
            retryable: true,
            reasons: [
              {
                number: 'unreachable',
                message: `${error.message}. Nothing was sent; send it again.`,
                hmrcText: '',
                location: null,
              },
            ],
          },
          'submitting',
        );
      // May have arrived: looked up on HMRC's queue, never sent again blindly.
      deps.log?.warn({ err: error, submission: row.id }, 'HMRC submission answer lost; it will be looked up');
      return (
        (await repo.updateSubmission(
          row.id,
          { nextPollAt: new Date(Date.now() + RETRY_AFTER_FAILURE_MS) },
          { phase: 'submitting' },
        )) ?? claimed
      );
    } finally {
      inFlight.delete(row.id);
    }
  }

  async function afterAnswer(
    row: SubmissionRow,
    answer: GovTalkAnswer,
    from: SubmissionRow['phase'],
  ): Promise<SubmissionRow> {
    const correlationId = answer.correlationId || row.correlationId;
    const withIds = { ...row, correlationId: correlationId ?? null };
    const settlement = settlementOf(withIds, answer, (a) => deps.readResult(withIds, a));
    if (!settlement) {
      const interval = answer.pollInterval ?? row.pollIntervalSeconds ?? 10;
      return (
        (await repo.updateSubmission(
          row.id,
          {
            phase: 'polling',
            correlationId,
            responseEndPoint: answer.responseEndPoint || row.responseEndPoint,
            pollIntervalSeconds: interval,
            nextPollAt: new Date(Date.now() + interval * 1000),
            leaseUntil: null,
          },
          { phase: from, state: 'sending' },
        )) ?? ((await repo.getSubmission(row.id)) as SubmissionRow)
      );
    }
    if (correlationId && correlationId !== row.correlationId)
      await repo.updateSubmission(row.id, {
        correlationId,
        responseEndPoint: answer.responseEndPoint || row.responseEndPoint,
      });
    return settle(withIds, settlement, from);
  }

  /** A `submitting` row whose answer was lost: found on HMRC's queue by its TransactionID, or sent again. */
  async function recover(row: SubmissionRow): Promise<SubmissionRow> {
    if (inFlight.has(row.id)) return row;
    if (row.nextPollAt && row.nextPollAt.getTime() > Date.now()) return row;
    // Another instance's send may still be on its way: wait until that instance is dead or the send is old.
    if (row.instanceId && row.instanceId !== instanceId) {
      const alive = isSenderAlive(await repo.instanceBeatAgeMs(row.instanceId));
      const age = (await repo.sentAgeMs(row.id)) ?? Infinity;
      if (alive && age < RECOVER_AFTER_MS) return row;
    }
    const engine = deps.engine();
    const who = await deps.senderFor(row.organizationId);
    if (!engine || !who) return row;
    const leased = await repo.lease(row.id, LEASE_MS);
    if (!leased || leased.phase !== 'submitting') return leased ?? row;
    try {
      const { answer, records } = await engine.list({
        messageClass: messageClass(row),
        sender: who.sender,
        keys: who.keys,
        timestamp: new Date().toISOString().slice(0, 19),
      });
      if (answer.qualifier === 'error')
        throw new Error(
          describeErrors(answer.errors, answer.bodyErrors)
            .map((r) => r.message)
            .join(' '),
        );
      const found = records.find((r) => r.transactionId === row.transactionId);
      if (found)
        return (
          (await repo.updateSubmission(
            row.id,
            {
              phase: 'polling',
              correlationId: found.correlationId,
              nextPollAt: new Date(),
              leaseUntil: null,
            },
            { phase: 'submitting' },
          )) ?? leased
        );
      // Not on the queue: HMRC never received it. It goes again, exactly as recorded.
      return (
        (await repo.updateSubmission(
          row.id,
          { phase: 'recorded', leaseUntil: null, nextPollAt: null },
          { phase: 'submitting' },
        )) ?? leased
      );
    } catch (error) {
      deps.log?.warn({ err: error, submission: row.id }, 'looking up an HMRC submission on the queue failed');
      return (
        (await repo.updateSubmission(row.id, {
          leaseUntil: null,
          nextPollAt: new Date(Date.now() + RETRY_AFTER_FAILURE_MS),
        })) ?? leased
      );
    }
  }

  async function poll(row: SubmissionRow): Promise<SubmissionRow> {
    if (row.nextPollAt && row.nextPollAt.getTime() > Date.now()) return row;
    const engine = deps.engine();
    if (!engine || !row.correlationId) return row;
    const leased = await repo.lease(row.id, LEASE_MS);
    if (!leased || leased.phase !== 'polling') return leased ?? row;
    inFlight.add(row.id);
    try {
      const answer = await engine.poll({
        messageClass: messageClass(row),
        correlationId: row.correlationId,
        responseEndPoint: row.responseEndPoint,
        gatewayTest: row.gatewayTest,
      });
      return await afterAnswer(leased, answer, 'polling');
    } catch (error) {
      deps.log?.warn({ err: error, submission: row.id }, 'polling HMRC failed; it will be asked again');
      const wait = Math.max(RETRY_AFTER_FAILURE_MS, (row.pollIntervalSeconds ?? 0) * 1000);
      return (
        (await repo.updateSubmission(row.id, {
          leaseUntil: null,
          nextPollAt: new Date(Date.now() + wait),
        })) ?? leased
      );
    } finally {
      inFlight.delete(row.id);
    }
  }

  async function removeFromQueue(row: SubmissionRow): Promise<SubmissionRow> {
    const engine = deps.engine();
    if (!engine || !row.correlationId || row.queueDeleted) return row;
    try {
      await engine.delete({
        messageClass: messageClass(row),
        correlationId: row.correlationId,
        responseEndPoint: row.responseEndPoint,
        gatewayTest: row.gatewayTest,
      });
      return (await repo.updateSubmission(row.id, { queueDeleted: true })) ?? row;
    } catch (error) {
      deps.log?.warn(
        { err: error, submission: row.id },
        "taking an answered submission off HMRC's queue failed; tried again later",
      );
      return row;
    }
  }

  /** One step of the exchange; answers the row as it now stands. */
  async function advance(row: SubmissionRow): Promise<SubmissionRow> {
    if (row.state !== 'sending')
      return row.phase === 'answered' && !row.queueDeleted ? removeFromQueue(row) : row;
    if (row.phase === 'recorded') return send(row);
    if (row.phase === 'submitting') return recover(row);
    if (row.phase === 'polling') return poll(row);
    return row;
  }

  return {
    advance,
    /**
     * Pushes a submission on until HMRC answers or `waitMs` passes (polls wait HMRC's interval); answers the row
     * as it stands. The background job carries on with what is left.
     */
    async drive(id: number, waitMs: number): Promise<SubmissionRow> {
      const deadline = Date.now() + waitMs;
      let row = await repo.getSubmission(id);
      let first = true;
      // At least one step, however short the wait: a reader asking "where is it now" pushes it on once.
      while (row && row.state === 'sending' && (first || Date.now() < deadline)) {
        first = false;
        const before = `${row.phase}|${row.correlationId}|${row.nextPollAt?.getTime()}`;
        row = await advance(row);
        if (row.state !== 'sending') break;
        const after = `${row.phase}|${row.correlationId}|${row.nextPollAt?.getTime()}`;
        const dueIn = row.nextPollAt ? row.nextPollAt.getTime() - Date.now() : 0;
        if (before === after || dueIn > 0) {
          const pause = Math.min(Math.max(dueIn, before === after ? 200 : 0), deadline - Date.now());
          if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
          row = await repo.getSubmission(id);
        }
      }
      if (row && row.phase === 'answered' && !row.queueDeleted) row = await removeFromQueue(row);
      return row as SubmissionRow;
    },
    /** The background job: every submission with something due, one step each. */
    async runDue(): Promise<void> {
      for (const row of await repo.findDue()) {
        try {
          await advance(row);
        } catch (error) {
          deps.log?.warn({ err: error, submission: row.id }, 'an HMRC submission step failed');
        }
      }
    },
    newTransactionId(): string {
      return crypto.randomUUID().replace(/-/g, '').toUpperCase();
    },
  };
}
export type SubmissionDriver = ReturnType<typeof createSubmissionDriver>;
