import {
  hasWriteMark,
  HELD_USER_GONE,
  type RetryActor,
  withoutWriteMark,
  withWriteMark,
  type WriteKindHandlers,
  type WriteOutcome,
  type WriteRow,
} from '../../ledger/index';
import type { JournalCreateResponse } from '../../../shared/stock-journal';
import { AppError } from '../../lib/app-error';
import type { XeroContext } from '../../xero/xero-port';
import {
  findPeriodJournal,
  JOURNAL_MESSAGES,
  JOURNAL_WRITE_KIND,
  toJournalOutcome,
  toXeroContext,
  type JournalActor,
  type JournalWriteRequest,
  type StockJournalCore,
  type StockJournalServiceDeps,
} from './context';

/**
 * Stock Journal in the write ledger: the finders that ask Xero whether a journal write was applied (a lost
 * answer, or a key a restore forgot), and the retrier an administrator sends a held journal again with.
 */
export function createStockJournalWriteKinds(deps: StockJournalServiceDeps, core: StockJournalCore) {
  const { repo, journals, ledger } = deps;
  const { findJournalInXero, buildWriteSpec } = core;

  /**
   * The journal this write made, by the mark its narration carries (issue 28): exact, whatever the journal's
   * status now (deleted or voided since, it was still made). The write ledger asks it, for a day after a
   * `db:restore`, before a post under a key the restored database does not know is sent, or refused.
   */
  async function findJournalByMark(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<JournalCreateResponse> | null> {
    const request = row.request as JournalWriteRequest;
    const dated = await journals.listDated(ctx, request.periodStart, request.periodEnd);
    const found = dated.find((j) => hasWriteMark(j.narration, row.idempotencyKey));
    return found ? toJournalOutcome(found, request.status) : null;
  }

  /**
   * The write ledger's finder for 'journal.create' (a lost answer): the journal carrying this write's mark;
   * for a write recorded before marks, the period's journal, unless another write already accounts for it.
   */
  async function findJournalWrite(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<unknown> | null> {
    const request = row.request as JournalWriteRequest;
    if (hasWriteMark(request.narration, row.idempotencyKey)) return findJournalByMark(ctx, row);
    const claimed = await ledger.claimedXeroIds(ctx.organizationId, JOURNAL_WRITE_KIND, row.id);
    const dated = await journals.listDated(ctx, request.periodStart, request.periodEnd);
    const found = findPeriodJournal(
      dated.filter((j) => !claimed.has(j.journalId.toLowerCase())),
      request.periodStart,
      request.periodEnd,
    );
    return found ? toJournalOutcome(found, request.status) : null;
  }

  /**
   * An administrator sends a held journal again (Admin → Needs review, issue 28): the ledger has asked Xero
   * for this write's journal and Xero does not have it; the period is checked again, as a post is, so a
   * journal posted for it meanwhile (by a person in Xero, or another write) is never doubled. The period's
   * entry follows the new write.
   */
  async function retryHeldJournal(
    row: WriteRow,
    by: RetryActor,
    idempotencyKey: string,
  ): Promise<{ writeId: number; xeroId: string | null }> {
    if (row.userId === null) throw new AppError('CONFLICT', HELD_USER_GONE);
    const held = row.request as JournalWriteRequest;
    // A new write, so a new mark: Xero has none of the held one's.
    const request = { ...held, narration: withWriteMark(withoutWriteMark(held.narration), idempotencyKey) };
    const actor: JournalActor = {
      organizationId: row.organizationId,
      tenantId: by.tenantId,
      userId: row.userId,
      username: by.username,
    };
    if (await findJournalInXero(toXeroContext(actor), request.periodStart, request.periodEnd))
      throw new AppError('CONFLICT', JOURNAL_MESSAGES.alreadyExists);
    const outcome = await ledger.execute(buildWriteSpec(actor, request, idempotencyKey, by.ip ?? null));
    const journalId = outcome.xeroId ?? outcome.response.journalId ?? null;
    const entry = await repo.findEntry(row.organizationId, request.periodStart, request.periodEnd);
    if (entry)
      await repo.updateEntry(row.organizationId, entry.id, {
        journalId,
        status: outcome.response.status || request.status,
        writeId: outcome.writeId,
      });
    return { writeId: outcome.writeId, xeroId: journalId };
  }

  /** How the ledger settles a journal write (registered by the wiring site, src/server/wiring.ts). */
  const writeKinds: WriteKindHandlers[] = [
    {
      kind: JOURNAL_WRITE_KIND,
      find: findJournalWrite,
      // After a restore, a journal is found by the mark its narration carries (issue 28).
      afterRestore: findJournalByMark,
      // A held journal Xero does not have can be sent again by an administrator (Needs review).
      retry: retryHeldJournal,
    },
  ];
  return { writeKinds };
}
