import { z } from 'zod';
import { convertXeroDate, convertXeroTimestamp } from '../../../shared/dates';
import { findPence, fromPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { NewPayment, PayInvoicesXero, StoredPaymentAnswer, XeroPaymentFacts } from '../xero-port';
import type { XeroHttp } from './http';

/**
 * Xero's shapes for Pay Invoices (docs/xero-api.md §4.2 attachments, §4.3 payments). PascalCase stays in the
 * Xero layer (src/server/xero: these schemas, the sync mappers, the ledger's finders), which maps it to our
 * types; the feature modules never see it (lint). Unknown fields pass through: Xero adds fields.
 */

export const xeroAttachmentSchema = z.object({
  AttachmentID: z.string(),
  FileName: z.string(),
  Url: z.string().nullish(),
  MimeType: z.string().nullish(),
  ContentLength: z.number().nullish(),
});
export type XeroAttachment = z.infer<typeof xeroAttachmentSchema>;
export const xeroAttachmentsEnvelope = z.object({ Attachments: z.array(xeroAttachmentSchema) });

const validationErrors = z.array(z.object({ Message: z.string().nullish() }).passthrough()).nullish();

/** A payment as `PUT /Payments`, `GET /Payments` and `POST /Payments/{id}` answer it. */
export const xeroPaymentSchema = z.object({
  PaymentID: z.string().nullish(),
  Date: z.string().nullish(),
  Amount: z.number().nullish(),
  Reference: z.string().nullish(),
  Status: z.string().nullish(),
  PaymentType: z.string().nullish(),
  UpdatedDateUTC: z.string().nullish(),
  Account: z.object({ AccountID: z.string().nullish(), Code: z.string().nullish() }).passthrough().nullish(),
  Invoice: z
    .object({
      InvoiceID: z.string().nullish(),
      Status: z.string().nullish(),
      AmountDue: z.number().nullish(),
      AmountPaid: z.number().nullish(),
    })
    .passthrough()
    .nullish(),
  HasValidationErrors: z.boolean().nullish(),
  StatusAttributeString: z.string().nullish(),
  ValidationErrors: validationErrors,
});
export type XeroPayment = z.infer<typeof xeroPaymentSchema>;
export const xeroPaymentsEnvelope = z.object({ Payments: z.array(xeroPaymentSchema) });

/** The body of `PUT /Payments` for one payment against a sales invoice, paid into a bank account by its id. */
export function buildPaymentBody(payment: {
  invoiceId: string;
  accountId: string;
  amount: number;
  date: string;
  reference: string;
}) {
  return {
    Payments: [
      {
        Invoice: { InvoiceID: payment.invoiceId },
        Account: { AccountID: payment.accountId },
        Amount: payment.amount,
        Date: payment.date,
        Reference: payment.reference,
      },
    ],
  };
}

/**
 * The body that reverses a payment (docs/xero-api.md §4.3: `POST /Payments/{PaymentID}`
 * `{"Status":"DELETED"}`).
 */
export const DELETE_PAYMENT_BODY = { Status: 'DELETED' } as const;

/** Xero's filter for the payments of one invoice (`Guid` comparison, docs/xero-api.md §3 `where`). */
export function paymentsOfInvoiceWhere(invoiceId: string): string {
  return `Invoice.InvoiceID==Guid("${invoiceId.replace(/[^0-9a-fA-F-]/g, '')}")`;
}

function poundsToPence(value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return findPence(value) ?? Math.round(value * 100);
}

/** Xero's payment in Ledgerlink's words. */
export function toPaymentFacts(p: XeroPayment): XeroPaymentFacts {
  const updated = convertXeroTimestamp(p.UpdatedDateUTC);
  const ms = updated ? Date.parse(updated) : NaN;
  return {
    paymentId: p.PaymentID ?? '',
    amountPence: poundsToPence(p.Amount),
    accountId: p.Account?.AccountID ?? null,
    date: convertXeroDate(p.Date) ?? null,
    status: p.Status ?? null,
    reference: p.Reference ?? null,
    updatedUtc: Number.isFinite(ms) ? new Date(ms).toISOString() : null,
    invoice: p.Invoice
      ? {
          invoiceId: p.Invoice.InvoiceID ?? null,
          status: p.Invoice.Status ?? null,
          amountDuePence: poundsToPence(p.Invoice.AmountDue),
          amountPaidPence: poundsToPence(p.Invoice.AmountPaid),
        }
      : null,
  };
}

/**
 * A payment answer as the ledger kept it, in Ledgerlink's words. Rows written by Pay Invoices hold its own
 * shape; rows settled by the old Add Invoices finder hold Xero's raw Payment: both are read.
 */
export function readStoredPaymentAnswer(raw: unknown, xeroId: string | null): StoredPaymentAnswer {
  const r = (raw ?? {}) as Partial<{
    paymentId: string;
    amountDuePence: number | null;
    amountPaidPence: number | null;
    invoiceStatus: string | null;
    updatedUtc: string | null;
    deleted: boolean;
  }> &
    XeroPayment;
  return {
    paymentId: r.paymentId ?? r.PaymentID ?? xeroId ?? '',
    amountDuePence: r.amountDuePence ?? poundsToPence(r.Invoice?.AmountDue),
    amountPaidPence: r.amountPaidPence ?? poundsToPence(r.Invoice?.AmountPaid),
    invoiceStatus: r.invoiceStatus ?? r.Invoice?.Status ?? null,
    updatedUtc: r.updatedUtc ?? null,
    deleted: r.deleted === true,
  };
}

function firstValidationMessage(payment: XeroPayment | undefined): string {
  const messages = (payment?.ValidationErrors ?? [])
    .map((e) => e.Message)
    .filter((m): m is string => Boolean(m));
  return messages.join('; ') || 'Xero did not accept the payment';
}

/** Pay Invoices' Xero operations over HTTP: every path, body and PascalCase field of the feature is here. */
export function createPayInvoicesXero(http: XeroHttp): PayInvoicesXero {
  const invoicePath = (invoiceId: string) =>
    `/api.xro/2.0/Invoices/${encodeURIComponent(invoiceId)}/Attachments`;
  return {
    readStoredAnswer: readStoredPaymentAnswer,
    payments: {
      async create(ctx, payment: NewPayment, idempotencyKey) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'PUT',
          path: '/api.xro/2.0/Payments',
          body: buildPaymentBody({ ...payment, amount: fromPence(payment.amountPence) }),
          idempotencyKey,
          schema: xeroPaymentsEnvelope,
        });
        const answer = data.Payments[0];
        if (!answer?.PaymentID || answer.HasValidationErrors || answer.StatusAttributeString === 'ERROR') {
          throw new AppError('XERO_REJECTED', firstValidationMessage(answer));
        }
        return toPaymentFacts(answer);
      },
      async findForInvoice(ctx, invoiceId) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Payments',
          query: { where: paymentsOfInvoiceWhere(invoiceId) },
          schema: xeroPaymentsEnvelope,
        });
        return data.Payments.filter((p) => p.PaymentID).map(toPaymentFacts);
      },
      async get(ctx, paymentId) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: `/api.xro/2.0/Payments/${encodeURIComponent(paymentId)}`,
          schema: xeroPaymentsEnvelope,
        });
        const payment = data.Payments[0];
        return payment ? toPaymentFacts({ ...payment, PaymentID: payment.PaymentID ?? paymentId }) : null;
      },
      async delete(ctx, paymentId, idempotencyKey) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'POST',
          path: `/api.xro/2.0/Payments/${encodeURIComponent(paymentId)}`,
          body: DELETE_PAYMENT_BODY,
          idempotencyKey,
          schema: xeroPaymentsEnvelope,
        });
        const payment = data.Payments[0];
        return payment ? toPaymentFacts({ ...payment, PaymentID: payment.PaymentID ?? paymentId }) : null;
      },
    },
    attachments: {
      async list(ctx, invoiceId) {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: invoicePath(invoiceId),
          schema: xeroAttachmentsEnvelope,
        });
        return data.Attachments.map((a) => ({
          attachmentId: a.AttachmentID,
          fileName: a.FileName,
          mimeType: a.MimeType ?? null,
          contentLength: a.ContentLength ?? null,
        }));
      },
      async get(ctx, invoiceId, attachmentId) {
        const { data, headers } = await http.send<Buffer>(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: `${invoicePath(invoiceId)}/${encodeURIComponent(attachmentId)}`,
          binary: true,
        });
        return { body: data, contentType: headers.get('content-type') };
      },
    },
  };
}
