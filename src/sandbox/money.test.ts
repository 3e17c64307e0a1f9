import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  divRound,
  documentTotals,
  lineAmountPence,
  lineTaxPence,
  penceFrom,
  toScaled,
  type LineAmountTypes,
} from './money';

describe('money in integers', () => {
  it('rounds half away from zero', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(divRound(-4n, 3n)).toBe(-1n);
  });

  it('parses decimals without float error', () => {
    expect(penceFrom(0.1 + 0.2)).toBe(30);
    expect(penceFrom('19.99')).toBe(1999);
    expect(penceFrom(1.005)).toBe(101);
    expect(penceFrom(-2.5)).toBe(-250);
    expect(toScaled(1.23456, 4)).toBe(12346);
    expect(penceFrom('abc')).toBeNull();
  });

  it('computes per-line tax as Xero does', () => {
    expect(lineTaxPence(999, 200000, 'Inclusive')).toBe(167);
    expect(lineTaxPence(999, 200000, 'Exclusive')).toBe(200);
    expect(lineTaxPence(1001, 50000, 'Inclusive')).toBe(48);
    expect(lineTaxPence(999, 200000, 'NoTax')).toBe(0);
    expect(lineAmountPence({ quantityE4: 30000, unitE4: 33300, discountE2: 0 })).toBe(999);
    expect(lineAmountPence({ quantityE4: 10000, unitE4: 1000000, discountE2: 1250 })).toBe(8750);
  });

  it('keeps SubTotal + TotalTax = Total and tax within half a penny per line (property)', () => {
    const line = fc.record({
      amount: fc.integer({ min: -1_000_000, max: 10_000_000 }),
      rate: fc.constantFrom(0, 50000, 200000),
    });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 20 }),
        fc.constantFrom<LineAmountTypes>('Inclusive', 'Exclusive', 'NoTax'),
        (lines, mode) => {
          const priced = lines.map((l) => ({
            lineAmount: l.amount,
            taxAmount: lineTaxPence(l.amount, l.rate, mode),
          }));
          const t = documentTotals(priced, mode);
          expect(t.subTotal + t.totalTax).toBe(t.total);
          for (const [i, l] of lines.entries()) {
            const exact =
              mode === 'NoTax'
                ? 0
                : mode === 'Exclusive'
                  ? (l.amount * l.rate) / 1e6
                  : (l.amount * l.rate) / (1e6 + l.rate);
            expect(Math.abs((priced[i]?.taxAmount ?? 0) - exact)).toBeLessThanOrEqual(0.5 + 1e-9);
          }
          if (mode === 'Inclusive') expect(t.total).toBe(lines.reduce((s, l) => s + l.amount, 0));
          else expect(t.subTotal).toBe(lines.reduce((s, l) => s + l.amount, 0));
        },
      ),
    );
  });
});
