/**
 * What a CIS subcontractor's bill, supplier credit note and each payment on them carry onto the monthly return
 * (issue 42), on integer pence. Pure rules; the server reads the documents from its cache of Xero and keeps what
 * each payment carried (src/server/modules/cis-returns).
 *
 * HMRC's rules, and where they come from:
 * - The deduction applies to the payment less VAT and less the direct cost of materials (CISR13070, CISR61230,
 *   CIS340 §3); the return reports, per subcontractor and tax month, the gross amount paid excluding VAT, the
 *   cost of materials and the amount deducted (CISR61140, CISR61220).
 * - The return reflects what the contractor actually paid and deducted in the tax month (CISR72030): a bill
 *   paid in instalments is reported month by month as it is paid.
 * - A set-off (a sum the contractor does not pay, such as a supplier credit note allocated to the bill) reduces
 *   the payment from which the deduction is made; a contra (goods supplied to the subcontractor) does not
 *   (CISR15030). So a credit note allocated to a bill comes off that bill's figures before its payments are
 *   counted, and a credit note the subcontractor refunds in cash reduces the month of the refund, in proportion,
 *   as Xero's own CIS return does ("bills paid or credit notes refunded in the period ... part paid bills and part
 *   refunded credit notes ... on a pro-rata basis", Xero's CIS contractor return help).
 *
 * How a document is read (the contract with CIS Bills, docs/architecture.md §4 CIS Returns):
 * - A bill Ledgerlink raises carries its deduction as a line of its own on the deductions account: quantity 1,
 *   unit amount −deduction, no VAT, described `CIS deduction at N%` (N = 0, 20 or 30). Xero's Total is then what
 *   the subcontractor is paid. The deduction is −(the lines on that account, or so described); the gross is every
 *   other line excluding VAT; materials are the lines on a materials account excluding VAT.
 * - A bill a person entered with Xero's own CIS carries `CISDeduction` (and `CISRate`): Xero leaves the total
 *   unchanged and the amount due is the total less the deduction.
 */

import {
  CIS_DEDUCTION_LINE_RE,
  getCisDeductionLineDescription,
  isCisDeductionLine,
  readCisDeductionLineRate,
  readCisDocument,
  toCisRate,
  type CisBillLine,
  type CisRate,
} from './cis';

/** `CIS deduction at 20%`: the description of the line a Ledgerlink bill carries its deduction on. */
export { CIS_DEDUCTION_LINE_RE };

/** The description CIS Bills gives a bill's deduction line (src/shared/cis.ts, one wording for both sides). */
export function describeDeductionLine(ratePercent: number): string {
  const rate = toCisRate(ratePercent);
  if (rate === null) throw new RangeError(`Not a CIS rate: ${ratePercent}`);
  return getCisDeductionLineDescription(rate);
}

export type CisLineFacts = CisBillLine;

/** A bill or a supplier credit note as Xero has it (the parts the return reads). */
export interface CisDocumentFacts {
  lineAmountTypes: string | null;
  lines: readonly CisLineFacts[];
  /** Xero's Total (with VAT; a Ledgerlink bill's deduction line already taken off). */
  totalPence: number;
  /** Xero's own CISDeduction as read (null when Xero sent none; 0.00 on a single read of any bill is none). */
  xeroDeductionPence: number | null;
  /** Xero's CISRate in percent (or as a fraction), only beside a deduction Xero computed. */
  xeroRate: number | null;
}

/** The organisation's accounts as they stood: materials accounts and the deductions account. */
export interface CisAccountsRule {
  materialsAccountCodes: readonly string[];
  deductionAccountCode: string | null;
}

export interface CisFigures {
  grossPence: number;
  materialsPence: number;
  deductionPence: number;
}

export interface DocumentCisFigures extends CisFigures {
  /** What the subcontractor is owed for it: Xero's Total less a deduction Xero computed beside it. */
  payablePence: number;
  /** The rate the document was deducted at, as it says (`at N%`, or Xero's CISRate); null when it does not say. */
  rateUsed: CisRate | null;
  /** Lines on the deductions account or described as a CIS deduction. */
  deductionLines: number;
}

export const ZERO_FIGURES: CisFigures = Object.freeze({
  grossPence: 0,
  materialsPence: 0,
  deductionPence: 0,
});

/** A CIS rate in percent (0, 20 or 30) from what Xero or a line says (Xero may write 0.2 for 20 %); else null. */
export function normalizeCisRate(value: number | null | undefined): CisRate | null {
  return toCisRate(value);
}

/** The rate a deduction line names (`CIS deduction at 30%` → 30), or null. */
export function getDeductionLineRate(description: string | null): CisRate | null {
  return readCisDeductionLineRate(description);
}

/** Whether a line carries the deduction: on the deductions account, or described as CIS Bills describes it. */
export function isDeductionLine(line: CisLineFacts, rule: CisAccountsRule): boolean {
  return isCisDeductionLine(line, rule.deductionAccountCode);
}

/**
 * A document's CIS figures in full, under the accounts rule that stood when a payment on it was first seen: the
 * one reading of a document's lines that CIS Bills uses too (src/shared/cis.ts `readCisDocument`).
 */
export function getDocumentCisFigures(doc: CisDocumentFacts, rule: CisAccountsRule): DocumentCisFigures {
  const read = readCisDocument(doc, rule);
  return {
    grossPence: read.grossPence,
    materialsPence: read.materialsPence,
    deductionPence: read.deductionPence,
    payablePence: doc.totalPence - read.xeroDeductionPence,
    rateUsed: read.rateUsed,
    deductionLines: read.deductionLines,
  };
}

/** `part ÷ whole` of an amount, rounded half up to the penny (away from zero for negatives). */
function shareOf(amountPence: number, partPence: number, wholePence: number): number {
  if (wholePence === 0) return 0;
  const numerator = BigInt(amountPence) * BigInt(partPence);
  const denominator = BigInt(wholePence);
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (2n * n + d) / (2n * d);
  return Number(negative ? -rounded : rounded);
}

/** Figures × part ÷ whole, each to the penny. */
export function scaleFigures(figures: CisFigures, partPence: number, wholePence: number): CisFigures {
  return {
    grossPence: shareOf(figures.grossPence, partPence, wholePence),
    materialsPence: shareOf(figures.materialsPence, partPence, wholePence),
    deductionPence: shareOf(figures.deductionPence, partPence, wholePence),
  };
}

export function addFigures(a: CisFigures, b: CisFigures): CisFigures {
  return {
    grossPence: a.grossPence + b.grossPence,
    materialsPence: a.materialsPence + b.materialsPence,
    deductionPence: a.deductionPence + b.deductionPence,
  };
}

export function subtractFigures(a: CisFigures, b: CisFigures): CisFigures {
  return addFigures(a, negateFigures(b));
}

export function negateFigures(f: CisFigures): CisFigures {
  return { grossPence: -f.grossPence, materialsPence: -f.materialsPence, deductionPence: -f.deductionPence };
}

/**
 * What one payment (or refund) carries of a document: the part of the figures not yet carried by the payments
 * counted before it, in the share of what was still owed that it paid; all of it once it pays what is owed. So
 * the payments of a document always add up to its figures, and a payment, once counted, never moves.
 */
export function getPaymentShare(
  remaining: CisFigures,
  remainingPayablePence: number,
  amountPence: number,
): CisFigures {
  if (amountPence <= 0) return { ...ZERO_FIGURES };
  if (remainingPayablePence <= amountPence) return { ...remaining };
  return scaleFigures(remaining, amountPence, remainingPayablePence);
}

/**
 * The deduction the rate asks on labour (gross less materials), rounded down to the penny as CIS Bills deducts
 * (src/shared/cis.ts); none on a negative labour.
 */
export function getExpectedDeductionPence(figures: CisFigures, ratePercent: number): number {
  const labour = figures.grossPence - figures.materialsPence;
  return labour <= 0 ? 0 : Math.floor((labour * ratePercent) / 100);
}

/** A payment (or a credit note's refund) as Xero lists it on its document. */
export interface CisPaymentEvent {
  paymentId: string;
  date: string;
  amountPence: number;
}

/** What a payment carried when it was first counted (kept; never computed again). */
export interface CountedPayment {
  paymentId: string;
  amountPence: number;
  figures: CisFigures;
}

/**
 * The payments of a document not counted yet, each with what it carries: in date order after those already
 * counted that are still on the document (a payment removed in Xero no longer counts, and what it carried
 * goes to the next one).
 */
export function countNewPayments(
  document: { figures: CisFigures; payablePence: number },
  present: readonly CisPaymentEvent[],
  counted: ReadonlyMap<string, CountedPayment>,
): CountedPayment[] {
  let remaining: CisFigures = { ...document.figures };
  let remainingPayable = document.payablePence;
  for (const payment of present) {
    const before = counted.get(payment.paymentId);
    if (!before) continue;
    remaining = subtractFigures(remaining, before.figures);
    remainingPayable -= before.amountPence;
  }
  const fresh = present
    .filter((p) => !counted.has(p.paymentId))
    .sort((a, b) => a.date.localeCompare(b.date) || a.paymentId.localeCompare(b.paymentId));
  const out: CountedPayment[] = [];
  for (const payment of fresh) {
    const figures = getPaymentShare(remaining, remainingPayable, payment.amountPence);
    out.push({ paymentId: payment.paymentId, amountPence: payment.amountPence, figures });
    remaining = subtractFigures(remaining, figures);
    remainingPayable -= payment.amountPence;
  }
  return out;
}

/** A supplier credit note's allocation to a bill, or its whole, for the set-off rule (CISR15030). */
export interface CreditAllocation {
  /** The credit note's figures in full and what it is worth (its payable). */
  credit: { figures: CisFigures; payablePence: number };
  appliedPence: number;
}

/**
 * A bill's figures and what is owed on it once the supplier credit notes allocated to it are set off: each
 * credit note's figures in the share of it that was allocated to this bill.
 */
export function setOffCredits(
  bill: { figures: CisFigures; payablePence: number },
  allocations: readonly CreditAllocation[],
): { figures: CisFigures; payablePence: number } {
  let figures = { ...bill.figures };
  let payable = bill.payablePence;
  for (const a of allocations) {
    figures = subtractFigures(
      figures,
      a.appliedPence >= a.credit.payablePence
        ? a.credit.figures
        : scaleFigures(a.credit.figures, a.appliedPence, a.credit.payablePence),
    );
    payable -= a.appliedPence;
  }
  return { figures, payablePence: payable };
}

/**
 * The part of a supplier credit note left for cash refunds once its allocations to bills are taken off: the
 * refunds carry it, each as a reduction of its month.
 */
export function getRefundableCredit(
  credit: { figures: CisFigures; payablePence: number },
  allocatedPence: number,
): { figures: CisFigures; payablePence: number } {
  const left = credit.payablePence - allocatedPence;
  if (left <= 0) return { figures: { ...ZERO_FIGURES }, payablePence: 0 };
  return {
    figures:
      allocatedPence <= 0 ? { ...credit.figures } : scaleFigures(credit.figures, left, credit.payablePence),
    payablePence: left,
  };
}

/** A document's figures and what is owed on it, as the set-off and counting rules take them. */
export function toOwed(document: DocumentCisFigures): { figures: CisFigures; payablePence: number } {
  return {
    figures: {
      grossPence: document.grossPence,
      materialsPence: document.materialsPence,
      deductionPence: document.deductionPence,
    },
    payablePence: document.payablePence,
  };
}
