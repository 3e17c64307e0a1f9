import crypto from 'node:crypto';
import type {
  DraftInvoice,
  DraftInvoiceCreateRequest,
  DraftInvoiceCreateResponse,
  DraftInvoiceFailure,
  DraftInvoiceUpdateItem,
  DraftInvoiceUpdateResponse,
  NewInvoiceDefaults,
  UnfinishedDraftAction,
} from '../../../shared/add-invoices';
import { formatDateNumeric, getUkToday } from '../../../shared/dates';
import { formatMoney, fromPence, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { XeroSync } from '../../xero/sync/sync.service';
import {
  hasWriteMark,
  HELD_USER_GONE,
  invoiceDocument,
  RETRY_REFUSED_KIND,
  withWriteMark,
  type IntentStep,
  type RetryActor,
  type WriteAudit,
  type WriteLedger,
  type WriteRow,
  type WriteSpec,
} from '../../xero/write-ledger';
import type {
  AddInvoicesXero,
  ApprovalRequest,
  ElementResult,
  InvoiceFacts,
  NewPayment,
  XeroContext,
  XeroPaymentFacts,
} from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { OrganizationRow } from '../organizations/organizations.repository';
import {
  lockedDraftQueries,
  type AddInvoicesRepository,
  type CachedInvoiceRow,
} from './add-invoices.repository';
import { chunk, createBatcher, type Batcher } from '../../xero/batcher';
import { describeWriteFailure, type WriteFailure } from '../../xero/write-failure';

/** Who acts, for which organisation (from `resolveTenant`), and from where (for the audit log). */
export interface AddInvoicesContext {
  organizationId: number;
  tenantId: string;
  userId: number;
  username: string;
  ip: string;
  organization: OrganizationRow;
}

/** Largest batch per Xero call: docs/xero-api.md §3 advises modest batches of about 50 elements. */
export const XERO_BATCH_SIZE = 50;

export const MISSING_CASH_ACCOUNT_MESSAGE =
  'No default cash account is set for this organization. Choose a Default Cash Account in Settings before entering cash amounts.';
export const NOT_A_DRAFT_MESSAGE =
  'This invoice is not one of the draft invoices of this organization. Refresh the list and try again.';

interface ApprovalPlan {
  item: DraftInvoiceUpdateItem;
  invoice: CachedInvoiceRow;
  /** Cash typed now plus cash kept pending for this draft: what is paid once it is approved. */
  cashPence: number;
  pendingPence: number;
  /** The intent's recorded steps (issue 28): the approval (or the pending cash) and its cash payment. */
  firstStep?: WriteRow;
  paymentStep?: WriteRow;
}

interface PaymentPlan {
  invoiceId: string;
  invoiceNumber: string;
  date: string;
  cashPence: number;
  /** The part of the cash that came from the pending amount, taken off it once paid. */
  pendingPence: number;
  key: string;
  step?: WriteRow;
}

/**
 * A cash payment as the ledger records it: the spec's payment request item (docs/product/features.md §3), the
 * shape Pay Invoices records too, so the one 'payment' finder looks either feature's payments up.
 * `fromPendingPence` is the part of it that was pending cash, taken off the pending amount when Xero confirms
 * the payment. `invoiceId` is null for the cash of an invoice not created yet (bound when it is).
 */
interface CashPaymentRequest {
  invoiceId: string | null;
  invoiceNumber: string;
  accountId: string;
  amount: number;
  date: string;
  reference: string;
  isCard: false;
  requestedPence: number;
  fromPendingPence: number;
}

function cashPaymentRequest(
  invoiceId: string | null,
  invoiceNumber: string,
  accountId: string,
  cashPence: number,
  date: string,
  fromPendingPence: number,
): CashPaymentRequest {
  return {
    invoiceId,
    invoiceNumber,
    accountId,
    amount: fromPence(cashPence),
    date,
    reference: `Cash payment for ${invoiceNumber}`,
    isCard: false,
    requestedPence: cashPence,
    fromPendingPence,
  };
}

/** The 409 for a change based on pending cash that has changed since the screen loaded (issue 28). */
export function describePendingCashChanged(
  invoiceNumber: string,
  seenPence: number,
  now: { amountPence: number; username: string | null } | null,
): string {
  const nowPence = now?.amountPence ?? 0;
  const by = now?.username ? ` (saved by ${now.username})` : '';
  return `The pending cash on ${invoiceNumber} changed since this list was loaded: ${formatMoney(nowPence)} is pending now${by}, not ${formatMoney(seenPence)}. Nothing was changed; check the refreshed list and try again.`;
}

function numberOf(invoice: CachedInvoiceRow): string {
  return invoice.invoiceNumber || invoice.invoiceId;
}

/**
 * One message for an invoice Xero approved (or created approved) whose cash payment failed (issue 17 item 3):
 * what happened to the cash, why, and where to pay it. Never "did not confirm" when Xero refused it.
 */
export function describeCashFailure(
  what: 'approved' | 'created',
  invoiceNumber: string,
  cashPence: number,
  failure: WriteFailure,
): string {
  const cash = formatMoney(cashPence);
  return failure.outcome === 'unconfirmed'
    ? `Invoice ${invoiceNumber} was ${what}, but Xero did not confirm its cash payment of ${cash} (${failure.reason}). Ledgerlink is checking with Xero: look at the invoice on Pay Invoices in a minute, and pay the cash there only if it is still due.`
    : `Invoice ${invoiceNumber} was ${what}, but its cash payment of ${cash} was not recorded (${failure.reason}). Pay it on Pay Invoices.`;
}

function messageOf(error: unknown): string {
  if (error instanceof AppError)
    return error.detail && error.code !== 'XERO_UNAVAILABLE'
      ? `${error.message}: ${error.detail}`
      : error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Add Invoices (docs/product/features.md §2–§8, docs/architecture.md §4): draft sales invoices from the
 * cache, approval and cash payments in as few Xero calls as the API allows (one `POST /Invoices` for up to 50
 * approvals, one `PUT /Payments` for up to 50 payments), every item recorded in the write ledger, and new
 * invoices on the organisation's defaults. "Cash amount" is a payment to the default cash account; on a draft
 * not approved yet it is kept here as pending and paid when the draft is approved through Ledgerlink.
 */
export function createAddInvoicesService(deps: {
  repo: AddInvoicesRepository;
  /** Xero's operations for this feature (the port's `addInvoices`; a unit test may hand in a fake). */
  xero: AddInvoicesXero;
  ledger: WriteLedger;
  sync: XeroSync;
  /** Kept for the wiring; every line of this feature is written by the ledger when its write settles. */
  audit?: AuditLog;
}) {
  const { repo, ledger, sync } = deps;
  const { xero } = deps;

  const syncCtx = (ctx: AddInvoicesContext) => ({
    organizationId: ctx.organizationId,
    tenantId: ctx.tenantId,
    userId: ctx.userId,
  });

  /** The activity-log line of a write: the ledger writes it once the write settles. */
  const auditOf = (
    ctx: AddInvoicesContext,
    action: string,
    target: string | null,
    detail: Record<string, unknown>,
  ): WriteAudit => ({
    action,
    target,
    username: ctx.username,
    ip: ctx.ip,
    detail,
  });

  /** An approval's line says what Xero approved; its cash payment has a line of its own (issue 28). */
  const approvalAudit = (ctx: AddInvoicesContext, invoice: CachedInvoiceRow) =>
    auditOf(ctx, 'add-invoices.approve', invoice.invoiceId, {
      invoiceNumber: numberOf(invoice),
      totalPence: invoice.totalPence,
    });

  const cashPaymentAudit = (
    ctx: AddInvoicesContext,
    invoiceId: string | null,
    invoiceNumber: string,
    cash: { cashPence: number; pendingPence: number },
    cashAccountId: string,
  ) =>
    auditOf(ctx, 'add-invoices.cash-payment', invoiceId, {
      invoiceNumber,
      amountPence: cash.cashPence,
      fromPendingPence: cash.pendingPence,
      accountId: cashAccountId,
    });

  const pendingCashAudit = (
    ctx: AddInvoicesContext,
    invoiceId: string | null,
    invoiceNumber: string,
    pence: number,
    pendingBeforePence: number,
  ) =>
    auditOf(ctx, 'add-invoices.cash-pending', invoiceId, {
      invoiceNumber,
      amountPence: pence,
      pendingBeforePence,
    });

  /**
   * One item's ledger write, sent as an element of a batch call: the item joins the batch when the ledger
   * asks to send, and leaves it when the ledger answers without sending (a replay, a conflict), so the batch
   * never waits for an item that will not come. An element Xero refused fails this item alone.
   */
  async function executeInBatch<E, A>(
    ctx: AddInvoicesContext,
    batch: Batcher<E, ElementResult<A>>,
    element: E,
    write: Pick<
      WriteSpec<A>,
      'kind' | 'targetId' | 'amountPence' | 'idempotencyKey' | 'request' | 'audit' | 'step'
    > & { xeroIdOf: (answer: A) => string | null },
  ) {
    const { xeroIdOf, ...spec } = write;
    let joined = false;
    try {
      return await ledger.execute<A>({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        ...spec,
        send: async (key) => {
          joined = true;
          const answer = await batch.join(key, element);
          if (!answer.ok) throw new AppError('XERO_REJECTED', answer.error);
          return { xeroId: xeroIdOf(answer.value), response: answer.value };
        },
      });
    } finally {
      if (!joined) batch.leave();
    }
  }

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
        return executeInBatch(ctx, batch, request, {
          kind: 'invoice.approve',
          targetId: plan.invoice.invoiceId,
          amountPence: plan.invoice.totalPence,
          idempotencyKey: keyOf(plan.invoice.invoiceId),
          request,
          audit: approvalAudit(ctx, plan.invoice),
          step: plan.firstStep,
          xeroIdOf: () => plan.invoice.invoiceId,
        });
      }),
    );
  }

  /** Sends up to 50 cash payments in one Xero call, one ledger row per payment. */
  async function payChunk(ctx: AddInvoicesContext, plans: PaymentPlan[], cashAccountId: string) {
    const batch = createBatcher<NewPayment, ElementResult<XeroPaymentFacts | null>>(
      plans.length,
      (payments, batchKey) => xero.createPayments(ctx, payments, batchKey),
    );
    return Promise.allSettled(
      plans.map(async (plan) => {
        const payment: NewPayment = {
          invoiceId: plan.invoiceId,
          accountId: cashAccountId,
          amountPence: plan.cashPence,
          date: plan.date,
          // The write's mark in the Reference: found by it after a restore (issue 28), as Pay Invoices' are.
          reference: withWriteMark(`Cash payment for ${plan.invoiceNumber}`, plan.key),
        };
        const request = cashPaymentRequest(
          plan.invoiceId,
          plan.invoiceNumber,
          cashAccountId,
          plan.cashPence,
          plan.date,
          plan.pendingPence,
        );
        return executeInBatch(ctx, batch, payment, {
          kind: 'payment',
          targetId: plan.invoiceId,
          amountPence: plan.cashPence,
          idempotencyKey: plan.key,
          request,
          audit: cashPaymentAudit(ctx, plan.invoiceId, plan.invoiceNumber, plan, cashAccountId),
          step: plan.step,
          xeroIdOf: (answer) => answer?.paymentId ?? null,
        });
      }),
    );
  }

  /**
   * Pays each plan into the default cash account (batched), then records what Xero accepted in the cache
   * and takes the paid part off the pending cash. Returns the failures by invoice id.
   */
  async function payCash(
    ctx: AddInvoicesContext,
    plans: PaymentPlan[],
    cashAccountId: string,
  ): Promise<Map<string, WriteFailure>> {
    const failures = new Map<string, WriteFailure>();
    for (const part of chunk(plans, XERO_BATCH_SIZE)) {
      const sentAt = new Date();
      const results = await payChunk(ctx, part, cashAccountId);
      for (const [i, result] of results.entries()) {
        const plan = part[i];
        if (!plan) continue;
        if (result.status === 'rejected') {
          failures.set(plan.invoiceId, describeWriteFailure(result.reason));
          continue;
        }
        // A replayed answer is old news: the cache and the pending cash already took it the first time.
        if (result.value.replayed) continue;
        const payment = result.value.response;
        await repo.applyPayment(
          ctx.organizationId,
          plan.invoiceId,
          plan.cashPence,
          {
            status: payment?.invoice?.status ?? null,
            amountDuePence: payment?.invoice?.amountDuePence ?? null,
            amountPaidPence: payment?.invoice?.amountPaidPence ?? null,
          },
          payment?.updatedUtc ? new Date(payment.updatedUtc) : null,
          sentAt,
        );
        // The pending part of the cash was taken off the draft's pending amount when Xero confirmed it.
      }
    }
    return failures;
  }

  /**
   * Keeps cash against a draft in Ledgerlink (docs/architecture.md §4). It goes through the write ledger like
   * a Xero write (kind 'cash.pending', nothing is sent to Xero) so a retried action adds it once, not twice.
   */
  async function keepPendingCash(
    ctx: AddInvoicesContext,
    invoice: { invoiceId: string; invoiceNumber: string; limitPence: number; pendingBeforePence: number },
    pence: number,
    key: string,
    step?: WriteRow,
  ): Promise<string | null> {
    const request = { invoiceId: invoice.invoiceId, amountPence: pence, limitPence: invoice.limitPence };
    try {
      await ledger.execute({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'cash.pending',
        targetId: invoice.invoiceId,
        amountPence: pence,
        idempotencyKey: key,
        request,
        step,
        audit: pendingCashAudit(
          ctx,
          invoice.invoiceId,
          invoice.invoiceNumber,
          pence,
          invoice.pendingBeforePence,
        ),
        send: async () => {
          const ok = await repo.addPendingCash(
            ctx.organizationId,
            invoice.invoiceId,
            pence,
            invoice.limitPence,
            ctx.userId,
          );
          if (!ok) {
            throw new AppError(
              'VALIDATION_ERROR',
              `The cash amount is more than the total of invoice ${invoice.invoiceNumber}. Refresh the list and try again.`,
            );
          }
          return { xeroId: null, response: request };
        },
      });
      return null;
    } catch (e) {
      return messageOf(e);
    }
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
    keys: { approve: string; payment: string; pending: string },
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
        if (!item.approve) {
          planned = { cashPence: typed, pendingPence };
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
        }
        const cashPence = typed + pendingPence;
        planned = { cashPence, pendingPence };
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
      },
    });
    const firstStep = rows.find((r) => r.kind === (item.approve ? 'invoice.approve' : 'cash.pending'));
    const paymentStep = item.approve ? rows.find((r) => r.kind === 'payment') : undefined;
    if (retried) {
      // The same action again: the cash is what its steps recorded the first time.
      if (paymentStep)
        planned = {
          cashPence: paymentStep.amountPence ?? 0,
          pendingPence: (paymentStep.request as Partial<CashPaymentRequest>).fromPendingPence ?? 0,
        };
      else planned = { cashPence: item.approve ? 0 : (firstStep?.amountPence ?? typed), pendingPence: 0 };
    }
    return { item, invoice, ...planned, firstStep, paymentStep };
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

  function requireCashAccount(ctx: AddInvoicesContext): string {
    const id = ctx.organization.defaultCashAccountId;
    if (!id) throw new AppError('VALIDATION_ERROR', MISSING_CASH_ACCOUNT_MESSAGE);
    return id;
  }

  function registerFinders() {
    // An approval whose answer was lost: the invoice tells whether it was approved. An approval is
    // idempotent by state, so after a restore the same look-up tells whether Xero already has it.
    ledger.registerFinder(
      'invoice.approve',
      async (xctx: XeroContext, row: WriteRow) => {
        if (!row.targetId) return null;
        const found = await xero.findApproval(xctx, row.targetId);
        return found ? { xeroId: found.invoiceId, response: found } : null;
      },
      'find',
    );

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
    ledger.registerFinder('invoice.create', findCreated(false), findCreated(true));
  }
  registerFinders();

  /**
   * Steps an intent recorded and its request left unsent (issue 28): the reconciler finishes them with these,
   * once the step before is confirmed. The cash of a new invoice learns the invoice's id when it is claimed.
   */
  function registerStepRunners() {
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
    ledger.registerStepRunner('payment', {
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
    });
    ledger.registerStepRunner('cash.pending', {
      bind: bindToCreated,
      send: async (row) => {
        const request = row.request as { invoiceId: string | null; amountPence: number; limitPence: number };
        const invoiceId = row.targetId ?? request.invoiceId;
        if (!invoiceId || row.userId === null)
          throw new AppError('VALIDATION_ERROR', 'The pending cash does not name its invoice.');
        const ok = await repo.addPendingCash(
          row.organizationId,
          invoiceId,
          request.amountPence,
          request.limitPence,
          row.userId,
        );
        if (!ok) throw new AppError('VALIDATION_ERROR', 'The cash amount is more than the invoice total.');
        return { xeroId: null, response: request };
      },
    });

    // Whoever confirms it (the request, a same-key retry, the reconciler, an administrator), in the same
    // transaction: an approval takes the draft off the drafts; a cash payment takes its pending part off the
    // draft's pending cash and has the cached balance read from Xero again.
    ledger.registerConfirmHook('invoice.approve', async (tx, row) => {
      if (row.targetId) await lockedDraftQueries.markApproved(tx, row.organizationId, row.targetId);
    });
    ledger.registerConfirmHook('payment', async (tx, row) => {
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
    });
  }
  registerStepRunners();

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
  // A held approval Xero does not have can be sent again by an administrator (Needs review).
  ledger.registerRetrier('invoice.approve', retryHeldApproval);

  return {
    /**
     * Draft sales invoices (docs/product/features.md §7 GET /api/xero/draft-invoices), synced first when
     * never seen or on `refresh`.
     */
    async listDrafts(ctx: AddInvoicesContext, options: { refresh: boolean }): Promise<DraftInvoice[]> {
      if (options.refresh) await sync.syncInvoices(syncCtx(ctx), { key: 'sales-draft' });
      else await sync.ensureInvoices(syncCtx(ctx), { key: 'sales-draft' });
      const rows = await repo.findDrafts(ctx.organizationId);
      return rows
        .map((r) => ({
          id: r.invoiceId,
          invoiceNumber: r.invoiceNumber ?? '',
          contactName: r.contactName ?? '',
          date: r.date ?? getUkToday(),
          totalAmount: fromPence(r.totalPence),
          currency: r.currencyCode || 'GBP',
          pendingCashAmount: fromPence(r.pendingPence ?? 0),
        }))
        .sort((a, b) =>
          a.date < b.date ? 1 : a.date > b.date ? -1 : a.invoiceNumber.localeCompare(b.invoiceNumber),
        );
    },

    /**
     * Process one row or Process All (docs/product/features.md §7 POST /api/xero/draft-invoices/update). Each
     * row is one intent in the write ledger (issue 28): under the draft's lock it is refused while another
     * write on the draft is open (409 naming who is doing what) or when what the screen based it on has
     * changed (pending cash saved by someone else, an approval), else recorded with all its steps (the
     * approval and its cash payment, or the pending cash) before anything is sent. Approvals go out in
     * batches, then the cash of every approved row as batched payments. A refused item is reported with its
     * reason and never undoes the others; a request whose every item was refused that way is a 409.
     */
    async updateDrafts(
      ctx: AddInvoicesContext,
      items: DraftInvoiceUpdateItem[],
      actionKey: string,
    ): Promise<DraftInvoiceUpdateResponse> {
      const failed: DraftInvoiceFailure[] = [];
      const fail = (id: string, message: string, conflict = false) =>
        failed.push(conflict ? { id, message, conflict } : { id, message });
      const ids = items.map((i) => i.id);
      const invoices = new Map(
        (await repo.findInvoices(ctx.organizationId, ids)).map((r) => [r.invoiceId, r]),
      );
      const pending = await repo.findPendingCash(ctx.organizationId, ids);
      const keysOf = (id: string) => ({
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

      const toRecord: Array<{ item: DraftInvoiceUpdateItem; invoice: CachedInvoiceRow }> = [];
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
        if (!earlier.has(item.approve ? keys.approve : keys.pending)) {
          // A first look outside the lock for the plain refusal; the intent looks again under it, and
          // there also at what changed since the screen loaded (an approval, the pending cash).
          const pendingPence = pending.get(item.id) ?? 0;
          const over = overTotal(invoice, typed + pendingPence, pendingPence);
          if (over) {
            fail(item.id, over);
            continue;
          }
        }
        toRecord.push({ item, invoice });
      }

      const needsCash = toRecord.some(
        ({ item }) => !item.approve || toPence(item.cashAmount) + (pending.get(item.id) ?? 0) > 0,
      );
      if (needsCash) requireCashAccount(ctx);
      let processed = 0;
      let conflicts = 0;

      const approvals: ApprovalPlan[] = [];
      const cashOnly: ApprovalPlan[] = [];
      for (const { item, invoice } of toRecord) {
        try {
          const plan = await recordDraftIntent(ctx, item, invoice, keysOf(item.id));
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
      for (const part of chunk(approvals, XERO_BATCH_SIZE)) {
        const results = await approveChunk(ctx, part, (id) => keysOf(id).approve);
        for (const [i, result] of results.entries()) {
          const plan = part[i];
          if (!plan) continue;
          if (result.status === 'rejected') {
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
      // Refused outright because someone else acted first: a 409, so the screen refreshes (issue 28).
      if (processed === 0 && conflicts > 0 && conflicts === failed.length)
        throw new AppError('CONFLICT', failed.map((f) => f.message).join(' '));
      return { processed, failed };
    },

    /**
     * A new invoice (docs/product/features.md §7 POST /api/xero/draft-invoices/create) to the default
     * contact, one line on the default sales account, VAT rate and tax status; approved or draft; its cash
     * paid or kept pending. One intent (issue 28): the new invoice and its cash are recorded before the
     * invoice is sent, so the cash is paid (or kept) by whoever finishes the action after a crash.
     */
    async createInvoice(
      ctx: AddInvoicesContext,
      body: DraftInvoiceCreateRequest,
      actionKey: string,
    ): Promise<DraftInvoiceCreateResponse> {
      const org = ctx.organization;
      const missing = [
        !org.defaultContactId && 'a Default Contact',
        !org.defaultSalesAccountId && 'a Default Sales Account',
      ].filter((m): m is string => Boolean(m));
      if (missing.length > 0) {
        throw new AppError(
          'VALIDATION_ERROR',
          `Set ${missing.join(' and ')} in Settings before creating an invoice.`,
        );
      }
      const totalPence = toPence(body.totalAmount);
      const cashPence = toPence(body.cashAmount);
      const cashAccountId = cashPence > 0 ? requireCashAccount(ctx) : '';
      const contactId = org.defaultContactId as string;
      const salesAccountId = org.defaultSalesAccountId as string;

      await sync.syncAccounts(syncCtx(ctx));
      const account = await repo.findAccount(ctx.organizationId, salesAccountId);
      const createKey = `${actionKey}:create`;
      const request = xero.newInvoiceRequest({
        contactId,
        date: body.date,
        taxStatus: org.defaultTaxStatus,
        approve: body.approve,
        description: `Sales ${formatDateNumeric(body.date)}`,
        amountPence: totalPence,
        accountCode: account?.code ?? null,
        accountId: salesAccountId,
        taxType: org.defaultVatRateId || null,
        // The write's mark: how the invoice is found in Xero by this action, even after a restore (issue 28).
        reference: withWriteMark('', createKey),
      });

      const cashKey = `${actionKey}:${body.approve ? 'payment' : 'pending'}:new`;
      const { rows } = await ledger.recordIntent({
        organizationId: ctx.organizationId,
        userId: ctx.userId,
        keys: cashPence > 0 ? [createKey, cashKey] : [createKey],
        plan: async () => {
          const steps: IntentStep[] = [
            {
              kind: 'invoice.create',
              idempotencyKey: createKey,
              targetId: null,
              amountPence: totalPence,
              request,
              audit: auditOf(ctx, 'add-invoices.create', null, {
                date: body.date,
                totalPence,
                approve: body.approve,
              }),
            },
          ];
          // The invoice's id and number are bound to its cash when the invoice is confirmed.
          if (cashPence > 0 && body.approve)
            steps.push({
              kind: 'payment',
              idempotencyKey: cashKey,
              targetId: null,
              amountPence: cashPence,
              request: cashPaymentRequest(null, '', cashAccountId, cashPence, body.date, 0),
              audit: cashPaymentAudit(ctx, null, '', { cashPence, pendingPence: 0 }, cashAccountId),
              after: 0,
            });
          if (cashPence > 0 && !body.approve)
            steps.push({
              kind: 'cash.pending',
              idempotencyKey: cashKey,
              targetId: null,
              amountPence: cashPence,
              request: { invoiceId: null, amountPence: cashPence, limitPence: totalPence },
              audit: pendingCashAudit(ctx, null, '', cashPence, 0),
              after: 0,
            });
          return steps;
        },
      });
      const createStep = rows.find((r) => r.kind === 'invoice.create');
      const cashStep = rows.find((r) => r.kind !== 'invoice.create');

      const created = await ledger.execute<InvoiceFacts | null>({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'invoice.create',
        targetId: null,
        amountPence: totalPence,
        idempotencyKey: createKey,
        request,
        step: createStep,
        send: async (key) => {
          const facts = await xero.createInvoice(
            { userId: ctx.userId, tenantId: ctx.tenantId, organizationId: ctx.organizationId },
            request,
            key,
          );
          return { xeroId: facts?.invoiceId ?? null, response: facts };
        },
      });
      const invoice = created.response;
      if (!invoice)
        throw new AppError(
          'XERO_UNAVAILABLE',
          'Xero created the invoice but sent an answer Ledgerlink could not read. Refresh the list.',
        );
      const invoiceNumber = invoice.invoiceNumber ?? '';
      if (!created.replayed) await repo.saveInvoice(invoice.cacheRow);

      if (cashPence === 0) return { invoiceNumber };
      if (!body.approve) {
        const error = await keepPendingCash(
          ctx,
          {
            invoiceId: invoice.invoiceId,
            invoiceNumber,
            limitPence: invoice.totalPence,
            pendingBeforePence: 0,
          },
          cashPence,
          cashKey,
          cashStep,
        );
        return error
          ? {
              invoiceNumber,
              warning: `Invoice ${invoiceNumber} was created, but its cash amount was not kept: ${error}`,
            }
          : { invoiceNumber };
      }
      const failures = await payCash(
        ctx,
        [
          {
            invoiceId: invoice.invoiceId,
            invoiceNumber,
            date: body.date,
            cashPence,
            pendingPence: 0,
            key: cashKey,
            step: cashStep,
          },
        ],
        cashAccountId,
      );
      const paymentFailure = failures.get(invoice.invoiceId);
      if (paymentFailure)
        return {
          invoiceNumber,
          warning: describeCashFailure('created', invoiceNumber, cashPence, paymentFailure),
        };
      return { invoiceNumber };
    },

    /**
     * This user's Add Invoices changes that wait for an administrator (issue 28): each says what was done,
     * what was not, and that Admin → Needs review settles it, so the person who acted sees it even when the
     * server that took the change stopped before answering.
     */
    async listUnfinished(ctx: AddInvoicesContext): Promise<UnfinishedDraftAction[]> {
      const held = await ledger.listNeedsReviewFor(ctx.organizationId, ctx.userId);
      return held
        .map((row) => {
          const audit = row.audit as WriteAudit | null;
          if (!audit?.action.startsWith('add-invoices.')) return null;
          const number = String(audit.detail?.invoiceNumber ?? '') || (row.targetId ?? 'A new invoice');
          const amount = formatMoney(row.amountPence ?? 0);
          const why = row.error ? ` (${row.error})` : '';
          const settles = 'an administrator settles it under Admin → Needs review.';
          const message =
            audit.action === 'add-invoices.cash-payment'
              ? `The cash payment of ${amount} on ${number} could not be finished${why}. Do not pay it again on Pay Invoices: ${settles}`
              : audit.action === 'add-invoices.approve'
                ? `Xero has not confirmed whether ${number} was approved${why}; ${settles}`
                : `A change to ${number} could not be finished${why}; ${settles}`;
          return { writeId: row.id, invoiceId: row.targetId, invoiceNumber: number, message };
        })
        .filter((r): r is UnfinishedDraftAction => r !== null);
    },

    /** The defaults the New Invoice row shows and needs, named as Xero names them. */
    async findNewInvoiceDefaults(ctx: AddInvoicesContext): Promise<NewInvoiceDefaults> {
      const org = ctx.organization;
      const sctx = syncCtx(ctx);
      await Promise.all([
        org.defaultContactId ? sync.syncContacts(sctx) : null,
        org.defaultSalesAccountId || org.defaultCashAccountId ? sync.syncAccounts(sctx) : null,
        org.defaultVatRateId ? sync.syncTaxRates(sctx) : null,
      ]);
      const [contact, sales, cash, vat] = await Promise.all([
        org.defaultContactId ? repo.findContact(ctx.organizationId, org.defaultContactId) : null,
        org.defaultSalesAccountId ? repo.findAccount(ctx.organizationId, org.defaultSalesAccountId) : null,
        org.defaultCashAccountId ? repo.findAccount(ctx.organizationId, org.defaultCashAccountId) : null,
        org.defaultVatRateId ? repo.findTaxRate(ctx.organizationId, org.defaultVatRateId) : null,
      ]);
      const named = (id: string | null, name: string | null | undefined) =>
        id ? { id, name: name ?? id } : null;
      return {
        contact: named(org.defaultContactId, contact?.name),
        salesAccount: named(
          org.defaultSalesAccountId,
          sales ? `${sales.code ? `${sales.code} - ` : ''}${sales.name}` : null,
        ),
        vatRate: named(org.defaultVatRateId, vat ? `${vat.name} (${Number(vat.rate)}%)` : null),
        cashAccount: named(org.defaultCashAccountId, cash?.name),
        taxStatus: org.defaultTaxStatus,
        missing: [
          !org.defaultContactId && 'Default Contact',
          !org.defaultSalesAccountId && 'Default Sales Account',
        ].filter((m): m is string => Boolean(m)),
      };
    },
  };
}
export type AddInvoicesService = ReturnType<typeof createAddInvoicesService>;

/** A fresh key for an action the browser sent without one. */
export function createActionKey(): string {
  return crypto.randomUUID();
}
