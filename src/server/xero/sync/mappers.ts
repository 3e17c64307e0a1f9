import { convertXeroDate, convertXeroTimestamp } from '../../../shared/dates';
import type { xeroAccounts, xeroContacts, xeroCreditNotes, xeroInvoices } from '../../db/schema/index';
import type { XeroCreditNote, XeroInvoice } from '../xero-http/schemas';
import type { z } from 'zod';
import type { xeroAccountSchema, xeroContactSchema } from '../xero-http/schemas';

/** Xero's 2-decimal money (a JSON number) to integer pence. */
export function toPenceFromXero(value: number | null | undefined): number {
  if (value === null || value === undefined || !Number.isFinite(value)) return 0;
  return Math.round(value * 100);
}

export function toDateOrNull(xeroTimestamp: string | null | undefined): Date | null {
  const iso = convertXeroTimestamp(xeroTimestamp);
  return iso ? new Date(iso) : null;
}

export interface CachedLine {
  lineItemId: string | null;
  description: string | null;
  quantity: number | null;
  unitAmount: number | null;
  accountCode: string | null;
  accountId: string | null;
  taxType: string | null;
  taxAmountPence: number;
  lineAmountPence: number;
}

export interface CachedPayment {
  paymentId: string;
  date: string | null;
  amountPence: number;
  reference: string | null;
}

/**
 * Xero's own CIS on a bill, the same whichever read brought it (issue 42): a deduction only where Xero computed
 * one (CISDeduction above 0, with its CISRate). Xero's read of one bill (`GET /Invoices/{id}`) answers
 * `CISDeduction: 0.00` on an ordinary supplier's bill (xero-node's recorded `singleInvoice` example) where its list
 * read says nothing; both mean "no deduction", so both are stored as none. A bill is a CIS bill by its subcontractor
 * and its lines (src/server/modules/cis-returns), never by the mere presence of the field.
 */
export function readXeroCis(inv: Pick<XeroInvoice, 'CISDeduction' | 'CISRate'>): {
  cisDeductionPence: number | null;
  cisRate: string | null;
} {
  const deduction = inv.CISDeduction == null ? 0 : toPenceFromXero(inv.CISDeduction);
  if (deduction <= 0) return { cisDeductionPence: null, cisRate: null };
  return { cisDeductionPence: deduction, cisRate: inv.CISRate == null ? null : String(inv.CISRate) };
}

export function toInvoiceRow(organizationId: number, inv: XeroInvoice): typeof xeroInvoices.$inferInsert {
  const lines: CachedLine[] = (inv.LineItems ?? []).map((l) => ({
    lineItemId: l.LineItemID ?? null,
    description: l.Description ?? null,
    quantity: l.Quantity ?? null,
    unitAmount: l.UnitAmount ?? null,
    accountCode: l.AccountCode ?? null,
    accountId: l.AccountID ?? null,
    taxType: l.TaxType ?? null,
    taxAmountPence: toPenceFromXero(l.TaxAmount),
    lineAmountPence: toPenceFromXero(l.LineAmount),
  }));
  const payments = toPayments(inv.Payments);
  return {
    organizationId,
    invoiceId: inv.InvoiceID,
    type: inv.Type,
    invoiceNumber: inv.InvoiceNumber ?? null,
    reference: inv.Reference ?? null,
    contactId: inv.Contact?.ContactID ?? null,
    contactName: inv.Contact?.Name ?? null,
    status: inv.Status,
    lineAmountTypes: inv.LineAmountTypes ?? null,
    date: convertXeroDate(inv.Date),
    dueDate: convertXeroDate(inv.DueDate),
    subTotalPence: toPenceFromXero(inv.SubTotal),
    totalTaxPence: toPenceFromXero(inv.TotalTax),
    totalPence: toPenceFromXero(inv.Total),
    amountDuePence: toPenceFromXero(inv.AmountDue),
    amountPaidPence: toPenceFromXero(inv.AmountPaid),
    ...readXeroCis(inv),
    currencyCode: inv.CurrencyCode ?? 'GBP',
    sentToContact: inv.SentToContact ?? false,
    hasAttachments: inv.HasAttachments ?? false,
    lines,
    payments,
    updatedUtc: toDateOrNull(inv.UpdatedDateUTC),
    syncedAt: new Date(),
  };
}

/** A document's payments as the cache keeps them (invoices and credit notes alike). */
function toPayments(payments: XeroInvoice['Payments']): CachedPayment[] {
  return (payments ?? []).map((p) => ({
    paymentId: p.PaymentID,
    date: convertXeroDate(p.Date),
    amountPence: toPenceFromXero(p.Amount),
    reference: p.Reference ?? null,
  }));
}

function toLines(items: XeroInvoice['LineItems']): CachedLine[] {
  return (items ?? []).map((l) => ({
    lineItemId: l.LineItemID ?? null,
    description: l.Description ?? null,
    quantity: l.Quantity ?? null,
    unitAmount: l.UnitAmount ?? null,
    accountCode: l.AccountCode ?? null,
    accountId: l.AccountID ?? null,
    taxType: l.TaxType ?? null,
    taxAmountPence: toPenceFromXero(l.TaxAmount),
    lineAmountPence: toPenceFromXero(l.LineAmount),
  }));
}

/** A credit note's allocation to an invoice or bill, in our shape. */
export interface CachedCreditAllocation {
  allocationId: string | null;
  invoiceId: string;
  amountPence: number;
  date: string | null;
}

/** A credit note (issue 42) in our shape: lines, allocations to bills and cash refunds kept whole. */
export function toCreditNoteRow(
  organizationId: number,
  note: XeroCreditNote,
): typeof xeroCreditNotes.$inferInsert {
  const allocations: CachedCreditAllocation[] = (note.Allocations ?? []).flatMap((a) =>
    a.Invoice?.InvoiceID
      ? [
          {
            allocationId: a.AllocationID ?? null,
            invoiceId: a.Invoice.InvoiceID.toLowerCase(),
            amountPence: toPenceFromXero(a.Amount),
            date: convertXeroDate(a.Date),
          },
        ]
      : [],
  );
  const payments = toPayments(note.Payments);
  return {
    organizationId,
    creditNoteId: note.CreditNoteID,
    type: note.Type,
    creditNoteNumber: note.CreditNoteNumber ?? null,
    contactId: note.Contact?.ContactID ?? null,
    contactName: note.Contact?.Name ?? null,
    status: note.Status,
    lineAmountTypes: note.LineAmountTypes ?? null,
    date: convertXeroDate(note.Date),
    subTotalPence: toPenceFromXero(note.SubTotal),
    totalPence: toPenceFromXero(note.Total),
    remainingCreditPence: toPenceFromXero(note.RemainingCredit),
    ...readXeroCis(note),
    lines: toLines(note.LineItems),
    allocations,
    payments,
    updatedUtc: toDateOrNull(note.UpdatedDateUTC),
    syncedAt: new Date(),
  };
}

export function toAccountRow(
  organizationId: number,
  a: z.infer<typeof xeroAccountSchema>,
): typeof xeroAccounts.$inferInsert {
  return {
    organizationId,
    accountId: a.AccountID,
    code: a.Code ?? null,
    name: a.Name,
    type: a.Type,
    class: a.Class ?? null,
    status: a.Status,
    bankAccountType: a.BankAccountType ?? null,
    bankAccountNumber: a.BankAccountNumber ?? null,
    taxType: a.TaxType ?? null,
    enablePaymentsToAccount: a.EnablePaymentsToAccount ?? false,
    systemAccount: a.SystemAccount ?? null,
    updatedUtc: toDateOrNull(a.UpdatedDateUTC),
    syncedAt: new Date(),
  };
}

export function toContactRow(
  organizationId: number,
  c: z.infer<typeof xeroContactSchema>,
): typeof xeroContacts.$inferInsert {
  return {
    organizationId,
    contactId: c.ContactID,
    name: c.Name,
    email: c.EmailAddress ?? null,
    status: c.ContactStatus ?? 'ACTIVE',
    isSupplier: c.IsSupplier ?? false,
    isCustomer: c.IsCustomer ?? false,
    groupIds: (c.ContactGroups ?? []).map((g) => g.ContactGroupID),
    taxNumber: c.TaxNumber?.trim() || null,
    accountsPayableTaxType: c.AccountsPayableTaxType || null,
    updatedUtc: toDateOrNull(c.UpdatedDateUTC),
    syncedAt: new Date(),
  };
}
