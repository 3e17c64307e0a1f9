/**
 * Payments against invoices: PUT /Payments (batch, summarizeErrors), POST /Payments (one bare
 * Payment), GET list/one, and reversal by POST /Payments/{id} {"Status":"DELETED"}. Payments only on
 * AUTHORISED documents, never above the amount due; AmountDue/AmountPaid/PAID follow. docs/xero-api.md §4.3.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { amountDue } from '../invoice-math';
import { formatPounds, hasMoreDecimals, penceFrom } from '../money';
import { nextUpdated, type Runtime } from '../runtime';
import type { OrgRec, PaymentRec } from '../state';
import { dayToMs, isoDay, parseModifiedSince, parseRequestDay } from '../xero-dates';
import {
  ElementErrors,
  elementsOf,
  isPlainObject,
  runBatch,
  summarizeFlag,
  UUID_RE,
  type ElementOutcome,
} from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiContext, type ApiRouteConfig } from './pipeline';
import { compileOrder, compileWhere, paginate, readPaging, type FieldMap } from './query';
import { paymentJson } from './serialize';

const ms = (v: number): { kind: 'date'; ms: number } => ({ kind: 'date', ms: v });

function paymentFields(org: OrgRec): FieldMap<PaymentRec> {
  const invoices = new Map(org.invoices.map((i) => [i.InvoiceID, i]));
  const inv = (p: PaymentRec) => invoices.get(p.InvoiceID);
  return {
    paymentid: (p) => p.PaymentID,
    status: (p) => p.Status,
    paymenttype: (p) => p.PaymentType,
    date: (p) => ms(dayToMs(p.Date)),
    amount: (p) => p.amount / 100,
    reference: (p) => p.Reference,
    isreconciled: (p) => p.IsReconciled,
    updateddateutc: (p) => ms(p.updatedMs),
    'invoice.invoiceid': (p) => p.InvoiceID,
    'invoice.invoicenumber': (p) => inv(p)?.InvoiceNumber ?? null,
    'invoice.type': (p) => inv(p)?.Type ?? null,
    'invoice.contact.contactid': (p) => inv(p)?.ContactID ?? null,
    'account.accountid': (p) => p.AccountID,
    'account.code': (p) => org.accounts.find((a) => a.AccountID === p.AccountID)?.Code ?? null,
  };
}

/** Reverse a payment; returns an undo. */
function deletePayment(rt: Runtime, org: OrgRec, payment: PaymentRec): () => void {
  const inv = org.invoices.find((i) => i.InvoiceID === payment.InvoiceID);
  const beforePay = { ...payment };
  const beforeInv = inv ? structuredClone(inv) : null;
  payment.Status = 'DELETED';
  payment.updatedMs = nextUpdated(rt, payment.updatedMs);
  if (inv) {
    inv.amountPaid -= payment.amount;
    if (inv.Status === 'PAID') inv.Status = 'AUTHORISED';
    inv.fullyPaidOnDate = null;
    inv.updatedMs = nextUpdated(rt, inv.updatedMs);
  }
  return () => {
    Object.assign(payment, beforePay);
    if (inv && beforeInv) Object.assign(inv, beforeInv);
  };
}

function applyPaymentElement(ctx: ApiContext, el: Record<string, unknown>): ElementOutcome {
  const { rt, org } = ctx;
  const errors: string[] = [];
  if (el.Status === 'DELETED' && typeof el.PaymentID === 'string') {
    const payment = org.payments.find((p) => p.PaymentID === String(el.PaymentID).toLowerCase());
    if (!payment) throw new ElementErrors([`Payment with ID '${String(el.PaymentID)}' could not be found`]);
    if (payment.Status === 'DELETED') throw new ElementErrors(['This payment has already been deleted']);
    const undo = deletePayment(rt, org, payment);
    return { ok: true, json: paymentJson(org, payment), undo, commit: () => recordDelete(rt, org, payment) };
  }
  if (el.PaymentID !== undefined)
    throw new ElementErrors(['Payments cannot be edited; delete the payment and create a new one']);
  const invRef = isPlainObject(el.Invoice)
    ? el.Invoice
    : isPlainObject(el.CreditNote) || isPlainObject(el.Prepayment) || isPlainObject(el.Overpayment)
      ? null
      : undefined;
  if (invRef === null) throw new ElementErrors(['The sandbox supports payments against invoices only']);
  const invoiceId = typeof invRef?.InvoiceID === 'string' ? invRef.InvoiceID.toLowerCase() : undefined;
  const invoiceNumber =
    typeof invRef?.InvoiceNumber === 'string'
      ? invRef.InvoiceNumber
      : typeof el.InvoiceNumber === 'string'
        ? el.InvoiceNumber
        : undefined;
  const inv = invoiceId
    ? org.invoices.find((i) => i.InvoiceID === invoiceId)
    : invoiceNumber
      ? org.invoices.find((i) => i.InvoiceNumber === invoiceNumber)
      : undefined;
  if (!invoiceId && !invoiceNumber)
    errors.push('Invoice or CreditNote or Prepayment or Overpayment must be specified');
  else if (!inv) errors.push(`Invoice could not be found`);
  const accRef = isPlainObject(el.Account) ? el.Account : undefined;
  const accId = typeof accRef?.AccountID === 'string' ? accRef.AccountID.toLowerCase() : undefined;
  const accCode =
    typeof accRef?.Code === 'string' ? accRef.Code : typeof el.Code === 'string' ? el.Code : undefined;
  const account = accId
    ? org.accounts.find((a) => a.AccountID === accId)
    : accCode
      ? org.accounts.find((a) => a.Code === accCode)
      : undefined;
  if (!accId && !accCode) errors.push('Account must be specified');
  else if (!account || account.Status !== 'ACTIVE') errors.push('Account could not be found');
  else if (account.Type !== 'BANK' && !account.EnablePaymentsToAccount)
    errors.push(
      `Account type is invalid for making a payment to/from: payments can only be made to bank accounts or accounts with payments enabled`,
    );
  const amount = penceFrom(el.Amount);
  if (el.Amount === undefined || amount === null) errors.push('Amount must be specified');
  else if (hasMoreDecimals(el.Amount, 2)) errors.push('Amount can have at most 2 decimal places');
  else if (amount <= 0) errors.push('Payment amount must be greater than zero');
  const date = el.Date === undefined ? isoDay(rt.now()) : parseRequestDay(el.Date);
  if (date === null) errors.push('Date is not a valid date');
  if (inv) {
    if (inv.Status !== 'AUTHORISED') {
      errors.push(
        inv.Status === 'PAID'
          ? 'Payment amount exceeds the amount outstanding on this document: the invoice is already fully paid'
          : `Payments can only be made against AUTHORISED documents; this one is ${inv.Status}`,
      );
    } else if (amount !== null && amount > amountDue(inv)) {
      errors.push(
        `Payment amount exceeds the amount outstanding on this document (${formatPounds(amountDue(inv))})`,
      );
    }
  }
  if (org.periodLockDate && date && date <= org.periodLockDate)
    errors.push('The payment date cannot be on or before the period lock date');
  if (errors.length > 0 || !inv || !account || amount === null || !date)
    return { ok: false, echo: el, errors };

  const beforeInv = structuredClone(inv);
  const payment: PaymentRec = {
    PaymentID: randomUUID(),
    InvoiceID: inv.InvoiceID,
    AccountID: account.AccountID,
    Date: date,
    amount,
    Reference: typeof el.Reference === 'string' ? el.Reference : '',
    Status: 'AUTHORISED',
    PaymentType: inv.Type === 'ACCREC' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
    IsReconciled: el.IsReconciled === true,
    updatedMs: rt.now(),
  };
  org.payments.push(payment);
  inv.amountPaid += amount;
  if (amountDue(inv) === 0) {
    inv.Status = 'PAID';
    inv.fullyPaidOnDate = date;
  }
  inv.updatedMs = nextUpdated(rt, inv.updatedMs);
  // One change, one instant: the payment and its invoice carry the same UpdatedDateUTC, and so does the event.
  payment.updatedMs = inv.updatedMs;
  return {
    ok: true,
    json: paymentJson(org, payment),
    undo: () => {
      org.payments = org.payments.filter((p) => p !== payment);
      Object.assign(inv, beforeInv);
    },
    commit: () => {
      rt.ledger.recordWrite({
        tenantId: org.OrganisationID,
        tenantName: org.Name,
        kind: 'payment',
        action: 'create',
        id: payment.PaymentID,
        summary: {
          invoiceId: inv.InvoiceID,
          invoiceNumber: inv.InvoiceNumber,
          accountId: account.AccountID,
          amount: amount / 100,
          invoiceStatus: inv.Status,
          amountDue: amountDue(inv) / 100,
        },
      });
      rt.markDirty();
      // A payment changes its invoice (amount due, status): Xero reports it as an INVOICE update.
      rt.webhooks?.notify(org.OrganisationID, 'INVOICE', inv.InvoiceID, 'UPDATE', inv.updatedMs);
    },
  };
}

function recordDelete(rt: Runtime, org: OrgRec, payment: PaymentRec): void {
  rt.ledger.recordWrite({
    tenantId: org.OrganisationID,
    tenantName: org.Name,
    kind: 'payment',
    action: 'delete',
    id: payment.PaymentID,
    summary: { invoiceId: payment.InvoiceID, amount: payment.amount / 100 },
  });
  rt.markDirty();
  rt.webhooks?.notify(org.OrganisationID, 'INVOICE', payment.InvoiceID, 'UPDATE');
}

export function registerPaymentRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'payments' };
  const write: ApiRouteConfig = { scope: 'payments', write: true };

  app.get('/Payments', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    const fields = paymentFields(org);
    let items = org.payments;
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((p) => p.updatedMs > since);
    const where = compileWhere(q.where, fields, 'Payment');
    if (where) items = items.filter(where);
    const order =
      compileOrder(q.order, fields, 'Payment') ??
      ((a: PaymentRec, b: PaymentRec) => a.updatedMs - b.updatedMs || (a.PaymentID < b.PaymentID ? -1 : 1));
    items = [...items].sort(order);
    const page = paginate(items, readPaging(q));
    const invoices = new Map(org.invoices.map((i) => [i.InvoiceID, i]));
    return reply.send(
      envelope(
        rt,
        'Payments',
        page.items.map((p) => paymentJson(org, p, invoices)),
        page.pagination ? { pagination: page.pagination } : {},
      ),
    );
  });

  app.get<{ Params: { PaymentID: string } }>(
    '/Payments/:PaymentID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.PaymentID.toLowerCase();
      const payment = UUID_RE.test(id) ? org.payments.find((p) => p.PaymentID === id) : undefined;
      if (!payment) throw XeroError.notFound();
      return reply.send(envelope(rt, 'Payments', [paymentJson(org, payment)]));
    },
  );

  const batch = (bare: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = ctxOf(request);
    const body = request.body;
    const elements =
      bare && isPlainObject(body) && body.Payments === undefined ? [body] : elementsOf(body, 'Payments');
    const results = runBatch(elements, summarizeFlag(ctx.q), 'HasValidationErrors', (el) =>
      applyPaymentElement(ctx, el),
    );
    return reply.send(envelope(rt, 'Payments', results));
  };
  app.put('/Payments', apiRoute(write), batch(false));
  app.post('/Payments', apiRoute(write), batch(true));

  app.post<{ Params: { PaymentID: string } }>(
    '/Payments/:PaymentID',
    apiRoute(write),
    async (request, reply) => {
      const ctx = ctxOf(request);
      const { org } = ctx;
      const id = request.params.PaymentID.toLowerCase();
      const payment = UUID_RE.test(id) ? org.payments.find((p) => p.PaymentID === id) : undefined;
      if (!payment) throw XeroError.notFound();
      const body = request.body;
      const el =
        isPlainObject(body) && Array.isArray(body.Payments) && isPlainObject(body.Payments[0])
          ? body.Payments[0]
          : body;
      if (!isPlainObject(el) || el.Status !== 'DELETED') {
        throw XeroError.validation([
          {
            PaymentID: payment.PaymentID,
            ValidationErrors: [{ Message: 'Payments can only be updated to a Status of DELETED' }],
          },
        ]);
      }
      if (payment.Status === 'DELETED') {
        throw XeroError.validation([
          {
            PaymentID: payment.PaymentID,
            ValidationErrors: [{ Message: 'This payment has already been deleted' }],
          },
        ]);
      }
      deletePayment(rt, org, payment);
      recordDelete(rt, org, payment);
      return reply.send(envelope(rt, 'Payments', [paymentJson(org, payment)]));
    },
  );
}
