import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createCisBillFigures,
  getCisDeductionLineDescription,
  getCisVatTreatment,
  getInclusiveLineVatPence,
  getLineVatPence,
  isCisDeductionLine,
  readCisBill,
  readCisDeductionLineRate,
  splitCisBill,
  toCisRate,
  type CisBillContext,
  type CisRate,
  getCisAmountDuePence,
  getCisDeductionPence,
  getCisGrossFromNetPence,
  getCisNetFromGrossPence,
  getCisTotalFromAmountDuePence,
  getTaxWeekReference,
  getUkTaxWeek,
  getUkTaxYear,
  splitCisTotal,
} from './cis';
import { getDocumentCisFigures } from './cis-figures';
import { MAX_AMOUNT_PENCE, toPence } from './money';

describe('CIS split (001 §9)', () => {
  it('takes 20 % and leaves 80 % on awkward amounts', () => {
    expect(splitCisTotal(toPence(0.01))).toEqual({ totalPence: 1, cisDeductionPence: 0, amountDuePence: 1 });
    expect(splitCisTotal(toPence(0.05))).toEqual({ totalPence: 5, cisDeductionPence: 1, amountDuePence: 4 });
    // 20 % of 3p is 0.6p: rounded down, never over-deducted (issue 42; HMRC gives no rounding rule).
    expect(splitCisTotal(toPence(0.03))).toEqual({ totalPence: 3, cisDeductionPence: 0, amountDuePence: 3 });
    expect(splitCisTotal(toPence(0.02))).toEqual({ totalPence: 2, cisDeductionPence: 0, amountDuePence: 2 });
    expect(splitCisTotal(toPence(999999.99))).toEqual({
      totalPence: 99999999,
      cisDeductionPence: 19999999, // 19,999,999.8p rounded down
      amountDuePence: 80000000,
    });
    expect(splitCisTotal(toPence(1000))).toEqual({
      totalPence: 100000,
      cisDeductionPence: 20000,
      amountDuePence: 80000,
    });
    expect(splitCisTotal(0)).toEqual({ totalPence: 0, cisDeductionPence: 0, amountDuePence: 0 });
  });

  it('computes the parts separately with the same result', () => {
    expect(getCisDeductionPence(toPence(123.45))).toBe(2469);
    expect(getCisAmountDuePence(toPence(123.45))).toBe(9876);
  });

  it('deduction + amount due = gross, for every amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_AMOUNT_PENCE }), (gross) => {
        const { cisDeductionPence, amountDuePence } = splitCisTotal(gross);
        expect(cisDeductionPence + amountDuePence).toBe(gross);
        // Never more than 20 %, and less than a penny under it.
        expect(cisDeductionPence * 5).toBeLessThanOrEqual(gross);
        expect((cisDeductionPence + 1) * 5).toBeGreaterThan(gross);
      }),
    );
  });

  it('gets the total back from the amount due', () => {
    expect(getCisTotalFromAmountDuePence(toPence(80))).toBe(toPence(100));
    expect(getCisTotalFromAmountDuePence(toPence(0.01))).toBe(1);
    expect(getCisTotalFromAmountDuePence(toPence(0.02))).toBe(2); // 20 % of 2p rounds down to nothing
    expect(getCisTotalFromAmountDuePence(toPence(0.04))).toBe(5);
    // 99999998.75p: £999,999.98 leaves £799,999.99; £999,999.99 would leave a penny more.
    expect(getCisTotalFromAmountDuePence(toPence(799999.99))).toBe(toPence(999999.98));
    expect(getCisGrossFromNetPence(toPence(0.05))).toBe(6); // 6.25p
    expect(getCisNetFromGrossPence(toPence(0.05))).toBe(4);
  });

  it('converting net to gross and back returns the same net', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Math.floor(MAX_AMOUNT_PENCE * 0.8) }), (net) => {
        expect(getCisNetFromGrossPence(getCisGrossFromNetPence(net))).toBe(net);
      }),
    );
  });
});

describe('UK tax year and week', () => {
  it('starts the tax year on 6 April', () => {
    expect(getUkTaxYear('2025-04-05')).toEqual({ startYear: 2024, endYear: 2025, startDate: '2024-04-06' });
    expect(getUkTaxYear('2025-04-06')).toEqual({ startYear: 2025, endYear: 2026, startDate: '2025-04-06' });
    expect(getUkTaxYear('2025-12-31').endYear).toBe(2026);
    expect(getUkTaxYear('2026-01-01').endYear).toBe(2026);
  });

  it('numbers weeks from 6 April, with week 53 at the end', () => {
    expect(getUkTaxWeek('2025-04-06')).toBe(1);
    expect(getUkTaxWeek('2025-04-12')).toBe(1);
    expect(getUkTaxWeek('2025-04-13')).toBe(2);
    expect(getUkTaxWeek('2026-04-04')).toBe(52);
    expect(getUkTaxWeek('2026-04-05')).toBe(53);
    // 2023/24 ends in a leap year: 4 and 5 April 2024 are both week 53.
    expect(getUkTaxWeek('2024-04-03')).toBe(52);
    expect(getUkTaxWeek('2024-04-04')).toBe(53);
    expect(getUkTaxWeek('2024-04-05')).toBe(53);
  });

  it('writes the reference as 2-digit week then 2-digit end year (001 §9)', () => {
    expect(getTaxWeekReference('2025-04-05')).toBe('5325');
    expect(getTaxWeekReference('2025-04-06')).toBe('0126');
    expect(getTaxWeekReference('2025-04-13')).toBe('0226');
    expect(getTaxWeekReference('2025-12-31')).toBe('3926');
    expect(getTaxWeekReference('2026-01-01')).toBe('3926');
    expect(getTaxWeekReference('2026-04-05')).toBe('5326');
    expect(getTaxWeekReference('2026-04-06')).toBe('0127');
    expect(getTaxWeekReference('2099-04-06')).toBe('0100'); // tax year 2099/2100 ends in "00"
    expect(getTaxWeekReference('2023-03-01')).toBe('4823'); // 6 Apr 2022 + 47 weeks
  });

  it('always gives four digits with week 1–53', () => {
    const dateArb = fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(dateArb, (date) => {
        const reference = getTaxWeekReference(date);
        expect(reference).toMatch(/^\d{4}$/);
        const week = Number(reference.slice(0, 2));
        expect(week).toBeGreaterThanOrEqual(1);
        expect(week).toBeLessThanOrEqual(53);
      }),
    );
  });
});

describe('CIS deduction on labour only, at the subcontractor’s rate (issue 42)', () => {
  it('deducts from the payment excluding VAT: a £1,200 bill (£1,000 + VAT) loses £200, not £240', () => {
    // CISR13070 / COG909250: "the amount from which the deduction is made is the payment excluding VAT".
    const bill = createCisBillFigures({ labourPence: 100_000, materialsPence: 0, rate: 20, vatPercent: 20 });
    expect(bill).toMatchObject({ vatPence: 20_000, totalPence: 120_000, cisDeductionPence: 20_000 });
    expect(bill.amountDuePence).toBe(100_000);
  });

  it('deducts nothing from materials: £1,000 labour and £400 materials at 20 % lose £200', () => {
    // FA 2004 s61(1), CISR13070: the deduction does not apply to the direct cost of materials (excl. VAT).
    const bill = createCisBillFigures({
      labourPence: 100_000,
      materialsPence: 40_000,
      rate: 20,
      vatPercent: 20,
    });
    expect(bill).toMatchObject({ vatPence: 28_000, totalPence: 168_000, cisDeductionPence: 20_000 });
    expect(bill.amountDuePence).toBe(148_000);
  });

  it('takes each subcontractor’s own rate: 30 % of £500 is £150, 0 % (gross payment status) nothing', () => {
    expect(splitCisBill({ labourPence: 50_000, materialsPence: 0, vatPence: 0, rate: 30 })).toMatchObject({
      cisDeductionPence: 15_000,
      amountDuePence: 35_000,
    });
    expect(splitCisBill({ labourPence: 10_000, materialsPence: 0, vatPence: 0, rate: 0 })).toMatchObject({
      cisDeductionPence: 0,
      amountDuePence: 10_000,
    });
    // Not a CIS subcontractor (no rate in Xero): nothing is deducted, never a silent 20 %.
    expect(splitCisBill({ labourPence: 10_000, materialsPence: 0, vatPence: 0, rate: null })).toMatchObject({
      cisDeductionPence: 0,
      amountDuePence: 10_000,
    });
  });

  it('Hughes Groundworks’ month of the issue: £2,450 gross excluding VAT at 20 % is £490, not £588', () => {
    const bill = createCisBillFigures({ labourPence: 245_000, materialsPence: 0, rate: 20, vatPercent: 20 });
    expect(bill.cisDeductionPence).toBe(49_000);
    expect(bill.totalPence).toBe(294_000);
  });

  it('rounds a fraction of a penny down, so the deduction never exceeds the rate', () => {
    expect(getCisDeductionPence(3, 20)).toBe(0); // 0.6p
    expect(getCisDeductionPence(1, 30)).toBe(0); // 0.3p
    expect(getCisDeductionPence(7, 30)).toBe(2); // 2.1p
    expect(getCisDeductionPence(9, 30)).toBe(2); // 2.7p
    expect(getCisDeductionPence(123_45, 0)).toBe(0);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_AMOUNT_PENCE }),
        fc.constantFrom<CisRate>(0, 20, 30),
        (labour, rate) => {
          const deduction = getCisDeductionPence(labour, rate);
          expect(deduction * 100).toBeLessThanOrEqual(labour * rate);
          expect((deduction + 1) * 100).toBeGreaterThan(labour * rate);
        },
      ),
    );
  });

  it('deduction + amount due = total for any bill, and the deduction never touches VAT or materials', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000_000 }),
        fc.integer({ min: 0, max: 10_000_000_000 }),
        fc.constantFrom(0, 5, 20),
        fc.constantFrom<CisRate | null>(0, 20, 30, null),
        (labour, materials, vatPercent, rate) => {
          const bill = createCisBillFigures({
            labourPence: labour,
            materialsPence: materials,
            rate,
            vatPercent,
          });
          expect(bill.cisDeductionPence + bill.amountDuePence).toBe(bill.totalPence);
          expect(bill.cisDeductionPence).toBe(rate === null ? 0 : getCisDeductionPence(labour, rate));
        },
      ),
    );
  });

  it('converts gross and net at the row’s rate and back to the same net', () => {
    expect(getCisNetFromGrossPence(50_000, 30)).toBe(35_000);
    expect(getCisGrossFromNetPence(35_000, 30)).toBe(50_000);
    expect(getCisGrossFromNetPence(12_345, 0)).toBe(12_345);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Math.floor(MAX_AMOUNT_PENCE * 0.7) }),
        fc.constantFrom<CisRate>(0, 20, 30),
        (net, rate) => {
          expect(getCisNetFromGrossPence(getCisGrossFromNetPence(net, rate), rate)).toBe(net);
        },
      ),
    );
  });

  it('reads a rate only as one of HMRC’s three', () => {
    expect([0, 20, 30, '20', 25, null, undefined, '', 'x'].map(toCisRate)).toEqual([
      0,
      20,
      30,
      20,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('VAT follows the subcontractor (issue 42)', () => {
  it('charges none without a VAT number or with a "No VAT" purchases rate; reverse charge when the firm applies it', () => {
    expect(getCisVatTreatment({ taxNumber: null, purchasesTaxType: 'INPUT2' }, false)).toBe('none');
    expect(getCisVatTreatment({ taxNumber: '  ', purchasesTaxType: 'INPUT2' }, true)).toBe('none');
    expect(getCisVatTreatment({ taxNumber: 'GB123456789', purchasesTaxType: 'NONE' }, true)).toBe('none');
    expect(getCisVatTreatment({ taxNumber: 'GB123456789', purchasesTaxType: 'INPUT2' }, false)).toBe(
      'standard',
    );
    expect(getCisVatTreatment({ taxNumber: 'GB123456789', purchasesTaxType: null }, false)).toBe('standard');
    expect(getCisVatTreatment({ taxNumber: 'GB123456789', purchasesTaxType: 'INPUT2' }, true)).toBe(
      'reverse-charge',
    );
  });

  it('works a line’s VAT out as Xero does, half up per line, priced with or without VAT', () => {
    expect(getLineVatPence(100_000, 20)).toBe(20_000);
    expect(getLineVatPence(3, 17.5)).toBe(1); // 0.525p
    expect(getLineVatPence(2, 20)).toBe(0); // 0.4p
    expect(getLineVatPence(12_345, 0)).toBe(0);
    expect(getInclusiveLineVatPence(120_000, 20)).toBe(20_000);
    expect(getInclusiveLineVatPence(105, 5)).toBe(5);
    // A line priced with VAT added (net + its VAT) gives the same VAT back when Xero reads it as inclusive.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), fc.constantFrom(5, 20), (net, percent) => {
        const vat = getLineVatPence(net, percent);
        expect(getInclusiveLineVatPence(net + vat, percent)).toBe(vat);
      }),
    );
  });
});

describe('Reading a bill for CIS (issue 42)', () => {
  const context: CisBillContext = {
    deductionAccountCode: '814',
    materialsAccountCodes: ['322', '328'],
    cisLabourAccountCodes: ['327'],
    contactRate: 20,
  };
  const line = (
    accountCode: string,
    lineAmountPence: number,
    taxAmountPence = 0,
    description = 'Labour',
  ) => ({
    accountCode,
    description,
    lineAmountPence,
    taxAmountPence,
  });

  it('reads Ledgerlink’s booking: labour, materials, VAT and the deduction line with its rate', () => {
    const reading = readCisBill(
      {
        lineAmountTypes: 'Exclusive',
        lines: [
          line('321', 100_000, 20_000),
          line('322', 40_000, 8_000, 'Materials'),
          line('814', -30_000, 0, getCisDeductionLineDescription(30)),
        ],
        xeroCisDeductionPence: null,
        xeroCisRate: null,
      },
      context,
    );
    expect(reading).toMatchObject({
      source: 'ledgerlink',
      rate: 30,
      labourPence: 100_000,
      materialsPence: 40_000,
      vatPence: 28_000,
      totalPence: 168_000,
      cisDeductionPence: 30_000,
      amountDuePence: 138_000,
      bookedPence: 30_000,
    });
  });

  it('counts a bill entered with Xero’s own CIS as Xero says', () => {
    const reading = readCisBill(
      {
        lineAmountTypes: 'Exclusive',
        lines: [line('327', 50_000, 10_000), line('328', 10_000, 2_000, 'Materials')],
        xeroCisDeductionPence: 10_000,
        xeroCisRate: 20,
      },
      context,
    );
    expect(reading).toMatchObject({
      source: 'xero',
      totalPence: 72_000,
      vatPence: 12_000,
      materialsPence: 10_000,
      cisDeductionPence: 10_000,
      amountDuePence: 62_000,
    });
  });

  it('an ordinary bill reads the same whether Xero sent CISDeduction 0.00 (a single read) or none (a list)', () => {
    const bill = { lineAmountTypes: 'Exclusive', lines: [line('321', 50_000, 10_000)], xeroCisRate: null };
    const single = readCisBill({ ...bill, xeroCisDeductionPence: 0 }, { ...context, contactRate: null });
    const list = readCisBill({ ...bill, xeroCisDeductionPence: null }, { ...context, contactRate: null });
    expect(single).toEqual(list);
    expect(single).toMatchObject({
      source: 'none',
      rate: null,
      cisDeductionPence: 0,
      amountDuePence: 60_000,
    });
  });

  it('a subcontractor’s bill without a deduction yet says what it should be at the contact’s rate', () => {
    const reading = readCisBill(
      {
        lineAmountTypes: 'Inclusive',
        lines: [line('321', 120_000, 20_000)],
        xeroCisDeductionPence: 0,
        xeroCisRate: null,
      },
      context,
    );
    expect(reading).toMatchObject({
      source: 'none',
      labourPence: 100_000,
      cisDeductionPence: 20_000,
      bookedPence: 0,
    });
  });

  it('reads the rate back from the deduction line’s wording only', () => {
    expect(getCisDeductionLineDescription(20)).toBe('CIS deduction at 20%');
    expect(readCisDeductionLineRate('CIS deduction at 30%')).toBe(30);
    expect(readCisDeductionLineRate('CIS deduction at 25%')).toBeNull();
    expect(readCisDeductionLineRate('Labour')).toBeNull();
    expect(isCisDeductionLine(line('814', 100), '814')).toBe(false); // a positive line is never the deduction
  });
});

describe('CIS Bills and CIS Returns read a bill the same way (issue 42)', () => {
  const context: CisBillContext = {
    deductionAccountCode: '814',
    materialsAccountCodes: ['322'],
    cisLabourAccountCodes: ['327'],
    contactRate: 20,
  };
  const anyLine = fc.record({
    accountCode: fc.constantFrom('321', '322', '327', '814', null),
    description: fc.constantFrom('Labour', 'Tiles', 'CIS deduction at 20%', 'cis deduction at 30 %', null),
    lineAmountPence: fc.integer({ min: -200_000, max: 500_000 }),
    taxAmountPence: fc.integer({ min: 0, max: 100_000 }),
  });
  const anyBill = fc.record({
    lineAmountTypes: fc.constantFrom('Exclusive', 'Inclusive', 'NoTax'),
    lines: fc.array(anyLine, { maxLength: 5 }),
    xeroCisDeductionPence: fc.option(fc.integer({ min: 0, max: 50_000 })),
    xeroCisRate: fc.option(fc.constantFrom(0, 20, 30, 0.2)),
  });

  it('a booked deduction, the materials and what is due are one figure on both screens', () => {
    fc.assert(
      fc.property(anyBill, (bill) => {
        const billSide = readCisBill(bill, context);
        // Xero's Total: every line (the deduction line included) with VAT on top unless the lines include it.
        const total = bill.lines.reduce(
          (sum, l) => sum + l.lineAmountPence + (bill.lineAmountTypes === 'Inclusive' ? 0 : l.taxAmountPence),
          0,
        );
        const returnSide = getDocumentCisFigures(
          {
            lineAmountTypes: bill.lineAmountTypes,
            lines: bill.lines,
            totalPence: total,
            xeroDeductionPence: bill.xeroCisDeductionPence,
            xeroRate: bill.xeroCisRate,
          },
          context,
        );
        expect(billSide.materialsPence).toBe(returnSide.materialsPence);
        if (billSide.source === 'none') {
          // Nothing booked: the return counts nothing deducted; CIS Bills says what approving would book.
          expect(returnSide.deductionPence).toBe(0);
          expect(billSide.bookedPence).toBe(0);
        } else {
          expect(billSide.cisDeductionPence).toBe(returnSide.deductionPence);
        }
        // Labour is never below nothing on CIS Bills; otherwise the gross and what is due agree to the penny.
        if (returnSide.grossPence >= returnSide.materialsPence) {
          expect(billSide.labourPence + billSide.materialsPence).toBe(returnSide.grossPence);
          if (billSide.source !== 'none') expect(billSide.amountDuePence).toBe(returnSide.payablePence);
        }
      }),
    );
  });

  it('the deduction line is found by the same words and account on both sides', () => {
    const bill = {
      lineAmountTypes: 'NoTax',
      lines: [
        { accountCode: '321', description: 'Labour', lineAmountPence: 50_000, taxAmountPence: 0 },
        {
          accountCode: '999',
          description: 'CIS Deduction at 30 %',
          lineAmountPence: -15_000,
          taxAmountPence: 0,
        },
      ],
    };
    const billSide = readCisBill({ ...bill, xeroCisDeductionPence: null, xeroCisRate: null }, context);
    const returnSide = getDocumentCisFigures(
      { ...bill, totalPence: 35_000, xeroDeductionPence: null, xeroRate: null },
      context,
    );
    expect(billSide).toMatchObject({
      source: 'ledgerlink',
      rate: 30,
      cisDeductionPence: 15_000,
      amountDuePence: 35_000,
    });
    expect(returnSide).toMatchObject({ rateUsed: 30, deductionPence: 15_000, payablePence: 35_000 });
  });
});
