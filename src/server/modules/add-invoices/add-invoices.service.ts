import crypto from 'node:crypto';
import type {
  DraftInvoice,
  DraftInvoiceCreateRequest,
  DraftInvoiceCreateResponse,
  DraftInvoiceFailure,
  DraftInvoiceUpdateItem,
  DraftInvoiceUpdateResponse,
  NewInvoiceDefaults,
} from '../../../shared/add-invoices';
import { formatDateNumeric, getUkToday } from '../../../shared/dates';
import { formatMoney, fromPence, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { XeroSync } from '../../xero/sync/sync.service';
import {
  LIVE_WRITE_STATES,
  type WriteAudit,
  type WriteLedger,
  type WriteRow,
  type WriteSpec,
} from '../../xero/write-ledger';
import type { XeroHttp } from '../../xero/xero-http/http';
import {
  createAddInvoicesXero,
  type AddInvoicesXero,
  type ElementResult,
  type InvoiceFacts,
} from '../../xero/xero-http/add-invoices';
import type { NewPayment, XeroContext, XeroPaymentFacts } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { OrganizationRow } from '../organizations/organizations.repository';
import type { AddInvoicesRepository, CachedInvoiceRow } from './add-invoices.repository';
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
}

interface PaymentPlan {
  invoiceId: string;
  invoiceNumber: string;
  date: string;
  cashPence: number;
  /** The part of the cash that came from the pending amount, taken off it once paid. */
  pendingPence: number;
  key: string;
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
  http: XeroHttp;
  /** Xero's operations for this feature; over `http` unless a test hands in a fake. */
  xero?: AddInvoicesXero;
  ledger: WriteLedger;
  sync: XeroSync;
  /** Kept for the wiring; every line of this feature is written by the ledger when its write settles. */
  audit?: AuditLog;
}) {
  const { repo, ledger, sync } = deps;
  const xero = deps.xero ?? createAddInvoicesXero(deps.http);

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
      'kind' | 'targetId' | 'amountPence' | 'idempotencyKey' | 'request' | 'audit'
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
    const batch = createBatcher<ReturnType<typeof xero.approvalRequest>, ElementResult<InvoiceFacts | null>>(
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
          audit: auditOf(ctx, 'add-invoices.approve', plan.invoice.invoiceId, {
            invoiceNumber: numberOf(plan.invoice),
            totalPence: plan.invoice.totalPence,
            cashPence: plan.cashPence,
          }),
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
          reference: `Cash payment for ${plan.invoiceNumber}`,
        };
        // Recorded as the spec's payment request item (docs/product/features.md §3), the shape Pay Invoices
        // records too, so the one 'payment' finder looks either feature's payments up.
        const request = {
          invoiceId: plan.invoiceId,
          invoiceNumber: plan.invoiceNumber,
          accountId: cashAccountId,
          amount: fromPence(plan.cashPence),
          date: plan.date,
          reference: payment.reference,
          isCard: false,
          requestedPence: plan.cashPence,
        };
        return executeInBatch(ctx, batch, payment, {
          kind: 'payment',
          targetId: plan.invoiceId,
          amountPence: plan.cashPence,
          idempotencyKey: plan.key,
          request,
          audit: auditOf(ctx, 'add-invoices.cash-payment', plan.invoiceId, {
            invoiceNumber: plan.invoiceNumber,
            amountPence: plan.cashPence,
            fromPendingPence: plan.pendingPence,
            accountId: cashAccountId,
          }),
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
        await repo.consumePendingCash(ctx.organizationId, plan.invoiceId, plan.pendingPence);
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
  ): Promise<string | null> {
    const request = { invoiceId: invoice.invoiceId, amountPence: pence };
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
        audit: auditOf(ctx, 'add-invoices.cash-pending', invoice.invoiceId, {
          invoiceNumber: invoice.invoiceNumber,
          amountPence: pence,
          pendingBeforePence: invoice.pendingBeforePence,
        }),
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

  function requireCashAccount(ctx: AddInvoicesContext): string {
    const id = ctx.organization.defaultCashAccountId;
    if (!id) throw new AppError('VALIDATION_ERROR', MISSING_CASH_ACCOUNT_MESSAGE);
    return id;
  }

  function registerFinders() {
    // An approval whose answer was lost: the invoice tells whether it was approved.
    ledger.registerFinder('invoice.approve', async (xctx: XeroContext, row: WriteRow) => {
      if (!row.targetId) return null;
      const found = await xero.findApproval(xctx, row.targetId);
      return found ? { xeroId: found.invoiceId, response: found } : null;
    });

    // A new invoice whose answer was lost: one of ours for the contact, date and total not matched yet.
    ledger.registerFinder(
      'invoice.create',
      async (xctx: XeroContext & { organizationId: number }, row: WriteRow) => {
        if (row.amountPence === null) return null;
        const claimed = await ledger.claimedXeroIds(row.organizationId, 'invoice.create', row.id);
        const found = await xero.findCreatedInvoice(xctx, row.request, row.amountPence, claimed);
        return found ? { xeroId: found.invoiceId, response: found } : null;
      },
    );
  }
  registerFinders();

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
     * Process one row or Process All (docs/product/features.md §7 POST /api/xero/draft-invoices/update). Rows
     * with cash and no approval keep the cash pending (no Xero call). Approvals go out in batches, then the
     * cash of every approved row (typed now plus pending) goes out as batched payments. A refused item is
     * reported with Xero's reason and never undoes the others.
     */
    async updateDrafts(
      ctx: AddInvoicesContext,
      items: DraftInvoiceUpdateItem[],
      actionKey: string,
    ): Promise<DraftInvoiceUpdateResponse> {
      const failed: DraftInvoiceFailure[] = [];
      const fail = (id: string, message: string) => failed.push({ id, message });
      const ids = items.map((i) => i.id);
      const invoices = new Map(
        (await repo.findInvoices(ctx.organizationId, ids)).map((r) => [r.invoiceId, r]),
      );
      const pending = await repo.findPendingCash(ctx.organizationId, ids);
      const approveKey = (id: string) => `${actionKey}:approve:${id}`;
      const paymentKey = (id: string) => `${actionKey}:payment:${id}`;
      const pendingKey = (id: string) => `${actionKey}:pending:${id}`;
      // A retry of this same action (same key): its items replay from the ledger rather than being judged
      // again on data the first attempt already changed.
      const earlier = await ledger.findByKeys(
        ctx.organizationId,
        ids.flatMap((id) => [approveKey(id), paymentKey(id), pendingKey(id)]),
      );

      const approvals: ApprovalPlan[] = [];
      const cashOnly: ApprovalPlan[] = [];
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
        const retried = earlier.has(item.approve ? approveKey(item.id) : pendingKey(item.id));
        if (retried) {
          const earlierPayment = earlier.get(paymentKey(item.id));
          const plan = earlierPayment
            ? { item, invoice, cashPence: earlierPayment.amountPence ?? typed, pendingPence: 0 }
            : {
                item,
                invoice,
                cashPence: item.approve ? typed + (pending.get(item.id) ?? 0) : typed,
                pendingPence: pending.get(item.id) ?? 0,
              };
          (item.approve ? approvals : cashOnly).push(plan);
          continue;
        }
        if (invoice.status !== 'DRAFT') {
          fail(
            item.id,
            `Invoice ${numberOf(invoice)} is no longer a draft in Xero (${invoice.status}). Refresh the list.`,
          );
          continue;
        }
        const pendingPence = pending.get(item.id) ?? 0;
        const cashPence = typed + pendingPence;
        if (cashPence > invoice.totalPence) {
          const already = pendingPence > 0 ? ` (${formatMoney(pendingPence)} is already pending)` : '';
          fail(
            item.id,
            `The cash amount ${formatMoney(cashPence)}${already} is more than the total of invoice ${numberOf(invoice)}, ${formatMoney(invoice.totalPence)}.`,
          );
          continue;
        }
        (item.approve ? approvals : cashOnly).push({
          item,
          invoice,
          cashPence: item.approve ? cashPence : typed,
          pendingPence,
        });
      }

      const needsCash = approvals.some((p) => p.cashPence > 0) || cashOnly.length > 0;
      const cashAccountId = needsCash ? requireCashAccount(ctx) : '';
      let processed = 0;

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
          pendingKey(plan.invoice.invoiceId),
        );
        if (error) fail(plan.invoice.invoiceId, error);
        else processed += 1;
      }

      // Approvals: refuse any invoice another request is approving (its cash could be paid twice).
      const busy = await ledger.findTargetsWritten(
        ctx.organizationId,
        'invoice.approve',
        approvals.map((p) => p.invoice.invoiceId),
        approvals.map((p) => approveKey(p.invoice.invoiceId)),
        LIVE_WRITE_STATES,
      );
      const toApprove = approvals.filter((p) => {
        if (!busy.has(p.invoice.invoiceId)) return true;
        fail(
          p.invoice.invoiceId,
          `Invoice ${numberOf(p.invoice)} is already being approved. Refresh the list in a moment.`,
        );
        return false;
      });

      const approved: ApprovalPlan[] = [];
      for (const part of chunk(toApprove, XERO_BATCH_SIZE)) {
        const results = await approveChunk(ctx, part, approveKey);
        for (const [i, result] of results.entries()) {
          const plan = part[i];
          if (!plan) continue;
          const number = numberOf(plan.invoice);
          if (result.status === 'rejected') {
            fail(plan.invoice.invoiceId, `Invoice ${number} was not approved: ${messageOf(result.reason)}`);
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
      // (docs/xero-api.md §4.1).
      const payments: PaymentPlan[] = approved
        .filter((p) => p.cashPence > 0)
        .map((p) => ({
          invoiceId: p.invoice.invoiceId,
          invoiceNumber: numberOf(p.invoice),
          date: p.invoice.date ?? getUkToday(),
          cashPence: p.cashPence,
          pendingPence: p.pendingPence,
          key: paymentKey(p.invoice.invoiceId),
        }));
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
      return { processed, failed };
    },

    /**
     * A new invoice (docs/product/features.md §7 POST /api/xero/draft-invoices/create) to the default
     * contact, one line on the default sales account, VAT rate and tax status; approved or draft; its cash
     * paid or kept pending.
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
      });

      const created = await ledger.execute<InvoiceFacts | null>({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'invoice.create',
        targetId: null,
        amountPence: totalPence,
        idempotencyKey: `${actionKey}:create`,
        request,
        audit: auditOf(ctx, 'add-invoices.create', null, {
          date: body.date,
          totalPence,
          cashPence,
          approve: body.approve,
        }),
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
          `${actionKey}:pending:${invoice.invoiceId}`,
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
            key: `${actionKey}:payment:${invoice.invoiceId}`,
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
