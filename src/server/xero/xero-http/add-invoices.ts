import { readInvoiceCreatedAt } from './history';
import { z } from 'zod';
import { fromPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import { toInvoiceRow, toPenceFromXero } from '../sync/mappers';
import type {
  AddInvoicesXero,
  ApprovalRequest,
  ElementResult,
  InvoiceFacts,
  NewInvoiceRequest,
  XeroPaymentFacts,
} from '../xero-port';
import type { XeroHttp } from './http';
import { toPaymentFacts, xeroPaymentSchema, type XeroPayment } from './pay-invoices';
import { xeroInvoicesEnvelope, xeroInvoiceSchema } from './schemas';

/**
 * Xero request and answer shapes for Add Invoices (docs/xero-api.md §3, §4.1, §4.3). Batch writes are sent
 * with `summarizeErrors=false`, so every element comes back with `StatusAttributeString` (OK / WARNING /
 * ERROR) and its `ValidationErrors`; an element in error echoes what was sent and may lack every other field.
 */
const validationErrorsSchema = z.array(z.object({ Message: z.string().nullish() }).passthrough()).nullish();

/** One element of a batch answer: read its outcome first, then parse the success shape. */
export const xeroBatchElementSchema = z
  .object({
    StatusAttributeString: z.string().nullish(),
    HasErrors: z.boolean().nullish(),
    HasValidationErrors: z.boolean().nullish(),
    ValidationErrors: validationErrorsSchema,
  })
  .passthrough();
export type XeroBatchElement = z.infer<typeof xeroBatchElementSchema>;

export const xeroInvoiceBatchEnvelope = z.object({ Invoices: z.array(xeroBatchElementSchema) });

export const xeroPaymentBatchEnvelope = z.object({ Payments: z.array(xeroBatchElementSchema) });

/** A status-only approval: no LineItems, so Xero leaves the lines alone (docs/xero-api.md §4.1). */
export interface XeroApproveElement {
  InvoiceID: string;
  Status: 'AUTHORISED';
  /** Only for a draft without one: Xero refuses to approve an invoice that has no due date. */
  DueDate?: string;
}

/**
 * A payment into a bank account (docs/xero-api.md §4.3): amount in pounds with 2 decimals, date YYYY-MM-DD.
 */
export interface XeroPaymentElement {
  Invoice: { InvoiceID: string };
  Account: { AccountID: string };
  Amount: number;
  Date: string;
  Reference: string;
}

/** A new sales invoice with one line (docs/architecture.md §4 Add Invoices). */
export interface XeroNewInvoiceElement {
  Type: 'ACCREC';
  Contact: { ContactID: string };
  Date: string;
  DueDate: string;
  LineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax';
  Status: 'DRAFT' | 'AUTHORISED';
  /** The write's mark (issue 28): how the invoice is found in Xero by the write that created it. */
  Reference?: string;
  LineItems: Array<{
    Description: string;
    Quantity: number;
    UnitAmount: number;
    AccountCode?: string;
    AccountID?: string;
    TaxType?: string;
  }>;
}

/** The messages of an element in error, or null when Xero accepted it. */
export function findElementErrors(element: XeroBatchElement | undefined): string | null {
  if (!element) return 'Xero did not answer for this item';
  const messages = (element.ValidationErrors ?? [])
    .map((e) => e.Message)
    .filter((m): m is string => typeof m === 'string' && m.trim() !== '');
  const failed =
    element.StatusAttributeString === 'ERROR' ||
    element.HasErrors === true ||
    element.HasValidationErrors === true ||
    messages.length > 0;
  if (!failed) return null;
  return messages.length > 0 ? [...new Set(messages)].join('; ') : 'Xero refused this item';
}

/** Parses an accepted invoice element (null when it lacks what we need, e.g. an unusual answer). */
export function parseInvoiceElement(element: XeroBatchElement) {
  const parsed = xeroInvoiceSchema.safeParse(element);
  return parsed.success ? parsed.data : null;
}

export function parsePaymentElement(element: XeroBatchElement): XeroPayment | null {
  const parsed = xeroPaymentSchema.safeParse(element);
  return parsed.success && parsed.data.PaymentID ? parsed.data : null;
}

const TAX_STATUS_TO_LINE_AMOUNT_TYPES: Record<string, XeroNewInvoiceElement['LineAmountTypes']> = {
  'Tax inclusive': 'Inclusive',
  'Tax exclusive': 'Exclusive',
  'No tax': 'NoTax',
};

function toInvoiceFacts(organizationId: number, element: XeroBatchElement | undefined): InvoiceFacts | null {
  const invoice = element ? parseInvoiceElement(element) : null;
  if (!invoice) return null;
  return {
    invoiceId: invoice.InvoiceID,
    invoiceNumber: invoice.InvoiceNumber ?? null,
    status: invoice.Status,
    totalPence: toPenceFromXero(invoice.Total),
    cacheRow: toInvoiceRow(organizationId, invoice),
  };
}

/** An accepted payment element in Ledgerlink's words (null when Xero's answer lacks the payment's id). */
function toPaymentFactsOf(element: XeroBatchElement | undefined): XeroPaymentFacts | null {
  const p = element ? parsePaymentElement(element) : null;
  return p ? toPaymentFacts(p) : null;
}

function resultOf<T>(
  element: XeroBatchElement | undefined,
  read: (e: XeroBatchElement | undefined) => T,
): ElementResult<T> {
  const errors = findElementErrors(element);
  return errors ? { ok: false, error: errors } : { ok: true, value: read(element) };
}

/**
 * Add Invoices' Xero operations over HTTP: every path, body and PascalCase field of the feature lives here.
 * The `...Request` builders give what the ledger records (and fingerprints) and what is sent for it.
 */
export function createAddInvoicesXero(http: XeroHttp): AddInvoicesXero {
  // The sealed requests the service records and hands back are these elements (xero-port.ts SealedXeroRequest).
  const approvalOf = (request: ApprovalRequest) => request as unknown as XeroApproveElement;
  const newInvoiceOf = (request: NewInvoiceRequest) => request as unknown as XeroNewInvoiceElement;
  return {
    createdAt: (ctx, invoiceId) => readInvoiceCreatedAt(http, ctx, invoiceId),
    /** A status-only approval of a draft; a draft without a due date gets `dueDate` (Xero refuses it otherwise). */
    approvalRequest(invoiceId, dueDate) {
      const element: XeroApproveElement = {
        InvoiceID: invoiceId,
        Status: 'AUTHORISED',
        ...(dueDate ? { DueDate: dueDate } : {}),
      };
      return element as unknown as ApprovalRequest;
    },

    /** Up to 50 approvals in one `POST /Invoices?summarizeErrors=false`; one result per request, in order. */
    async approveMany(ctx, sealedRequests, batchKey) {
      const requests = sealedRequests.map(approvalOf);
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'POST',
        path: '/api.xro/2.0/Invoices',
        query: { summarizeErrors: false },
        body: { Invoices: requests },
        idempotencyKey: batchKey,
        schema: xeroInvoiceBatchEnvelope,
      });
      // Xero answers in request order; match by id where the element carries one.
      return requests.map((el, i) =>
        resultOf(data.Invoices.find((x) => x.InvoiceID === el.InvoiceID) ?? data.Invoices[i], (e) =>
          toInvoiceFacts(ctx.organizationId, e),
        ),
      );
    },

    /** Up to 50 payments in one `PUT /Payments?summarizeErrors=false`; one result per payment, in order. */
    async createPayments(ctx, payments, batchKey) {
      const elements: XeroPaymentElement[] = payments.map((p) => ({
        Invoice: { InvoiceID: p.invoiceId },
        Account: { AccountID: p.accountId },
        Amount: fromPence(p.amountPence),
        Date: p.date,
        Reference: p.reference,
      }));
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'PUT',
        path: '/api.xro/2.0/Payments',
        query: { summarizeErrors: false },
        body: { Payments: elements },
        idempotencyKey: batchKey,
        schema: xeroPaymentBatchEnvelope,
      });
      return elements.map((_, i) => resultOf(data.Payments[i], toPaymentFactsOf));
    },

    newInvoiceRequest(spec) {
      const lineAmountTypes = TAX_STATUS_TO_LINE_AMOUNT_TYPES[spec.taxStatus] ?? 'Inclusive';
      const taxType = lineAmountTypes === 'NoTax' ? undefined : spec.taxType || undefined;
      const element: XeroNewInvoiceElement = {
        Type: 'ACCREC',
        Contact: { ContactID: spec.contactId },
        Date: spec.date,
        // Cash sales are settled on the day: due on the invoice date.
        DueDate: spec.date,
        LineAmountTypes: lineAmountTypes,
        Status: spec.approve ? 'AUTHORISED' : 'DRAFT',
        ...(spec.reference ? { Reference: spec.reference } : {}),
        LineItems: [
          {
            Description: spec.description,
            Quantity: 1,
            UnitAmount: fromPence(spec.amountPence),
            ...(spec.accountCode ? { AccountCode: spec.accountCode } : { AccountID: spec.accountId }),
            ...(taxType ? { TaxType: taxType } : {}),
          },
        ],
      };
      return element as unknown as NewInvoiceRequest;
    },

    /** `PUT /Invoices` of one new invoice; Xero's refusal is an AppError XERO_REJECTED with its words. */
    async createInvoice(ctx, request, idempotencyKey) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'PUT',
        path: '/api.xro/2.0/Invoices',
        query: { summarizeErrors: false },
        body: { Invoices: [newInvoiceOf(request)] },
        idempotencyKey,
        schema: xeroInvoiceBatchEnvelope,
      });
      const result = resultOf(data.Invoices[0], (e) => toInvoiceFacts(ctx.organizationId, e));
      if (!result.ok) throw new AppError('XERO_REJECTED', result.error);
      return result.value;
    },

    /** An approval whose answer was lost: whether the invoice is approved (VOIDED only follows AUTHORISED). */
    async findApproval(ctx, invoiceId) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: `/api.xro/2.0/Invoices/${encodeURIComponent(invoiceId)}`,
        schema: xeroInvoicesEnvelope,
      });
      const invoice = data.Invoices[0];
      return invoice && ['AUTHORISED', 'PAID', 'VOIDED'].includes(invoice.Status)
        ? { invoiceId: invoice.InvoiceID, status: invoice.Status }
        : null;
    },

    /** A new invoice whose answer was lost (see AddInvoicesPort): by its mark first. */
    async findCreatedInvoice(ctx, request, totalPence, claimed, mark) {
      const r = (request ?? {}) as Partial<XeroNewInvoiceElement>;
      if (!r.Contact?.ContactID || !r.Date) return null;
      const [y, m, d] = r.Date.split('-').map(Number);
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: '/api.xro/2.0/Invoices',
        query: {
          ContactIDs: r.Contact.ContactID,
          createdByMyApp: true,
          where: `Type=="ACCREC" AND Date==DateTime(${y}, ${m}, ${d})`,
        },
        schema: xeroInvoicesEnvelope,
      });
      const marked = data.Invoices.find((inv) => mark.has(inv.Reference));
      const match =
        marked ??
        (mark.byMarkOnly
          ? undefined
          : data.Invoices.find(
              (inv) =>
                !claimed.has(inv.InvoiceID.toLowerCase()) &&
                inv.Status !== 'DELETED' &&
                toPenceFromXero(inv.Total) === totalPence,
            ));
      return match
        ? {
            invoiceId: match.InvoiceID,
            invoiceNumber: match.InvoiceNumber ?? null,
            status: match.Status,
            totalPence,
            cacheRow: toInvoiceRow(ctx.organizationId, match),
          }
        : null;
    },
  };
}
