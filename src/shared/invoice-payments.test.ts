import { describe, expect, it } from 'vitest';
import { findNewPayments, paymentsKnown } from './invoice-payments';

const pay = (paymentId: string, amountPence: number, date = '2026-11-20') => ({
  paymentId,
  amountPence,
  date,
});

describe('paymentsKnown', () => {
  it('is true when the payments add up to the amount paid, including none of nothing', () => {
    expect(paymentsKnown([], 0)).toBe(true);
    expect(paymentsKnown([pay('a', 500), pay('b', 250)], 750)).toBe(true);
  });

  it('is false for a summary row of a part-paid invoice', () => {
    expect(paymentsKnown([], 1_000)).toBe(false);
    expect(paymentsKnown([pay('a', 500)], 1_500)).toBe(false);
  });
});

describe('findNewPayments', () => {
  it('names the unknown payments when the list before was complete', () => {
    const found = findNewPayments({ payments: [pay('A', 500)], amountPaidPence: 500 }, [
      pay('a', 500),
      pay('b', 2_000),
    ]);
    expect(found.map((p) => p.paymentId)).toEqual(['b']);
  });

  it('on a summary row, names the newest payments that make up what the amount paid grew by', () => {
    const found = findNewPayments({ payments: [], amountPaidPence: 1_500 }, [
      pay('old1', 1_000, '2026-10-01'),
      pay('old2', 500, '2026-10-02'),
      pay('new1', 2_000, '2026-11-24'),
      pay('new2', 300, '2026-11-24'),
    ]);
    expect(found.map((p) => p.paymentId)).toEqual(['new1', 'new2']);
  });

  it('names none rather than a wrong one when no newest run adds up', () => {
    expect(
      findNewPayments({ payments: [], amountPaidPence: 1_000 }, [
        pay('old', 1_000, '2026-11-24'),
        pay('new', 700, '2026-10-01'),
      ]),
    ).toEqual([]);
  });

  it('names none when nothing more was paid (a payment removed, or only the status changed)', () => {
    expect(findNewPayments({ payments: [], amountPaidPence: 1_000 }, [pay('x', 1_000)])).toEqual([]);
    expect(findNewPayments({ payments: [], amountPaidPence: 1_000 }, [])).toEqual([]);
  });
});
