import crypto from 'node:crypto';
import { formatMoney, roundPoundsToPence } from '../../../shared/money';
import { isXeroId } from '../../../shared/input';
import {
  getJournalAmountPence,
  getStockJournalKey,
  getStockJournalReference,
  isJournalPeriod,
  type JournalCreateRequest,
  type JournalCreateResponse,
} from '../../../shared/stock-journal';
import { AppError } from '../../lib/app-error';
import {
  describeBusyDocument,
  explainUnconfirmed,
  isOpenWriteState,
  withWriteMark,
  type WriteRow,
} from '../../ledger/index';
import type { RequestContext } from '../organizations/tenancy';
import { isLiveJournal } from '../../xero/xero-port';
import type { NewStockJournalEntry, StockJournalEntryRow } from './stock-journal.repository';
import {
  JOURNAL_MESSAGES,
  JOURNAL_WRITE_KIND,
  journalPeriodDocument,
  PENDING_STATUS,
  toSyncContext,
  type JournalWriteRequest,
  type StockJournalCore,
  type StockJournalServiceDeps,
} from './context';
import type { JournalChanges } from './journal-changes';

/** Posting a period's journal: its claim, the one-writer hold while it is sent, and a lost answer settled. */
export function createJournalPosting(
  deps: StockJournalServiceDeps,
  core: StockJournalCore,
  journalChanges: JournalChanges,
) {
  const { repo, sync, ledger } = deps;
  const { buildWriteSpec, findWrite, findEntryWrite, settlePendingEntry } = core;
  const { readRecently, readJournalChanges, recordChanges } = journalChanges;

  /**
   * The refusal of a post while another post of the period is open (issue 28, one writer per document): a 409
   * naming who is posting it, by the open write's own line, or, in the moment between the period's claim and
   * its write being recorded, by the user who claimed it.
   */
  async function refuseBusyPeriod(entry: StockJournalEntryRow, write: WriteRow | null): Promise<never> {
    const document = journalPeriodDocument(entry.periodStart, entry.periodEnd);
    const username = write ? null : entry.userId === null ? null : await repo.findUsername(entry.userId);
    const message = describeBusyDocument({
      kind: JOURNAL_WRITE_KIND,
      documentLabel: write?.documentLabel ?? document.label,
      audit: write?.audit ?? (username ? { username } : null),
    });
    throw new AppError('CONFLICT', message, undefined, {
      ...(write ? { writeId: write.id } : {}),
      writeState: 'busy',
    });
  }

  /**
   * A post whose period already has an entry. The same action retried (same key) replays its outcome. A
   * pending entry left by a post whose outcome was unknown is settled now (look-up): if Xero does not have
   * it, the period is free and the new post claims it. A post of the period still open (another person's, on
   * any instance) refuses this one at once, naming who is posting it. Anything else is a 409 "already exists".
   */
  async function handleTakenPeriod(
    tenant: RequestContext,
    request: JournalWriteRequest,
    entry: NewStockJournalEntry,
    idempotencyKey: string | undefined,
    ip: string | null,
  ): Promise<{ replay: JournalCreateResponse } | { entry: StockJournalEntryRow }> {
    const orgId = tenant.organizationId;
    const targetId = getStockJournalKey(request.periodStart, request.periodEnd);
    if (idempotencyKey) {
      // The first request of this same action may have claimed the period a moment before recording its write:
      // waited for while the pending entry is this user's and no write is recorded for it yet (another key's
      // write, or another user's claim, is not this action's).
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const write = await ledger.findByKey(orgId, idempotencyKey);
        if (write) {
          if (write.kind !== JOURNAL_WRITE_KIND || write.targetId !== targetId) break;
          const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
          return { replay: outcome.response };
        }
        const existing = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
        if (existing?.status !== PENDING_STATUS || existing.userId !== tenant.userId) break;
        if (await findEntryWrite(orgId, existing)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const existing = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
    if (existing?.status === PENDING_STATUS) {
      const settled = await settlePendingEntry(tenant, existing);
      if (settled === 'removed') {
        const claimed = await repo.claimPeriod(entry);
        if (claimed) return { entry: claimed };
      }
      if (settled === 'waiting') {
        // Still in flight, or claimed a moment ago and its write not recorded yet: being posted now. A write
        // held for review is not "being posted": the period is taken until an administrator settles it.
        const write = await findEntryWrite(orgId, existing);
        if (write && idempotencyKey && write.idempotencyKey === idempotencyKey) {
          // This same action, recorded while it was looked for above.
          const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
          return { replay: outcome.response };
        }
        if (!write || isOpenWriteState(write.state)) await refuseBusyPeriod(existing, write);
      }
    }
    if (!existing) {
      const claimed = await repo.claimPeriod(entry);
      if (claimed) return { entry: claimed };
    }
    if (idempotencyKey) {
      // The period has a journal. After a restore, it may be this very post's, sent under a key the restored
      // database forgot: Xero is asked for the key's mark, and the resend is answered with the first result.
      const recalled = await ledger.findForgotten(buildWriteSpec(tenant, request, idempotencyKey, ip));
      if (recalled) {
        const now = await repo.findEntry(orgId, request.periodStart, request.periodEnd);
        if (now?.journalId && now.journalId.toLowerCase() === recalled.xeroId?.toLowerCase())
          // Adopted from Xero after the restore, without its figures: this write's are known again.
          await repo.updateEntry(orgId, now.id, {
            writeId: recalled.writeId,
            customerId: entry.customerId,
            netPence: entry.netPence,
            marginRate: entry.marginRate,
            userId: entry.userId,
          });
        return { replay: recalled.response };
      }
    }
    throw new AppError('CONFLICT', JOURNAL_MESSAGES.alreadyExists);
  }

  /**
   * After a create whose answer was lost or failed: looks it up in Xero before telling the user anything.
   * Xero has it → the entry takes it; Xero does not → the entry goes (the period is free) and the answer
   * says nothing was posted; Xero cannot be asked → the period stays pending and the error stands.
   */
  async function settleAfterFailedSend(
    tenant: RequestContext,
    entry: StockJournalEntryRow,
    writeId: number,
    error: unknown,
  ): Promise<JournalCreateResponse> {
    const orgId = tenant.organizationId;
    await repo.updateEntry(orgId, entry.id, { writeId });
    let write = await findWrite(orgId, writeId);
    if (!write) throw explainUnconfirmed(error);
    try {
      write = await ledger.lookUp(write, tenant.tenantId);
    } catch (lookupError) {
      deps.log?.warn(
        { err: lookupError, writeId },
        'look-up of a journal create failed; the period stays pending',
      );
      throw explainUnconfirmed(error);
    }
    if (write.state === 'confirmed' && write.xeroId) {
      const response = write.response as JournalCreateResponse | null;
      const status = response?.status ?? 'DRAFT';
      await repo.updateEntry(orgId, entry.id, { journalId: write.xeroId, status, writeId });
      return { journalId: write.xeroId, status: status.toLowerCase() };
    }
    if (write.state === 'failed') {
      await repo.deleteEntry(orgId, entry.id);
      const cause = error instanceof AppError ? error.detail : undefined;
      throw new AppError(
        'XERO_UNAVAILABLE',
        JOURNAL_MESSAGES.notPosted,
        typeof cause === 'string' ? cause : undefined,
      );
    }
    throw explainUnconfirmed(error);
  }

  return {
    /**
     * Posts the stock transfer journal of a period (docs/architecture.md §4): net sales re-read from the
     * cache must match what the user saw; cost = net ÷ margin rate to the penny; debit cost, credit stock,
     * dated in the period; DRAFT or POSTED from the organisation's setting. One journal per period: claimed
     * here before anything is sent (409 when taken), then checked against Xero's journals of the period (409,
     * and the entry takes Xero's journal, when Xero already has one), then written through the ledger with
     * the action's idempotency key. A create whose answer failed is looked up before the user is told.
     */
    async createJournal(
      tenant: RequestContext,
      body: JournalCreateRequest,
      options: { idempotencyKey?: string | undefined; ip?: string | null } = {},
    ): Promise<JournalCreateResponse> {
      const orgId = tenant.organizationId;
      const { periodStart, periodEnd } = body;
      if (!isJournalPeriod(periodStart, periodEnd))
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.badPeriod);
      if (body.stockAccountId.toLowerCase() === body.costAccountId.toLowerCase())
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.sameAccounts);
      if (!isXeroId(body.contactId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const contactId = body.contactId.toLowerCase();
      if (!(await repo.findContact(orgId, contactId)) && (await repo.hasSynced(orgId, 'contacts'))) {
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      }
      // The server is the authority on money: the net comes from Xero's figures in the cache, not the browser.
      await sync.ensureInvoices(toSyncContext(tenant), { key: 'sales-contact', contactId });
      const netPence = await repo.sumNetPence(orgId, contactId, periodStart, periodEnd);
      if (netPence !== roundPoundsToPence(body.netAmount))
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.salesChanged);
      const amountPence = getJournalAmountPence(netPence, body.marginRate);
      if (amountPence === null || amountPence <= 0)
        throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.zeroAmount);

      const narration = getStockJournalReference(periodStart, periodEnd);
      const status = tenant.organization.defaultStockJournalPostingStatus === 'posted' ? 'POSTED' : 'DRAFT';
      const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
      const request: JournalWriteRequest = {
        periodStart,
        periodEnd,
        netPence,
        marginRate: body.marginRate,
        // The write's mark after the reference: Xero keeps it, so a resend after a restore finds this journal.
        narration: withWriteMark(narration, idempotencyKey),
        date: body.journalDate ?? periodEnd,
        status,
        amountPence,
        costAccountId: body.costAccountId,
        stockAccountId: body.stockAccountId,
        costDescription: `Cost of sales: net sales ${formatMoney(netPence)} ÷ ${body.marginRate}`,
        stockDescription: 'Transfer from stock',
      };
      // A token Xero will refuse is found out here, before anything is recorded as sent.
      await deps.checkToken(tenant.userId);

      const ip = options.ip ?? null;
      const newEntry: NewStockJournalEntry = {
        organizationId: orgId,
        customerId: contactId,
        periodStart,
        periodEnd,
        journalId: null,
        status: PENDING_STATUS,
        netPence,
        amountPence,
        marginRate: String(body.marginRate),
        reference: narration,
        userId: tenant.userId,
      };
      // The check against Xero's journals, before the period is claimed. Xero sends no webhooks for manual
      // journals (decision 018: INVOICE and CONTACT only), so they are read: once for a run of posts (issue 32),
      // as what Xero changed since the last look (If-Modified-Since), unless this instance read that in the
      // last JOURNALS_FRESH_MS (the screen listing the entries, the post before). A journal Xero holds for the
      // period is then an entry, and the claim below is refused with a 409. If Xero cannot be asked, nothing
      // is claimed or sent.
      if (!readRecently(orgId)) await recordChanges(tenant, await readJournalChanges(tenant));
      let entry = await repo.claimPeriod(newEntry);
      if (!entry) {
        const taken = await handleTakenPeriod(tenant, request, newEntry, options.idempotencyKey, ip);
        if ('replay' in taken)
          return { journalId: taken.replay.journalId, status: taken.replay.status.toLowerCase() };
        entry = taken.entry;
      }

      try {
        const outcome = await ledger.execute(buildWriteSpec(tenant, request, idempotencyKey, ip));
        const journalStatus = outcome.response.status || status;
        const journalId = outcome.xeroId ?? outcome.response.journalId ?? null;
        if (isLiveJournal({ status: journalStatus })) {
          await repo.updateEntry(orgId, entry.id, {
            journalId,
            status: journalStatus,
            writeId: outcome.writeId,
          });
        } else {
          // This post's journal, found by its mark after a restore, deleted or voided in Xero since: the
          // answer says so, and the period is free.
          await repo.deleteEntry(orgId, entry.id);
        }
        return { journalId, status: journalStatus.toLowerCase() };
      } catch (error) {
        const writeState = error instanceof AppError ? error.extra?.writeState : undefined;
        const writeId = error instanceof AppError ? error.extra?.writeId : undefined;
        if (typeof writeId === 'number' && isOpenWriteState(writeState)) {
          return settleAfterFailedSend(tenant, entry, writeId, error);
        }
        // Xero certainly did not apply it (refused, or never sent): the period is free at once.
        await repo.deleteEntry(orgId, entry.id);
        throw error;
      }
    },
  };
}
