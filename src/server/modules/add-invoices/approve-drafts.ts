import type {
  DraftInvoiceFailure,
  DraftInvoiceUpdateItem,
  DraftInvoiceUpdateResponse,
} from '../../../shared/add-invoices';
import { getUkToday } from '../../../shared/dates';
import { formatMoney, fromPence, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import { chunk, createBatcher } from '../../xero/batcher';
import {
  DIFFERENT_CHANGE_MESSAGE,
  type IntentStep,
  invoiceDocument,
  isOpenWriteState,
  type WriteFailure,
  type WriteRow,
} from '../../ledger/index';
import type { ApprovalRequest, ElementResult, InvoiceFacts } from '../../xero/xero-port';
import { lockedDraftQueries, type CachedInvoiceRow } from './add-invoices.repository';
import { executeInBatch } from './batch-write';
import {
  cashPaymentRequest,
  describeCashFailure,
  describePendingCashChanged,
  type CashPaymentRequest,
  type CashWrites,
  type PaymentPlan,
} from './cash';
import {
  approvalAudit,
  cashPaymentAudit,
  messageOf,
  NOT_A_DRAFT_MESSAGE,
  numberOf,
  pendingCashAudit,
  requireCashAccount,
  XERO_BATCH_SIZE,
  type AddInvoicesContext,
  type AddInvoicesDeps,
} from './context';

/** The keys of one draft row's action: its approval, its cash payment, or its pending cash. */
interface DraftKeys {
  approve: string;
  payment: string;
  pending: string;
}

interface ApprovalPlan {
  item: DraftInvoiceUpdateItem;
  invoice: CachedInvoiceRow;
  /** Cash typed now plus cash kept pending for this draft: what is paid once it is approved. */
  cashPence: number;
  pendingPence: number;
  /** The intent's recorded steps (issue 28): the approval (or the pending cash) and its cash payment. */
  firstStep?: WriteRow;
  paymentStep?: WriteRow;
  /** Xero was asked for the approval just now (after a restore) and has none: not asked again. */
  lookedUp?: boolean;
}

/**
 * Process one row or Process All: each draft row's approval, approval with cash, or cash kept pending, as one
 * intent of the write ledger (issue 28), approvals batched, then the cash of every approved row.
 */
export function createDraftApprovals(
  { repo, ledger, xero }: Pick<AddInvoicesDeps, 'repo' | 'ledger' | 'xero'>,
  { payCash, keepPendingCash }: CashWrites,
) {
  /** Sends up to 50 approvals in one Xero call, one ledger row per invoice. */
  async function approveChunk(ctx: AddInvoicesContext, plans: ApprovalPlan[], keyOf: (id: string) => string) {
    const xctx = { userId: ctx.userId, tenantId: ctx.tenantId, organizationId: ctx.organizationId };
    const batch = createBatcher<ApprovalRequest, ElementResult<InvoiceFacts | null>>(
      plans.length,
      (requests, batchKey) => xero.approveMany(xctx, requests, batchKey),
    );
    return Promise.allSettled(
      plans.map(async (plan) => {
        // A cash sale is due when made: a draft saved without a due date gets its own date.
        const request = xero.approvalRequest(
          plan.invoice.invoiceId,
          plan.invoice.dueDate ? null : (plan.invoice.date ?? getUkToday()),
        );
        return executeInBatch(ledger, ctx, batch, request, {
          kind: 'invoice.approve',
          targetId: plan.invoice.invoiceId,
          amountPence: plan.invoice.totalPence,
          idempotencyKey: keyOf(plan.invoice.invoiceId),
          request,
          audit: approvalAudit(ctx, plan.invoice),
          step: plan.firstStep,
          lookedUp: plan.lookedUp === true,
          xeroIdOf: () => plan.invoice.invoiceId,
        });
      }),
    );
  }

  /**
   * One draft row's action as the steps of an intent (issue 28): the approval and, when there is cash (typed
   * now plus `pendingPence` kept pending), its cash payment; or, for a draft that stays a draft, the cash kept
   * pending. Built from the cached draft and judged by nothing: the checks are the caller's.
   */
  function draftSteps(
    ctx: AddInvoicesContext,
    item: DraftInvoiceUpdateItem,
    invoice: CachedInvoiceRow,
    keys: DraftKeys,
    pendingPence: number,
  ): IntentStep[] {
    const number = numberOf(invoice);
    const id = invoice.invoiceId;
    const typed = toPence(item.cashAmount);
    if (!item.approve)
      return [
        {
          kind: 'cash.pending',
          idempotencyKey: keys.pending,
          targetId: id,
          amountPence: typed,
          request: { invoiceId: id, amountPence: typed, limitPence: invoice.totalPence },
          audit: pendingCashAudit(ctx, id, number, typed, pendingPence),
        },
      ];
    const cashPence = typed + pendingPence;
    const steps: IntentStep[] = [
      {
        kind: 'invoice.approve',
        idempotencyKey: keys.approve,
        targetId: id,
        amountPence: invoice.totalPence,
        request: xero.approvalRequest(id, invoice.dueDate ? null : (invoice.date ?? getUkToday())),
        audit: approvalAudit(ctx, invoice),
      },
    ];
    if (cashPence > 0) {
      const accountId = requireCashAccount(ctx);
      steps.push({
        kind: 'payment',
        idempotencyKey: keys.payment,
        targetId: id,
        amountPence: cashPence,
        request: cashPaymentRequest(
          id,
          number,
          accountId,
          cashPence,
          invoice.date ?? getUkToday(),
          pendingPence,
        ),
        audit: cashPaymentAudit(ctx, id, number, { cashPence, pendingPence }, accountId),
        after: 0,
      });
    }
    return steps;
  }

  /** The plan of an action whose steps are recorded (a retry of it, or one a restore forgot, found in Xero). */
  function planOfRecorded(
    item: DraftInvoiceUpdateItem,
    invoice: CachedInvoiceRow,
    rows: WriteRow[],
  ): ApprovalPlan {
    const firstStep = rows.find((r) => r.kind === (item.approve ? 'invoice.approve' : 'cash.pending'));
    const paymentStep = item.approve ? rows.find((r) => r.kind === 'payment') : undefined;
    // The cash is what its steps recorded the first time.
    const planned = paymentStep
      ? {
          cashPence: paymentStep.amountPence ?? 0,
          pendingPence: (paymentStep.request as Partial<CashPaymentRequest>).fromPendingPence ?? 0,
        }
      : {
          cashPence: item.approve ? 0 : (firstStep?.amountPence ?? toPence(item.cashAmount)),
          pendingPence: 0,
        };
    return { item, invoice, ...planned, firstStep, paymentStep };
  }

  /**
   * Whether `item` is the change its recorded steps were made for: the same key with other cash is another
   * change, refused (decision 015) rather than answered with the first.
   */
  function isSameAction(item: DraftInvoiceUpdateItem, recorded: Map<string, WriteRow>, keys: DraftKeys) {
    const typed = toPence(item.cashAmount);
    if (!item.approve) {
      const pending = recorded.get(keys.pending);
      return !pending || pending.amountPence === typed;
    }
    const payment = recorded.get(keys.payment);
    if (!payment) return typed === 0;
    const fromPending = (payment.request as Partial<CashPaymentRequest>).fromPendingPence ?? 0;
    return (payment.amountPence ?? 0) - fromPending === typed;
  }

  /**
   * Records one draft row's action as an intent (issue 28), under the draft's lock: refused (409) while
   * another write on the draft is open, when it was approved meanwhile, when one of its changes waits for
   * review, or when the pending cash is not what the screen showed (`pendingCashSeen`, sent by the browser;
   * older browsers without it get the cash as it is now). The cash paid on approval is the typed cash plus
   * the pending cash read under the lock, so no cash saved at the same moment can vanish. A retry of the
   * same action answers the steps recorded the first time.
   */
  async function recordDraftIntent(
    ctx: AddInvoicesContext,
    item: DraftInvoiceUpdateItem,
    invoice: CachedInvoiceRow,
    keys: DraftKeys,
  ): Promise<ApprovalPlan> {
    const number = numberOf(invoice);
    const id = invoice.invoiceId;
    const typed = toPence(item.cashAmount);
    const seen = item.pendingCashSeen === undefined ? undefined : toPence(item.pendingCashSeen);
    let planned = { cashPence: 0, pendingPence: 0 };
    const { rows, retried } = await ledger.recordIntent({
      organizationId: ctx.organizationId,
      userId: ctx.userId,
      document: { key: invoiceDocument(id), label: number },
      keys: item.approve ? [keys.approve, keys.payment] : [keys.pending],
      plan: async (tx) => {
        const orgId = ctx.organizationId;
        if (await ledger.hasHeldWrite(tx, orgId, invoiceDocument(id)))
          throw new AppError(
            'CONFLICT',
            `${number} has a change waiting for an administrator's review (Admin → Needs review); it cannot be changed here until that is settled.`,
          );
        const approvedBy = await ledger.findConfirmedActor(tx, orgId, 'invoice.approve', id);
        if (approvedBy)
          throw new AppError(
            'CONFLICT',
            `${number} was approved by ${approvedBy} since this list was loaded. Nothing was changed; refresh the list.`,
          );
        const status = await lockedDraftQueries.findStatus(tx, orgId, id);
        if (status !== 'DRAFT') throw new AppError('CONFLICT', notADraftAnyMore(invoice, status));
        const now = await lockedDraftQueries.findPendingCash(tx, orgId, id);
        const pendingPence = now?.amountPence ?? 0;
        if (seen !== undefined && seen !== pendingPence)
          throw new AppError('CONFLICT', describePendingCashChanged(number, seen, now));
        const over = overTotal(invoice, typed + pendingPence, pendingPence);
        if (over) throw new AppError('VALIDATION_ERROR', over);
        planned = item.approve
          ? { cashPence: typed + pendingPence, pendingPence }
          : { cashPence: typed, pendingPence };
        return draftSteps(ctx, item, invoice, keys, pendingPence);
      },
    });
    if (retried) return planOfRecorded(item, invoice, rows);
    const firstStep = rows.find((r) => r.kind === (item.approve ? 'invoice.approve' : 'cash.pending'));
    const paymentStep = item.approve ? rows.find((r) => r.kind === 'payment') : undefined;
    return { item, invoice, ...planned, firstStep, paymentStep };
  }

  /**
   * For a day after a restore, one draft row's action under keys the ledger does not know is looked up in
   * Xero before anything compares it with the cached draft (src/server/ledger/restore-recall.ts): an approval the restore
   * forgot is answered as the first time (approved, its cash paid once), not refused as "no longer a draft".
   * Null when Xero does not have it (or no restore was lately): the row is judged as a new change.
   */
  async function recallDraftAction(
    ctx: AddInvoicesContext,
    item: DraftInvoiceUpdateItem,
    invoice: CachedInvoiceRow,
    keys: DraftKeys,
    pendingPence: number,
  ): Promise<ApprovalPlan | null> {
    const rows = await ledger.recallForgotten({
      organizationId: ctx.organizationId,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      document: { key: invoiceDocument(invoice.invoiceId), label: numberOf(invoice) },
      steps: draftSteps(ctx, item, invoice, keys, pendingPence),
    });
    // Xero's copy of another change under the key (other cash) was refused by the payment's look-up.
    return rows ? planOfRecorded(item, invoice, rows) : null;
  }

  /** A same-key resend answered "already being processed": the write is open, its outcome not known yet. */
  function isStillOpen(reason: unknown): boolean {
    return (
      reason instanceof AppError && reason.code === 'CONFLICT' && isOpenWriteState(reason.extra?.writeState)
    );
  }

  function overTotal(invoice: CachedInvoiceRow, cashPence: number, pendingPence: number): string | null {
    if (cashPence <= invoice.totalPence) return null;
    const already = pendingPence > 0 ? ` (${formatMoney(pendingPence)} is already pending)` : '';
    return `The cash amount ${formatMoney(cashPence)}${already} is more than the total of invoice ${numberOf(invoice)}, ${formatMoney(invoice.totalPence)}.`;
  }

  function notADraftAnyMore(invoice: CachedInvoiceRow, status: string | null): string {
    return `Invoice ${numberOf(invoice)} is no longer a draft in Xero (${status ?? 'not found'}). Refresh the list.`;
  }

  /** Why an approval did not go through; when Xero's answer was lost, what happens to its cash (issue 28). */
  function describeApprovalFailure(plan: ApprovalPlan, reason: unknown): string {
    const number = numberOf(plan.invoice);
    const unknown = reason instanceof AppError && reason.extra?.writeState === 'unknown';
    if (unknown && plan.cashPence > 0)
      return `Xero did not confirm the approval of invoice ${number} in time. Ledgerlink is checking with Xero and pays its cash of ${formatMoney(plan.cashPence)} once Xero confirms the approval, never twice; refresh in a minute.`;
    return `Invoice ${number} was not approved: ${messageOf(reason)}`;
  }

  /**
   * Process one row or Process All (docs/product/features.md §7 POST /api/xero/draft-invoices/update). Each
   * row is one intent in the write ledger (issue 28): under the draft's lock it is refused while another
   * write on the draft is open (409 naming who is doing what) or when what the screen based it on has
   * changed (pending cash saved by someone else, an approval), else recorded with all its steps (the
   * approval and its cash payment, or the pending cash) before anything is sent. Approvals go out in
   * batches, then the cash of every approved row as batched payments. A refused item is reported with its
   * reason and never undoes the others; a request whose every item was refused that way is a 409.
   */
  async function updateDrafts(
    ctx: AddInvoicesContext,
    items: DraftInvoiceUpdateItem[],
    actionKey: string,
  ): Promise<DraftInvoiceUpdateResponse> {
    const failed: DraftInvoiceFailure[] = [];
    const fail = (id: string, message: string, conflict = false) =>
      failed.push(conflict ? { id, message, conflict } : { id, message });
    const ids = items.map((i) => i.id);
    const invoices = new Map((await repo.findInvoices(ctx.organizationId, ids)).map((r) => [r.invoiceId, r]));
    const pending = await repo.findPendingCash(ctx.organizationId, ids);
    const keysOf = (id: string): DraftKeys => ({
      approve: `${actionKey}:approve:${id}`,
      payment: `${actionKey}:payment:${id}`,
      pending: `${actionKey}:pending:${id}`,
    });
    // A retry of this same action (same key): its items replay from the ledger rather than being judged
    // again on data the first attempt already changed.
    const earlier = await ledger.findByKeys(
      ctx.organizationId,
      ids.flatMap((id) => Object.values(keysOf(id))),
    );

    let conflicts = 0;
    const toRecord: Array<{
      item: DraftInvoiceUpdateItem;
      invoice: CachedInvoiceRow;
      /** The steps are recorded already: found in Xero after a restore forgot them. */
      recalled?: ApprovalPlan;
      /** Xero was asked for them and has none (or no restore was lately). */
      lookedUp?: boolean;
    }> = [];
    for (const item of items) {
      const invoice = invoices.get(item.id);
      const typed = toPence(item.cashAmount);
      if (!invoice || invoice.type !== 'ACCREC') {
        fail(item.id, NOT_A_DRAFT_MESSAGE);
        continue;
      }
      if (!item.approve && typed === 0) {
        fail(item.id, 'Enter a cash amount or approve the invoice before saving');
        continue;
      }
      const keys = keysOf(item.id);
      if (earlier.has(item.approve ? keys.approve : keys.pending)) {
        // The same key again: the same change, or refused as another one (the whole request: nothing sent).
        if (!isSameAction(item, earlier, keys))
          throw new AppError('VALIDATION_ERROR', DIFFERENT_CHANGE_MESSAGE);
        toRecord.push({ item, invoice });
        continue;
      }
      // A key a restore may have forgotten is looked up in Xero before the cached draft judges it.
      const pendingPence = pending.get(item.id) ?? 0;
      let recalled: ApprovalPlan | null = null;
      try {
        recalled = await recallDraftAction(ctx, item, invoice, keys, pendingPence);
      } catch (error) {
        if (error instanceof AppError && error.message === DIFFERENT_CHANGE_MESSAGE) throw error;
        const conflict = error instanceof AppError && error.code === 'CONFLICT';
        if (conflict) conflicts += 1;
        fail(item.id, messageOf(error), conflict);
        continue;
      }
      if (recalled) {
        toRecord.push({ item, invoice, recalled });
        continue;
      }
      // A first look outside the lock for the plain refusal; the intent looks again under it, and
      // there also at what changed since the screen loaded (an approval, the pending cash).
      const over = overTotal(invoice, typed + pendingPence, pendingPence);
      if (over) {
        fail(item.id, over);
        continue;
      }
      toRecord.push({ item, invoice, lookedUp: true });
    }

    const needsCash = toRecord.some(
      ({ item }) => !item.approve || toPence(item.cashAmount) + (pending.get(item.id) ?? 0) > 0,
    );
    if (needsCash) requireCashAccount(ctx);
    let processed = 0;

    const approvals: ApprovalPlan[] = [];
    const cashOnly: ApprovalPlan[] = [];
    for (const { item, invoice, recalled, lookedUp } of toRecord) {
      try {
        const plan = recalled ?? {
          ...(await recordDraftIntent(ctx, item, invoice, keysOf(item.id))),
          lookedUp,
        };
        (item.approve ? approvals : cashOnly).push(plan);
      } catch (error) {
        const conflict = error instanceof AppError && error.code === 'CONFLICT';
        if (conflict) conflicts += 1;
        fail(item.id, messageOf(error), conflict);
      }
    }

    // Cash on drafts that stay drafts: kept in Ledgerlink until the draft is approved here
    // (docs/architecture.md §4).
    for (const plan of cashOnly) {
      const error = await keepPendingCash(
        ctx,
        {
          invoiceId: plan.invoice.invoiceId,
          invoiceNumber: numberOf(plan.invoice),
          limitPence: plan.invoice.totalPence,
          pendingBeforePence: plan.pendingPence,
        },
        plan.cashPence,
        keysOf(plan.invoice.invoiceId).pending,
        plan.firstStep,
      );
      if (error) fail(plan.invoice.invoiceId, error);
      else processed += 1;
    }

    const approved: ApprovalPlan[] = [];
    const stillOpen: Array<{ plan: ApprovalPlan; reason: unknown }> = [];
    for (const part of chunk(approvals, XERO_BATCH_SIZE)) {
      const results = await approveChunk(ctx, part, (id) => keysOf(id).approve);
      for (const [i, result] of results.entries()) {
        const plan = part[i];
        if (!plan) continue;
        if (result.status === 'rejected') {
          // Its earlier attempt is still on its way (a resend while the first request, or the instance that
          // sent it, is still being waited for): in doubt, never "not approved" (issue 44, the soak).
          if (isStillOpen(result.reason)) {
            stillOpen.push({ plan, reason: result.reason });
            continue;
          }
          fail(plan.invoice.invoiceId, describeApprovalFailure(plan, result.reason));
          continue;
        }
        approved.push(plan);
        // A replayed answer is old news: the cache took it the first time.
        if (result.value.replayed) continue;
        const approvedInvoice = result.value.response;
        if (approvedInvoice) await repo.saveInvoice(approvedInvoice.cacheRow);
        else await repo.saveInvoice({ ...plan.invoice, status: 'AUTHORISED', syncedAt: new Date() });
      }
    }

    // Cash of the approved drafts: Xero takes payments only once an invoice is approved
    // (docs/xero-api.md §4.1). Each is the recorded second step of its approval's intent.
    const payments: PaymentPlan[] = approved
      .filter((p) => p.cashPence > 0)
      .map((p) => ({
        invoiceId: p.invoice.invoiceId,
        invoiceNumber: numberOf(p.invoice),
        date: p.invoice.date ?? getUkToday(),
        cashPence: p.cashPence,
        pendingPence: p.pendingPence,
        key: keysOf(p.invoice.invoiceId).payment,
        step: p.paymentStep,
      }));
    const cashAccountId = payments.length > 0 ? requireCashAccount(ctx) : '';
    const paymentFailures =
      payments.length > 0 ? await payCash(ctx, payments, cashAccountId) : new Map<string, WriteFailure>();
    for (const plan of approved) {
      const paymentFailure = paymentFailures.get(plan.invoice.invoiceId);
      if (paymentFailure) {
        failed.push({
          id: plan.invoice.invoiceId,
          message: describeCashFailure('approved', numberOf(plan.invoice), plan.cashPence, paymentFailure),
          approved: true,
          unrecordedCashAmount: fromPence(plan.cashPence),
          cashOutcome: paymentFailure.outcome === 'unconfirmed' ? 'unconfirmed' : 'not-recorded',
        });
      } else {
        processed += 1;
      }
    }
    // Only rows still on their way from an earlier attempt: the answer is the same key's "already being
    // processed" (409, Retry-After), as for one write, so the browser asks again and gets the outcome.
    const [firstOpen] = stillOpen;
    if (firstOpen && processed === 0 && failed.length === 0) throw firstOpen.reason;
    for (const { plan } of stillOpen)
      failed.push({
        id: plan.invoice.invoiceId,
        message: `Invoice ${numberOf(plan.invoice)} is still being approved by an earlier attempt of this change: refresh in a moment to see the result${plan.cashPence > 0 ? `; its cash of ${formatMoney(plan.cashPence)} is paid once, when Xero confirms the approval` : ''}.`,
        conflict: true,
      });
    // Refused outright because someone else acted first: a 409, so the screen refreshes (issue 28).
    if (processed === 0 && conflicts > 0 && conflicts === failed.length)
      throw new AppError('CONFLICT', failed.map((f) => f.message).join(' '));
    return { processed, failed };
  }

  return { updateDrafts };
}
