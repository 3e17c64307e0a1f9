/**
 * Changes made "as a person in Xero's web app" (control endpoints under /__sandbox/): pay, approve, void or
 * edit an invoice, edit a contact. They are not API calls (not counted, not listed among the API's writes)
 * but Xero tells subscribed apps about them by webhook, as it does for any change.
 */
import { randomUUID } from 'node:crypto';
import { amountDue, applyTotals, priceLine } from './invoice-math';
import { penceFrom, hasMoreDecimals, formatPounds, toScaled, divRound, type LineAmountTypes } from './money';
import { nextUpdated, type Runtime } from './runtime';
import type { ContactRec, InvoiceRec, LineRec, OrgRec } from './state';
import { isoDay, parseRequestDay } from './xero-dates';

export const fail = (statusCode: number, message: string) =>
  Object.assign(new Error(message), { statusCode });

export function findInvoice(rt: Runtime, invoiceId: string): { org: OrgRec; inv: InvoiceRec } {
  const id = invoiceId.toLowerCase();
  for (const org of rt.state.orgs) {
    const inv = org.invoices.find((i) => i.InvoiceID === id);
    if (inv) return { org, inv };
  }
  throw fail(404, `Invoice with ID '${invoiceId}' could not be found`);
}

export function findContact(rt: Runtime, contactId: string): { org: OrgRec; contact: ContactRec } {
  const id = contactId.toLowerCase();
  for (const org of rt.state.orgs) {
    const contact = org.contacts.find((c) => c.ContactID === id);
    if (contact) return { org, contact };
  }
  throw fail(404, `Contact with ID '${contactId}' could not be found`);
}

export function touched(rt: Runtime, org: OrgRec, inv: InvoiceRec): InvoiceFacts {
  inv.updatedMs = nextUpdated(rt, inv.updatedMs);
  rt.markDirty();
  rt.webhooks?.notify(org.OrganisationID, 'INVOICE', inv.InvoiceID, 'UPDATE', inv.updatedMs);
  return factsOf(inv);
}

export interface InvoiceFacts {
  invoiceId: string;
  invoiceNumber: string;
  status: string;
  amountDue: number;
  amountPaid: number;
}

const factsOf = (inv: InvoiceRec): InvoiceFacts => ({
  invoiceId: inv.InvoiceID,
  invoiceNumber: inv.InvoiceNumber,
  status: inv.Status,
  amountDue: amountDue(inv) / 100,
  amountPaid: inv.amountPaid / 100,
});

export interface PersonPayment {
  /** Pounds, at most 2 decimals. */
  amount: number | string;
  /** A bank account of the organisation (default: its first active bank account). */
  accountId?: string | undefined;
  date?: string | undefined;
  reference?: string | undefined;
}

/** Records a payment on an approved invoice, as "Add payment" on the invoice in Xero does. */
export function payInvoice(
  rt: Runtime,
  invoiceId: string,
  input: PersonPayment,
): InvoiceFacts & { paymentId: string } {
  const { org, inv } = findInvoice(rt, invoiceId);
  const amount = penceFrom(input.amount);
  if (amount === null || amount <= 0 || hasMoreDecimals(input.amount, 2))
    throw fail(400, 'Amount must be a positive amount with at most 2 decimal places');
  if (inv.Status !== 'AUTHORISED')
    throw fail(400, `Payments can only be made against AUTHORISED documents; this one is ${inv.Status}`);
  if (amount > amountDue(inv))
    throw fail(
      400,
      `Payment amount exceeds the amount outstanding on this document (${formatPounds(amountDue(inv))})`,
    );
  const account = input.accountId
    ? org.accounts.find(
        (a) =>
          a.AccountID === input.accountId!.toLowerCase() &&
          a.Status === 'ACTIVE' &&
          (a.Type === 'BANK' || a.EnablePaymentsToAccount),
      )
    : org.accounts.find((a) => a.Type === 'BANK' && a.Status === 'ACTIVE');
  if (!account) throw fail(400, 'Account could not be found');
  const date = input.date === undefined ? isoDay(rt.now()) : parseRequestDay(input.date);
  if (!date) throw fail(400, 'Date is not a valid date');
  const paymentId = randomUUID();
  org.payments.push({
    PaymentID: paymentId,
    InvoiceID: inv.InvoiceID,
    AccountID: account.AccountID,
    Date: date,
    amount,
    Reference: input.reference ?? '',
    Status: 'AUTHORISED',
    PaymentType: inv.Type === 'ACCREC' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
    IsReconciled: false,
    updatedMs: rt.now(),
  });
  inv.amountPaid += amount;
  if (amountDue(inv) === 0) {
    inv.Status = 'PAID';
    inv.fullyPaidOnDate = date;
  }
  return { ...touched(rt, org, inv), paymentId };
}

/** Approves a draft or submitted invoice. */
export function approveInvoice(rt: Runtime, invoiceId: string): InvoiceFacts {
  const { org, inv } = findInvoice(rt, invoiceId);
  if (inv.Status !== 'DRAFT' && inv.Status !== 'SUBMITTED')
    throw fail(400, `Invoice status cannot be changed from ${inv.Status} to AUTHORISED`);
  if (inv.lines.length === 0 || !inv.DueDate)
    throw fail(400, 'This document needs a line item and a due date before it can be approved');
  inv.Status = 'AUTHORISED';
  return touched(rt, org, inv);
}

/** Voids an approved invoice with nothing paid (a draft is deleted instead, as Xero's web app does). */
export function voidInvoice(rt: Runtime, invoiceId: string): InvoiceFacts {
  const { org, inv } = findInvoice(rt, invoiceId);
  if (inv.Status === 'DRAFT' || inv.Status === 'SUBMITTED') inv.Status = 'DELETED';
  else if (inv.Status !== 'AUTHORISED')
    throw fail(400, `Invoice status cannot be changed from ${inv.Status} to VOIDED`);
  else if (inv.amountPaid > 0)
    throw fail(400, 'This document cannot be voided as it has a payment or credit note allocated to it.');
  else inv.Status = 'VOIDED';
  return touched(rt, org, inv);
}

/** Edits an invoice's reference or due date. */
export function editInvoice(
  rt: Runtime,
  invoiceId: string,
  input: { reference?: string | undefined; dueDate?: string | undefined },
): InvoiceFacts {
  const { org, inv } = findInvoice(rt, invoiceId);
  if (['PAID', 'VOIDED', 'DELETED'].includes(inv.Status))
    throw fail(400, `This document cannot be edited as it is ${inv.Status}.`);
  if (input.dueDate !== undefined) {
    const due = parseRequestDay(input.dueDate);
    if (!due) throw fail(400, 'DueDate is not a valid date');
    inv.DueDate = due;
  }
  if (input.reference !== undefined) inv.Reference = input.reference;
  return touched(rt, org, inv);
}

/** Edits a contact's name or email address. */
export function editContact(
  rt: Runtime,
  contactId: string,
  input: { name?: string | undefined; email?: string | undefined },
): { contactId: string; name: string } {
  const { org, contact } = findContact(rt, contactId);
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name) throw fail(400, 'The contact name must not be empty');
    if (org.contacts.some((c) => c !== contact && c.Name.toLowerCase() === name.toLowerCase()))
      throw fail(400, 'The contact name must be unique across all active contacts.');
    contact.Name = name;
  }
  if (input.email !== undefined) contact.EmailAddress = input.email;
  contact.updatedMs = nextUpdated(rt, contact.updatedMs);
  rt.markDirty();
  rt.webhooks?.notify(org.OrganisationID, 'CONTACT', contact.ContactID, 'UPDATE');
  return { contactId: contact.ContactID, name: contact.Name };
}

export interface PersonBillLine {
  description: string;
  quantity?: number | undefined;
  /** Pounds, at most 2 decimals. */
  unitAmount: number | string;
  accountCode: string;
  taxType?: string | undefined;
}

export interface PersonBill {
  contactId: string;
  date?: string | undefined;
  dueDate?: string | undefined;
  /** What Xero's screens call the bill's Reference. */
  reference?: string | undefined;
  lineAmountTypes?: LineAmountTypes | undefined;
  lines: PersonBillLine[];
  status?: 'DRAFT' | 'AUTHORISED' | undefined;
}

/**
 * Enters a bill as a person does in Xero's web app, where (unlike the API: help.xero.com/uk/CIS-AddEditBill) a
 * bill may use the CIS system accounts. For a contact with CIS enabled, Xero computes the deduction at the
 * contact's rate on the net amount of the lines coded to CIS Labour Expense (never on materials or VAT), shows
 * it on the bill (`CISDeduction`, `CISRate`) and leaves the total less the deduction as the amount due.
 */
export function enterBill(rt: Runtime, input: PersonBill): InvoiceFacts & { cisDeduction: number | null } {
  const { org, contact } = findContact(rt, input.contactId);
  if (contact.ContactStatus === 'ARCHIVED')
    throw fail(400, `The contact '${contact.Name}' is archived and cannot be used`);
  if (input.lines.length === 0) throw fail(400, 'A bill needs at least one line item');
  const date = input.date === undefined ? isoDay(rt.now()) : parseRequestDay(input.date);
  if (!date) throw fail(400, 'Date is not a valid date');
  const dueDate = input.dueDate === undefined ? date : parseRequestDay(input.dueDate);
  if (!dueDate) throw fail(400, 'DueDate is not a valid date');
  const mode = input.lineAmountTypes ?? 'Exclusive';
  const lines: LineRec[] = input.lines.map((line, i) => {
    const account = org.accounts.find((a) => a.Code === line.accountCode && a.Status === 'ACTIVE');
    if (!account) throw fail(400, `Line ${i + 1}: account code '${line.accountCode}' is not a valid code`);
    const unitE4 = toScaled(line.unitAmount, 2);
    if (unitE4 === null || hasMoreDecimals(line.unitAmount, 2))
      throw fail(400, `Line ${i + 1}: UnitAmount must be an amount with at most 2 decimal places`);
    const quantityE4 = toScaled(line.quantity ?? 1, 4);
    if (quantityE4 === null || quantityE4 <= 0) throw fail(400, `Line ${i + 1}: Quantity must be positive`);
    const taxType = line.taxType ?? (account.TaxType || 'NONE');
    if (mode !== 'NoTax' && !org.taxRates.some((t) => t.TaxType === taxType && t.Status === 'ACTIVE'))
      throw fail(400, `Line ${i + 1}: the tax rate '${taxType}' is not valid`);
    return priceLine(
      {
        LineItemID: randomUUID(),
        Description: line.description,
        quantityE4,
        unitE4: unitE4 * 100,
        discountE2: 0,
        AccountCode: account.Code,
        AccountID: account.AccountID,
        TaxType: taxType,
      },
      mode,
      org.taxRates,
    );
  });
  const now = rt.now();
  const bill: InvoiceRec = {
    InvoiceID: randomUUID(),
    Type: 'ACCPAY',
    InvoiceNumber: input.reference ?? '',
    Reference: '',
    ContactID: contact.ContactID,
    Date: date,
    DueDate: dueDate,
    LineAmountTypes: mode,
    Status: input.status ?? 'AUTHORISED',
    lines,
    subTotal: 0,
    totalTax: 0,
    total: 0,
    amountPaid: 0,
    fullyPaidOnDate: null,
    sentToContact: false,
    createdByClientId: null,
    createdMs: now,
    updatedMs: now,
  };
  applyTotals(bill);
  const labourAccounts = new Set(
    org.accounts.filter((a) => a.SystemAccount === 'CISLABOUREXPENSE').map((a) => a.AccountID),
  );
  const labourLines = lines.filter((l) => l.AccountID && labourAccounts.has(l.AccountID));
  if (contact.cis?.enabled && contact.cis.rate !== undefined && labourLines.length > 0) {
    const labourNet = labourLines.reduce(
      (sum, l) => sum + (mode === 'Inclusive' ? l.lineAmount - l.taxAmount : l.lineAmount),
      0,
    );
    bill.cisRate = contact.cis.rate;
    bill.cisDeduction = Number(divRound(BigInt(labourNet) * BigInt(contact.cis.rate), 100n));
  }
  org.invoices.push(bill);
  rt.markDirty();
  rt.webhooks?.notify(org.OrganisationID, 'INVOICE', bill.InvoiceID, 'CREATE');
  return { ...factsOf(bill), cisDeduction: bill.cisDeduction ?? null };
}
