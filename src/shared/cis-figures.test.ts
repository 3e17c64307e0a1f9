import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addFigures,
  countNewPayments,
  describeDeductionLine,
  getDeductionLineRate,
  getDocumentCisFigures,
  getExpectedDeductionPence,
  getRefundableCredit,
  normalizeCisRate,
  setOffCredits,
  ZERO_FIGURES,
  type CisAccountsRule,
  type CisDocumentFacts,
  type CisFigures,
  type CountedPayment,
} from './cis-figures';

const RULE: CisAccountsRule = { materialsAccountCodes: ['322', '328'], deductionAccountCode: '825' };
const line = (accountCode: string, lineAmountPence: number, taxAmountPence = 0, description = 'Work') => ({
  accountCode,
  description,
  lineAmountPence,
  taxAmountPence,
});
const deductionLine = (pence: number, rate: number, accountCode = '825') =>
  line(accountCode, -pence, 0, describeDeductionLine(rate));

describe('a CIS document’s figures', () => {
  it('deducts on labour excluding VAT: £1,000 + £200 VAT at 20 % is £200 deducted, £1,000 paid', () => {
    // The issue's own example: a bill of £1,200 (£1,000 + VAT) is deducted £200, not £240.
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'Exclusive',
      lines: [line('321', 100_000, 20_000), deductionLine(20_000, 20)],
      totalPence: 100_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    expect(getDocumentCisFigures(bill, RULE)).toEqual({
      grossPence: 100_000,
      materialsPence: 0,
      deductionPence: 20_000,
      payablePence: 100_000,
      rateUsed: 20,
      deductionLines: 1,
    });
  });

  it('keeps materials out of the deduction and VAT out of both: 30 % on £400 of labour', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'Exclusive',
      lines: [line('321', 40_000, 8_000), line('322', 10_000, 2_000, 'Tiles'), deductionLine(12_000, 30)],
      totalPence: 48_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    expect(getDocumentCisFigures(bill, RULE)).toMatchObject({
      grossPence: 50_000,
      materialsPence: 10_000,
      deductionPence: 12_000,
      payablePence: 48_000,
      rateUsed: 30,
    });
  });

  it('reads tax-inclusive lines without their VAT', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'Inclusive',
      lines: [line('321', 120_000, 20_000), deductionLine(20_000, 20)],
      totalPence: 100_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    expect(getDocumentCisFigures(bill, RULE)).toMatchObject({ grossPence: 100_000, deductionPence: 20_000 });
  });

  it('counts a bill entered with Xero’s own CIS as Xero says: the amount due is the total less the deduction', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'NoTax',
      lines: [line('327', 60_000), line('328', 15_000, 0, 'Bricks')],
      totalPence: 75_000,
      xeroDeductionPence: 18_000,
      xeroRate: 30,
    };
    expect(getDocumentCisFigures(bill, RULE)).toEqual({
      grossPence: 75_000,
      materialsPence: 15_000,
      deductionPence: 18_000,
      payablePence: 57_000,
      rateUsed: 30,
      deductionLines: 0,
    });
  });

  it('finds the deduction line by its account or by its words, so a later change of account does not lose it', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'NoTax',
      lines: [line('321', 50_000), deductionLine(10_000, 20, '824')],
      totalPence: 40_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    expect(getDocumentCisFigures(bill, RULE).deductionPence).toBe(10_000);
    const worded = { ...bill, lines: [line('321', 50_000), line('825', -10_000, 0, 'Tax withheld')] };
    expect(getDocumentCisFigures(worded, RULE).deductionPence).toBe(10_000);
  });

  it('reads a bill with nothing deducted as nothing deducted (never a rate Ledgerlink assumes)', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'NoTax',
      lines: [line('321', 50_000)],
      totalPence: 50_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    const figures = getDocumentCisFigures(bill, RULE);
    expect(figures).toMatchObject({ deductionPence: 0, payablePence: 50_000, rateUsed: null });
    expect(getExpectedDeductionPence(figures, 20)).toBe(10_000);
    expect(getExpectedDeductionPence(figures, 0)).toBe(0);
  });

  it('moves when the materials accounts change: the reason what a payment carried is kept', () => {
    const bill: CisDocumentFacts = {
      lineAmountTypes: 'NoTax',
      lines: [line('321', 30_000), line('326', 20_000), deductionLine(6_000, 20)],
      totalPence: 44_000,
      xeroDeductionPence: null,
      xeroRate: null,
    };
    expect(getDocumentCisFigures(bill, RULE).materialsPence).toBe(0);
    expect(getDocumentCisFigures(bill, { ...RULE, materialsAccountCodes: ['326'] }).materialsPence).toBe(
      20_000,
    );
  });

  it('reads rates as Xero and the lines write them', () => {
    expect([0, 0.2, 0.3, 20, 30, 25, null].map(normalizeCisRate)).toEqual([0, 20, 30, 20, 30, null, null]);
    expect(getDeductionLineRate('CIS deduction at 30%')).toBe(30);
    expect(getDeductionLineRate('CIS deduction at 30 %')).toBe(30);
    expect(getDeductionLineRate('CIS deduction at 25%')).toBeNull();
    expect(getDeductionLineRate(null)).toBeNull();
  });
});

describe('what each payment carries', () => {
  const doc = {
    figures: { grossPence: 100_000, materialsPence: 10_000, deductionPence: 18_000 },
    payablePence: 82_000,
  };

  it('splits a bill paid in instalments so the instalments add up to the bill', () => {
    const first = countNewPayments(
      doc,
      [{ paymentId: 'a', date: '2026-11-10', amountPence: 41_000 }],
      new Map(),
    );
    expect(first).toEqual([
      {
        paymentId: 'a',
        amountPence: 41_000,
        figures: { grossPence: 50_000, materialsPence: 5_000, deductionPence: 9_000 },
      },
    ]);
    const counted = new Map(first.map((p) => [p.paymentId, p]));
    const second = countNewPayments(
      doc,
      [
        { paymentId: 'a', date: '2026-11-10', amountPence: 41_000 },
        { paymentId: 'b', date: '2026-12-10', amountPence: 41_000 },
      ],
      counted,
    );
    expect(second.map((p) => p.paymentId)).toEqual(['b']);
    expect(addFigures(first[0]?.figures ?? ZERO_FIGURES, second[0]?.figures ?? ZERO_FIGURES)).toEqual(
      doc.figures,
    );
  });

  it('never moves a payment already counted when the bill’s figures are read otherwise later', () => {
    const counted = new Map<string, CountedPayment>([
      [
        'a',
        {
          paymentId: 'a',
          amountPence: 41_000,
          figures: { grossPence: 50_000, materialsPence: 0, deductionPence: 10_000 },
        },
      ],
    ]);
    // The materials account was set since: the rest of the bill carries the difference, the first payment stays.
    const rest = countNewPayments(
      doc,
      [
        { paymentId: 'a', date: '2026-11-10', amountPence: 41_000 },
        { paymentId: 'b', date: '2026-12-10', amountPence: 41_000 },
      ],
      counted,
    );
    expect(rest[0]?.figures).toEqual({ grossPence: 50_000, materialsPence: 10_000, deductionPence: 8_000 });
  });

  it('gives what a removed payment carried to the next one', () => {
    const counted = new Map<string, CountedPayment>([
      [
        'a',
        {
          paymentId: 'a',
          amountPence: 41_000,
          figures: { grossPence: 50_000, materialsPence: 5_000, deductionPence: 9_000 },
        },
      ],
    ]);
    const redo = countNewPayments(
      doc,
      [{ paymentId: 'c', date: '2026-11-11', amountPence: 82_000 }],
      counted,
    );
    expect(redo[0]?.figures).toEqual(doc.figures);
  });

  it('counts payments first seen together in date order, an overpayment carrying no more than the bill', () => {
    const out = countNewPayments(
      doc,
      [
        { paymentId: 'z', date: '2026-12-01', amountPence: 50_000 },
        { paymentId: 'y', date: '2026-11-01', amountPence: 41_000 },
      ],
      new Map(),
    );
    expect(out.map((p) => p.paymentId)).toEqual(['y', 'z']);
    expect(addFigures(out[0]?.figures ?? ZERO_FIGURES, out[1]?.figures ?? ZERO_FIGURES)).toEqual(doc.figures);
  });

  it('always adds up to the whole bill, however it is paid (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 8 }),
        (gross, materialsShare, weights) => {
          const materials = Math.floor((gross * materialsShare) / 100);
          const deduction = Math.floor(((gross - materials) * 20) / 100);
          const payable = gross - deduction;
          const figures: CisFigures = {
            grossPence: gross,
            materialsPence: materials,
            deductionPence: deduction,
          };
          const sum = weights.reduce((s, w) => s + w, 0);
          let left = payable;
          const payments = weights.map((w, i) => {
            const amount = i === weights.length - 1 ? left : Math.floor((payable * w) / sum);
            left -= amount;
            return {
              paymentId: `p${i}`,
              date: `2026-11-${String(10 + i).padStart(2, '0')}`,
              amountPence: amount,
            };
          });
          const counted = new Map<string, CountedPayment>();
          // Seen one at a time, as a bill is paid.
          for (let i = 1; i <= payments.length; i += 1)
            for (const p of countNewPayments(
              { figures, payablePence: payable },
              payments.slice(0, i),
              counted,
            ))
              counted.set(p.paymentId, p);
          const total = [...counted.values()].reduce((s, p) => addFigures(s, p.figures), ZERO_FIGURES);
          return (
            total.grossPence === gross &&
            total.materialsPence === materials &&
            total.deductionPence === deduction
          );
        },
      ),
    );
  });
});

describe('supplier credit notes (set-off, CISR15030)', () => {
  const bill = {
    figures: { grossPence: 100_000, materialsPence: 0, deductionPence: 20_000 },
    payablePence: 80_000,
  };

  it('takes a CIS credit note allocated to a bill off the bill before its payments are counted', () => {
    // £100 of labour credited, with the £20 deducted on it given back: the subcontractor is owed £80 less.
    const credit = {
      figures: { grossPence: 10_000, materialsPence: 0, deductionPence: 2_000 },
      payablePence: 8_000,
    };
    expect(setOffCredits(bill, [{ credit, appliedPence: 8_000 }])).toEqual({
      figures: { grossPence: 90_000, materialsPence: 0, deductionPence: 18_000 },
      payablePence: 72_000,
    });
  });

  it('leaves the deduction whole when the credit note gives none back', () => {
    const credit = {
      figures: { grossPence: 10_000, materialsPence: 0, deductionPence: 0 },
      payablePence: 10_000,
    };
    expect(setOffCredits(bill, [{ credit, appliedPence: 10_000 }])).toEqual({
      figures: { grossPence: 90_000, materialsPence: 0, deductionPence: 20_000 },
      payablePence: 70_000,
    });
  });

  it('shares a credit note allocated in part, and refunds what is left', () => {
    const credit = {
      figures: { grossPence: 20_000, materialsPence: 5_000, deductionPence: 3_000 },
      payablePence: 17_000,
    };
    expect(setOffCredits(bill, [{ credit, appliedPence: 8_500 }]).figures).toEqual({
      grossPence: 90_000,
      materialsPence: -2_500,
      deductionPence: 18_500,
    });
    expect(getRefundableCredit(credit, 8_500)).toEqual({
      figures: { grossPence: 10_000, materialsPence: 2_500, deductionPence: 1_500 },
      payablePence: 8_500,
    });
    expect(getRefundableCredit(credit, 17_000).payablePence).toBe(0);
  });
});
