import { AppError } from '../../lib/app-error';
import {
  type ConfirmHook,
  hasWriteMark,
  HELD_USER_GONE,
  type LocalKindHandlers,
  type LocalWrite,
  RETRY_REFUSED_KIND,
  type RetryActor,
  type StepRunner,
  withWriteMark,
  type WriteAudit,
  type WriteKindHandlers,
  type WriteRow,
  type WriteStepHandlers,
} from '../../ledger/index';
import type { ApprovalRequest, InvoiceFacts, XeroContext } from '../../xero/xero-port';
import { lockedDraftQueries } from './add-invoices.repository';
import type { CashPaymentRequest, PendingCashRequest } from './cash';
import type { AddInvoicesDeps } from './context';

/**
 * What the write ledger needs from Add Invoices to settle its writes without the request that made them
 * (issue 28): finders that look a lost answer up in Xero and the retry of a held approval (`writeKinds`), and
 * the runners of the steps an intent left unsent and the hooks run when a write is confirmed (`writeSteps`),
 * all answered for the wiring site to register (src/server/ledger/write-kinds.ts).
 */
export function createAddInvoicesWriteKinds({
  ledger,
  xero,
}: Pick<AddInvoicesDeps, 'repo' | 'ledger' | 'xero'>) {
  // An approval whose answer was lost: the invoice tells whether it was approved. An approval is
  // idempotent by state, so after a restore the same look-up tells whether Xero already has it.
  const findApproval = async (xctx: XeroContext, row: WriteRow) => {
    if (!row.targetId) return null;
    const found = await xero.findApproval(xctx, row.targetId);
    return found ? { xeroId: found.invoiceId, response: found } : null;
  };

  // A new invoice whose answer was lost: the one carrying the write's mark in its Reference, else one of
  // ours for the contact, date and total not matched yet. After a restore: by its mark only.
  const findCreated =
    (byMarkOnly: boolean) => async (xctx: XeroContext & { organizationId: number }, row: WriteRow) => {
      if (row.amountPence === null) return null;
      const claimed = byMarkOnly
        ? new Set<string>()
        : await ledger.claimedXeroIds(row.organizationId, 'invoice.create', row.id);
      const found = await xero.findCreatedInvoice(xctx, row.request, row.amountPence, claimed, {
        has: (reference) => hasWriteMark(reference, row.idempotencyKey),
        byMarkOnly,
      });
      return found ? { xeroId: found.invoiceId, response: found } : null;
    };

  /**
   * Steps an intent recorded and its request left unsent (issue 28): the reconciler finishes them with these,
   * once the step before is confirmed. The cash of a new invoice learns the invoice's id when it is claimed.
   */
  const bindToCreated = (row: WriteRow, before: WriteRow) => {
    if (row.targetId || before.kind !== 'invoice.create' || !before.xeroId) return {};
    const created = before.response as InvoiceFacts | null;
    const request = row.request as Record<string, unknown>;
    const audit = row.audit as WriteAudit | null;
    const number = created?.invoiceNumber ?? '';
    return {
      targetId: before.xeroId,
      ...(audit
        ? { audit: { ...audit, target: before.xeroId, detail: { ...audit.detail, invoiceNumber: number } } }
        : {}),
      request: {
        ...request,
        invoiceId: before.xeroId,
        ...(typeof request.invoiceNumber === 'string' && created?.invoiceNumber
          ? {
              invoiceNumber: created.invoiceNumber,
              reference: `Cash payment for ${created.invoiceNumber}`,
            }
          : {}),
      },
    };
  };
  /** A new invoice's (or an approved draft's) cash payment, sent once the invoice is in Xero and approved. */
  const runCashPayment: StepRunner = {
    bind: bindToCreated,
    send: async (row, xctx, key) => {
      const request = row.request as CashPaymentRequest;
      const invoiceId = row.targetId ?? request.invoiceId;
      if (!invoiceId || row.amountPence === null)
        throw new AppError('VALIDATION_ERROR', 'The cash payment does not name its invoice.');
      const [answer] = await xero.createPayments(
        xctx,
        [
          {
            invoiceId,
            accountId: request.accountId,
            amountPence: row.amountPence,
            date: request.date,
            reference: withWriteMark(request.reference, key),
          },
        ],
        key,
      );
      if (!answer) throw new AppError('XERO_UNAVAILABLE', 'Xero did not answer the cash payment.');
      if (!answer.ok) throw new AppError('XERO_REJECTED', answer.error);
      return { xeroId: answer.value?.paymentId ?? null, response: answer.value };
    },
  };
  /**
   * Cash kept pending on a draft (a draft row's, or a new draft's once Xero created it): Ledgerlink's own row,
   * never sent to Xero, so the ledger applies it in the transaction that confirms it and settles it from the
   * database after a crash (issue 44: it was left "outcome unknown", and a cancel left the cash on the draft).
   */
  const pendingCash: LocalWrite = {
    bind: bindToCreated,
    apply: async (tx, row) => {
      const request = row.request as PendingCashRequest;
      const invoiceId = row.targetId ?? request.invoiceId;
      if (!invoiceId || row.userId === null)
        return { refused: 'The pending cash does not name its invoice.' };
      const ok = await lockedDraftQueries.addPendingCash(
        tx,
        row.organizationId,
        invoiceId,
        request.amountPence,
        request.limitPence,
        row.userId,
      );
      if (!ok) {
        const number = (row.audit as WriteAudit | null)?.detail?.invoiceNumber;
        const named = typeof number === 'string' && number ? `invoice ${number}` : 'the invoice';
        return {
          refused: `The cash amount is more than the total of ${named}. Refresh the list and try again.`,
        };
      }
      return { response: request };
    },
    // A write an older version left sent or held: the pending cash now against what Ledgerlink's settled
    // writes account for (every pending cash is added and paid through the ledger), with it or without it.
    isApplied: async (tx, row) => {
      const invoiceId = row.targetId ?? (row.request as PendingCashRequest).invoiceId;
      if (!invoiceId || row.amountPence === null) return null;
      const now =
        (await lockedDraftQueries.findPendingCash(tx, row.organizationId, invoiceId))?.amountPence ?? 0;
      const settled = await ledger.findConfirmedOnTarget(tx, {
        organizationId: row.organizationId,
        targetId: invoiceId,
        kinds: ['cash.pending', 'payment'],
        exceptId: row.id,
      });
      const accounted = settled.reduce((sum, w) => {
        if (w.kind === 'cash.pending') return sum + (w.amountPence ?? 0);
        if ((w.audit as WriteAudit | null)?.action !== 'add-invoices.cash-payment') return sum;
        return sum - ((w.request as Partial<CashPaymentRequest>).fromPendingPence ?? 0);
      }, 0);
      if (now === accounted) return false;
      if (now === accounted + row.amountPence) return true;
      return null;
    },
    undo: async (tx, row) => {
      const invoiceId = row.targetId ?? (row.request as PendingCashRequest).invoiceId;
      if (invoiceId && row.amountPence)
        await lockedDraftQueries.consumePendingCash(tx, row.organizationId, invoiceId, row.amountPence);
    },
  };

  // Whoever confirms it (the request, a same-key retry, the reconciler, an administrator), in the same
  // transaction: an approval takes the draft off the drafts; a cash payment takes its pending part off the
  // draft's pending cash and has the cached balance read from Xero again.
  const onApprovalConfirmed: ConfirmHook = async (tx, row) => {
    if (row.targetId) await lockedDraftQueries.markApproved(tx, row.organizationId, row.targetId);
  };
  const onPaymentConfirmed: ConfirmHook = async (tx, row) => {
    if ((row.audit as WriteAudit | null)?.action !== 'add-invoices.cash-payment') return;
    const request = row.request as Partial<CashPaymentRequest>;
    const invoiceId = row.targetId ?? request.invoiceId;
    if (!invoiceId) return;
    await lockedDraftQueries.consumePendingCash(
      tx,
      row.organizationId,
      invoiceId,
      request.fromPendingPence ?? 0,
    );
    await lockedDraftQueries.markStale(tx, row.organizationId, invoiceId);
  };

  /**
   * An administrator sends a held approval again (Admin → Needs review, issue 28), once the ledger has asked
   * Xero and the invoice is not approved there: the recorded approval, under `idempotencyKey`, as the user
   * who made it (their Xero connection), the activity line naming the administrator.
   */
  async function retryHeldApproval(row: WriteRow, by: RetryActor, idempotencyKey: string) {
    if (row.userId === null) throw new AppError('CONFLICT', HELD_USER_GONE);
    const invoiceId = row.targetId;
    if (!invoiceId) throw new AppError('CONFLICT', RETRY_REFUSED_KIND);
    const xctx = { userId: row.userId, tenantId: by.tenantId, organizationId: row.organizationId };
    const request = row.request as ApprovalRequest;
    const audit = row.audit as WriteAudit | null;
    const outcome = await ledger.execute<InvoiceFacts | null>({
      organizationId: row.organizationId,
      tenantId: by.tenantId,
      userId: row.userId,
      kind: 'invoice.approve',
      targetId: invoiceId,
      amountPence: row.amountPence,
      idempotencyKey,
      request,
      audit: {
        action: audit?.action ?? 'add-invoices.approve',
        target: invoiceId,
        username: by.username,
        ip: by.ip ?? null,
        detail: { ...audit?.detail, sentAgainFor: row.id },
      },
      send: async (key) => {
        const [answer] = await xero.approveMany(xctx, [request], key);
        if (!answer) throw new AppError('XERO_UNAVAILABLE', 'Xero answered no invoice');
        if (!answer.ok) throw new AppError('XERO_REJECTED', answer.error);
        return { xeroId: invoiceId, response: answer.value };
      },
    });
    return { writeId: outcome.writeId, xeroId: outcome.xeroId ?? invoiceId };
  }

  /**
   * How the ledger settles Add Invoices' writes (registered by the wiring site). A held approval Xero does not
   * have can be sent again by an administrator (Needs review).
   */
  const writeKinds: WriteKindHandlers[] = [
    { kind: 'invoice.approve', find: findApproval, afterRestore: 'find', retry: retryHeldApproval },
    { kind: 'invoice.create', find: findCreated(false), afterRestore: findCreated(true) },
  ];
  /** The steps of Add Invoices' intents, and what their confirmation changes here (registered by the wiring site). */
  const writeSteps: WriteStepHandlers[] = [
    { kind: 'invoice.approve', onConfirm: onApprovalConfirmed },
    { kind: 'payment', runStep: runCashPayment, onConfirm: onPaymentConfirmed },
  ];
  /** Add Invoices' writes that never go to Xero (registered by the wiring site). */
  const localKinds: LocalKindHandlers[] = [{ kind: 'cash.pending', local: pendingCash }];
  return { writeKinds, writeSteps, localKinds };
}
