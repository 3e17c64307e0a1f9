import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
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
import { MAX_AMOUNT_PENCE, toPence } from './money';

describe('CIS split (001 §9)', () => {
  it('takes 20 % and leaves 80 % on awkward amounts', () => {
    expect(splitCisTotal(toPence(0.01))).toEqual({ totalPence: 1, cisDeductionPence: 0, amountDuePence: 1 });
    expect(splitCisTotal(toPence(0.05))).toEqual({ totalPence: 5, cisDeductionPence: 1, amountDuePence: 4 });
    expect(splitCisTotal(toPence(0.03))).toEqual({ totalPence: 3, cisDeductionPence: 1, amountDuePence: 2 });
    expect(splitCisTotal(toPence(0.02))).toEqual({ totalPence: 2, cisDeductionPence: 0, amountDuePence: 2 });
    expect(splitCisTotal(toPence(999999.99))).toEqual({
      totalPence: 99999999,
      cisDeductionPence: 20000000,
      amountDuePence: 79999999,
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
        // The deduction is the nearest penny to exactly 20 %.
        expect(Math.abs(cisDeductionPence * 5 - gross)).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('gets the total back from the amount due', () => {
    expect(getCisTotalFromAmountDuePence(toPence(80))).toBe(toPence(100));
    expect(getCisTotalFromAmountDuePence(toPence(0.01))).toBe(1);
    expect(getCisTotalFromAmountDuePence(toPence(0.02))).toBe(3); // 2.5p rounds half up
    expect(getCisTotalFromAmountDuePence(toPence(0.04))).toBe(5);
    expect(getCisTotalFromAmountDuePence(toPence(799999.99))).toBe(toPence(999999.99)); // 99999998.75 → …99
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
