import { convertXeroDate, convertXeroTimestamp } from '../../../shared/dates';
import type { xeroAccounts, xeroContacts, xeroInvoices } from '../../db/schema/index';
import type { XeroInvoice } from '../xero-http/schemas';
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
  const payments: CachedPayment[] = (inv.Payments ?? []).map((p) => ({
    paymentId: p.PaymentID,
    date: convertXeroDate(p.Date),
    amountPence: toPenceFromXero(p.Amount),
    reference: p.Reference ?? null,
  }));
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
    cisDeductionPence: inv.CISDeduction == null ? null : toPenceFromXero(inv.CISDeduction),
    cisRate: inv.CISRate == null ? null : String(inv.CISRate),
    currencyCode: inv.CurrencyCode ?? 'GBP',
    sentToContact: inv.SentToContact ?? false,
    hasAttachments: inv.HasAttachments ?? false,
    lines,
    payments,
    updatedUtc: toDateOrNull(inv.UpdatedDateUTC),
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
