import type { DraftInvoiceCreateRequest, DraftInvoiceCreateResponse } from '../../../shared/add-invoices';
import { formatDateNumeric } from '../../../shared/dates';
import { toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import { checkNewInvoiceRedo } from './redo-check';
import { withWriteMark, type IntentStep } from '../../ledger/index';
import type { InvoiceFacts } from '../../xero/xero-port';
import { cashPaymentRequest, describeCashFailure, type CashWrites } from './cash';
import {
  auditOf,
  cashPaymentAudit,
  pendingCashAudit,
  requireCashAccount,
  syncCtx,
  type AddInvoicesContext,
  type AddInvoicesDeps,
} from './context';

/** A new invoice on the organisation's defaults, with its cash paid or kept pending (the New Invoice row). */
export function createNewInvoices(
  { repo, ledger, xero, sync }: Pick<AddInvoicesDeps, 'repo' | 'ledger' | 'xero' | 'sync'>,
  { payCash, keepPendingCash }: CashWrites,
) {
  /**
   * A new invoice (docs/product/features.md §7 POST /api/xero/draft-invoices/create) to the default
   * contact, one line on the default sales account, VAT rate and tax status; approved or draft; its cash
   * paid or kept pending. One intent (issue 28): the new invoice and its cash are recorded before the
   * invoice is sent, so the cash is paid (or kept) by whoever finishes the action after a crash.
   */
  async function createInvoice(
    ctx: AddInvoicesContext,
    body: DraftInvoiceCreateRequest,
    actionKey: string,
    confirmRedo = false,
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

    // Issue 44: after a restore, an invoice like one Xero already has is named before anything is sent.
    await checkNewInvoiceRedo(
      { xero, ledger },
      ctx,
      { request, totalPence, date: body.date, key: createKey },
      confirmRedo,
    );
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
  }

  return { createInvoice };
}
