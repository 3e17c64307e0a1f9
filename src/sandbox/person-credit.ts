/**
 * Supplier credit notes and payment removals as a person makes them in Xero's web app (issue 42): enter a credit
 * note from a supplier, allocate it to a bill, record the supplier's cash refund, and remove a payment ("Remove
 * and redo"). Not API calls; a change to a bill is reported by webhook as any change is (Xero's webhooks do not
 * cover credit notes).
 */
import { randomUUID } from 'node:crypto';
import { amountDue, applyTotals, priceLine } from './invoice-math';
import { divRound, formatPounds, hasMoreDecimals, penceFrom, toScaled, type LineAmountTypes } from './money';
import { fail, findContact, findInvoice, touched, type InvoiceFacts, type PersonBillLine } from './person';
import { nextUpdated, type Runtime } from './runtime';
import type { CreditNoteRec, InvoiceRec, LineRec, OrgRec } from './state';
import { isoDay, parseRequestDay } from './xero-dates';

export interface PersonCreditNote {
  contactId: string;
  date?: string | undefined;
  reference?: string | undefined;
  lineAmountTypes?: LineAmountTypes | undefined;
  lines: PersonBillLine[];
}

export interface CreditNoteFacts {
  creditNoteId: string;
  creditNoteNumber: string;
  status: string;
  total: number;
  remainingCredit: number;
  cisDeduction: number | null;
}

function remaining(n: CreditNoteRec): number {
  const allocated = n.allocations.reduce((sum, a) => sum + a.amount, 0);
  const refunded = n.refunds.filter((r) => r.Status === 'AUTHORISED').reduce((sum, r) => sum + r.amount, 0);
  return n.total - (n.cisDeduction ?? 0) - allocated - refunded;
}

const factsOf = (n: CreditNoteRec): CreditNoteFacts => ({
  creditNoteId: n.CreditNoteID,
  creditNoteNumber: n.CreditNoteNumber,
  status: n.Status,
  total: n.total / 100,
  remainingCredit: remaining(n) / 100,
  cisDeduction: n.cisDeduction === undefined ? null : n.cisDeduction / 100,
});

function findCreditNote(rt: Runtime, creditNoteId: string): { org: OrgRec; note: CreditNoteRec } {
  const id = creditNoteId.toLowerCase();
  for (const org of rt.state.orgs) {
    const note = (org.creditNotes ?? []).find((n) => n.CreditNoteID === id);
    if (note) return { org, note };
  }
  throw fail(404, `Credit note with ID '${creditNoteId}' could not be found`);
}

function changed(rt: Runtime, note: CreditNoteRec): void {
  note.Status = remaining(note) === 0 ? 'PAID' : 'AUTHORISED';
  note.updatedMs = nextUpdated(rt, note.updatedMs);
  rt.markDirty();
}

/**
 * Enters an approved credit note from a supplier, as a person does in Xero's web app. For a contact with CIS
 * enabled, lines on CIS Labour Expense carry Xero's CIS deduction as on a bill (help.xero.com/uk/CIS-AddEditCN).
 */
export function enterCreditNote(rt: Runtime, input: PersonCreditNote): CreditNoteFacts {
  const { org, contact } = findContact(rt, input.contactId);
  if (input.lines.length === 0) throw fail(400, 'A credit note needs at least one line item');
  const date = input.date === undefined ? isoDay(rt.now()) : parseRequestDay(input.date);
  if (!date) throw fail(400, 'Date is not a valid date');
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
  // The totals as a bill's: the same arithmetic.
  const shape = { lines, LineAmountTypes: mode, subTotal: 0, totalTax: 0, total: 0 } as unknown as InvoiceRec;
  applyTotals(shape);
  const now = rt.now();
  org.creditNotes ??= [];
  const note: CreditNoteRec = {
    CreditNoteID: randomUUID(),
    CreditNoteNumber: input.reference ?? `CN-${org.creditNotes.length + 1}`,
    Type: 'ACCPAYCREDIT',
    ContactID: contact.ContactID,
    Date: date,
    LineAmountTypes: mode,
    Status: 'AUTHORISED',
    lines,
    subTotal: shape.subTotal,
    totalTax: shape.totalTax,
    total: shape.total,
    allocations: [],
    refunds: [],
    createdMs: now,
    updatedMs: now,
  };
  const labourAccounts = new Set(
    org.accounts.filter((a) => a.SystemAccount === 'CISLABOUREXPENSE').map((a) => a.AccountID),
  );
  const labour = lines.filter((l) => l.AccountID && labourAccounts.has(l.AccountID));
  if (contact.cis?.enabled && contact.cis.rate !== undefined && labour.length > 0) {
    const net = labour.reduce(
      (sum, l) => sum + (mode === 'Inclusive' ? l.lineAmount - l.taxAmount : l.lineAmount),
      0,
    );
    note.cisRate = contact.cis.rate;
    note.cisDeduction = Number(divRound(BigInt(net) * BigInt(contact.cis.rate), 100n));
  }
  org.creditNotes.push(note);
  rt.markDirty();
  return factsOf(note);
}

/** Allocates (part of) a supplier credit note to an approved bill of the same supplier. */
export function allocateCreditNote(
  rt: Runtime,
  creditNoteId: string,
  input: { invoiceId: string; amount: number | string; date?: string | undefined },
): CreditNoteFacts & { bill: InvoiceFacts } {
  const { org, note } = findCreditNote(rt, creditNoteId);
  const { inv } = findInvoice(rt, input.invoiceId);
  if (!org.invoices.includes(inv) || inv.Type !== 'ACCPAY' || inv.ContactID !== note.ContactID)
    throw fail(400, 'A supplier credit note can only be allocated to a bill of the same supplier');
  if (inv.Status !== 'AUTHORISED') throw fail(400, `The bill is ${inv.Status}: nothing is owed on it`);
  const amount = penceFrom(input.amount);
  if (amount === null || amount <= 0 || hasMoreDecimals(input.amount, 2))
    throw fail(400, 'Amount must be a positive amount with at most 2 decimal places');
  if (amount > remaining(note))
    throw fail(
      400,
      `The amount exceeds the credit left on the credit note (${formatPounds(remaining(note))})`,
    );
  if (amount > amountDue(inv))
    throw fail(400, `The amount exceeds the amount due on the bill (${formatPounds(amountDue(inv))})`);
  const date = input.date === undefined ? isoDay(rt.now()) : parseRequestDay(input.date);
  if (!date) throw fail(400, 'Date is not a valid date');
  note.allocations.push({ AllocationID: randomUUID(), InvoiceID: inv.InvoiceID, amount, Date: date });
  changed(rt, note);
  inv.amountCredited = (inv.amountCredited ?? 0) + amount;
  if (amountDue(inv) === 0) {
    inv.Status = 'PAID';
    inv.fullyPaidOnDate = date;
  }
  return { ...factsOf(note), bill: touched(rt, org, inv) };
}

/** Records the cash a supplier paid back against their credit note. */
export function refundCreditNote(
  rt: Runtime,
  creditNoteId: string,
  input: { amount: number | string; date?: string | undefined; accountId?: string | undefined },
): CreditNoteFacts & { paymentId: string } {
  const { org, note } = findCreditNote(rt, creditNoteId);
  if (note.Status !== 'AUTHORISED') throw fail(400, `The credit note is ${note.Status}`);
  const amount = penceFrom(input.amount);
  if (amount === null || amount <= 0 || hasMoreDecimals(input.amount, 2))
    throw fail(400, 'Amount must be a positive amount with at most 2 decimal places');
  if (amount > remaining(note))
    throw fail(
      400,
      `The amount exceeds the credit left on the credit note (${formatPounds(remaining(note))})`,
    );
  const account = input.accountId
    ? org.accounts.find((a) => a.AccountID === input.accountId?.toLowerCase() && a.Type === 'BANK')
    : org.accounts.find((a) => a.Type === 'BANK' && a.Status === 'ACTIVE');
  if (!account) throw fail(400, 'Account could not be found');
  const date = input.date === undefined ? isoDay(rt.now()) : parseRequestDay(input.date);
  if (!date) throw fail(400, 'Date is not a valid date');
  const paymentId = randomUUID();
  note.refunds.push({
    PaymentID: paymentId,
    AccountID: account.AccountID,
    Date: date,
    amount,
    Status: 'AUTHORISED',
  });
  changed(rt, note);
  return { ...factsOf(note), paymentId };
}

/** Removes a payment from its invoice or bill ("Remove and redo" in Xero's web app). */
export function removePayment(rt: Runtime, paymentId: string): InvoiceFacts {
  const id = paymentId.toLowerCase();
  for (const org of rt.state.orgs) {
    const payment = org.payments.find((p) => p.PaymentID === id && p.Status === 'AUTHORISED');
    if (!payment) continue;
    const inv = org.invoices.find((i) => i.InvoiceID === payment.InvoiceID);
    if (!inv) break;
    payment.Status = 'DELETED';
    payment.updatedMs = nextUpdated(rt, payment.updatedMs);
    inv.amountPaid -= payment.amount;
    if (inv.Status === 'PAID') {
      inv.Status = 'AUTHORISED';
      inv.fullyPaidOnDate = null;
    }
    return touched(rt, org, inv);
  }
  throw fail(404, `Payment with ID '${paymentId}' could not be found`);
}
