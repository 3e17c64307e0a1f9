import { readInvoiceCreatedAt } from './history';
import { z } from 'zod';
import { AppError } from '../../lib/app-error';
import type { Bill, BillAnswer, BillLineInput, BillsPort, ContactsPort, NewBill } from '../xero-port';
import { toInvoiceRow } from '../sync/mappers';
import type { XeroHttp } from './http';
import { xeroInvoiceSchema } from './schemas';

/**
 * Xero shapes the CIS Bills feature reads and sends (docs/xero-api.md §4.1 invoices, §4.8 CIS). PascalCase
 * stays in the Xero layer (src/server/xero), which maps it to our types; the service never sees it.
 */

/** `GET /Contacts/{ContactID}/CISSettings` → `{"CISSettings":[{"CISEnabled":bool,"Rate":n}]}`; Rate only when enabled. */
export const xeroContactCisSettingsEnvelope = z.object({
  CISSettings: z
    .array(
      z.object({
        CISEnabled: z.boolean().nullish(),
        Rate: z.number().nullish(),
      }),
    )
    .nullish(),
});
export type XeroContactCisSettings = z.infer<typeof xeroContactCisSettingsEnvelope>;

/**
 * A bill as Xero answers a write with `summarizeErrors=false`: the invoice, plus per-element status and
 * validation errors (docs/xero-api.md §3, §5). CISDeduction/CISRate are read-only outputs Xero adds for CIS
 * bills.
 */
export const xeroBillSchema = xeroInvoiceSchema.extend({
  // A refused element echoes what was sent, without an id (real Xero sends an all-zero id).
  InvoiceID: z.string().nullish(),
  Type: z.string().nullish(),
  Status: z.string().nullish(),
  CISDeduction: z.number().nullish(),
  CISRate: z.number().nullish(),
  Url: z.string().nullish(),
  StatusAttributeString: z.string().nullish(),
  HasErrors: z.boolean().nullish(),
  ValidationErrors: z.array(z.object({ Message: z.string().nullish() })).nullish(),
});
export type XeroBill = z.infer<typeof xeroBillSchema>;

export const xeroBillsEnvelope = z.object({ Invoices: z.array(xeroBillSchema) });

/** A bill line as we send it. */
export interface XeroBillLineInput {
  LineItemID?: string;
  Description: string;
  Quantity: number;
  UnitAmount: number;
  AccountCode: string;
  TaxType?: string;
}

/** A new purchase bill (ACCPAY) as we send it in `PUT /Invoices`. */
export interface XeroBillInput {
  Type: 'ACCPAY';
  Contact: { ContactID: string };
  Date: string;
  DueDate: string;
  /**
   * For ACCPAY this is what Xero's screens call "Reference" and it need not be unique
   * (docs/xero-api.md §4.1).
   */
  InvoiceNumber: string;
  /** "URL link to a source document – shown as 'Go to [appName]' in the Xero app" (Invoice.Url). */
  Url?: string;
  LineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax';
  Status: 'DRAFT' | 'AUTHORISED';
  LineItems: XeroBillLineInput[];
}

/** The validation messages Xero put on one element of a write answer. */
export function findElementErrors(bill: XeroBill): string[] {
  const messages = (bill.ValidationErrors ?? []).map((e) => e.Message ?? '').filter((m) => m.trim() !== '');
  if (messages.length > 0) return messages;
  if (bill.HasErrors || bill.StatusAttributeString === 'ERROR') return ['Xero refused this bill'];
  return [];
}

const INVOICES = '/api.xro/2.0/Invoices';

/** Xero's bill in our vocabulary: the invoice cache's row without the organisation. */
export function toBill(bill: XeroBill & { InvoiceID: string }): Bill {
  const { organizationId: _organizationId, ...row } = toInvoiceRow(0, {
    ...bill,
    InvoiceID: bill.InvoiceID,
    Type: bill.Type ?? 'ACCPAY',
    Status: bill.Status ?? 'DRAFT',
  });
  return {
    ...row,
    invoiceId: bill.InvoiceID,
    status: row.status,
    totalPence: row.totalPence ?? 0,
    url: bill.Url ?? null,
  };
}

function toAnswer(bill: XeroBill | undefined): BillAnswer {
  if (!bill) return { ok: false, errors: ['Xero did not answer for this bill'], unknown: true };
  const errors = findElementErrors(bill);
  if (errors.length > 0) return { ok: false, errors };
  if (!bill.InvoiceID) return { ok: false, errors: ['Xero did not say which bill it saved'], unknown: true };
  return { ok: true, bill: toBill({ ...bill, InvoiceID: bill.InvoiceID }) };
}

/** Pence (possibly with fractions of a penny) to Xero's decimal pounds, 4 decimals at most. */
function toXeroUnitAmount(unitPence: number): number {
  return Number((unitPence / 100).toFixed(4));
}

function toXeroLine(line: BillLineInput): XeroBillLineInput {
  return {
    ...(line.lineItemId ? { LineItemID: line.lineItemId } : {}),
    Description: line.description,
    Quantity: line.quantity,
    UnitAmount: toXeroUnitAmount(line.unitPence),
    ...(line.accountCode ? { AccountCode: line.accountCode } : {}),
    ...(line.taxType ? { TaxType: line.taxType } : {}),
  } as XeroBillLineInput;
}

function toXeroBill(bill: NewBill): XeroBillInput {
  return {
    Type: 'ACCPAY',
    Contact: { ContactID: bill.contactId },
    Date: bill.date,
    DueDate: bill.dueDate,
    InvoiceNumber: bill.reference,
    ...(bill.url ? { Url: bill.url } : {}),
    LineAmountTypes: bill.lineAmountTypes,
    Status: bill.status,
    LineItems: bill.lines.map(toXeroLine),
  };
}

/** The most bills one look-up reads (decision 028): a subcontractor's bills changed since a write, newest first. */
export const BILL_LOOKUP_PAGE = 100;

/**
 * Purchase bills over HTTP (docs/xero-api.md §4.1; `summarizeErrors=false` so each bill has its own outcome).
 */
export function createBillsHttp(http: XeroHttp): BillsPort {
  return {
    createdAt: (ctx, invoiceId) => readInvoiceCreatedAt(http, ctx, invoiceId),
    async createMany(ctx, bills, idempotencyKey) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'PUT',
        path: INVOICES,
        query: { summarizeErrors: false },
        body: { Invoices: bills.map(toXeroBill) },
        idempotencyKey,
        schema: xeroBillsEnvelope,
      });
      return bills.map((_, i) => toAnswer(data.Invoices[i]));
    },

    async update(ctx, invoiceId, change, idempotencyKey) {
      const element: Record<string, unknown> = { InvoiceID: invoiceId };
      if (change.status) element.Status = change.status;
      if (change.dueDate) element.DueDate = change.dueDate;
      if (change.lineAmountTypes) element.LineAmountTypes = change.lineAmountTypes;
      if (change.lines) element.LineItems = change.lines.map(toXeroLine);
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'POST',
        path: `${INVOICES}/${encodeURIComponent(invoiceId)}`,
        query: { summarizeErrors: false },
        body: { Invoices: [element] },
        idempotencyKey,
        schema: xeroBillsEnvelope,
      });
      return toAnswer(data.Invoices[0]);
    },

    async get(ctx, invoiceId) {
      try {
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: `${INVOICES}/${encodeURIComponent(invoiceId)}`,
          schema: xeroBillsEnvelope,
        });
        const bill = data.Invoices[0];
        return bill?.InvoiceID ? toBill({ ...bill, InvoiceID: bill.InvoiceID }) : null;
      } catch (error) {
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },

    async listChangedForContact(ctx, contactId, modifiedSince) {
      // Xero documents no `where` on Url, so the bills are listed and the caller matches on it: one page,
      // newest first, so a bill made since `modifiedSince` is on it unless the contact had more than a page
      // of bills changed since.
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: INVOICES,
        query: {
          ContactIDs: contactId,
          Statuses: 'DRAFT,SUBMITTED,AUTHORISED,PAID,VOIDED,DELETED',
          where: 'Type=="ACCPAY"',
          order: 'UpdatedDateUTC DESC',
          page: 1,
          pageSize: BILL_LOOKUP_PAGE,
        },
        ...(modifiedSince ? { ifModifiedSince: modifiedSince } : {}),
        schema: xeroBillsEnvelope,
      });
      // 304: nothing of the contact's changed since.
      return (data?.Invoices ?? [])
        .filter((b): b is XeroBill & { InvoiceID: string } => Boolean(b.InvoiceID))
        .map(toBill);
    },
  };
}

/** A contact's CIS settings over HTTP (`GET /Contacts/{ContactID}/CISSettings`, docs/xero-api.md §4.8). */
export function createContactsHttp(http: XeroHttp): ContactsPort {
  return {
    async cisSettings(ctx, contactId) {
      const { data } = await http.send(ctx.userId, ctx.tenantId, {
        method: 'GET',
        path: `/api.xro/2.0/Contacts/${encodeURIComponent(contactId)}/CISSettings`,
        schema: xeroContactCisSettingsEnvelope,
      });
      const setting = data.CISSettings?.[0];
      const enabled = setting?.CISEnabled === true;
      return {
        enabled,
        rate: enabled && typeof setting?.Rate === 'number' ? Math.round(setting.Rate) : null,
      };
    },
  };
}
