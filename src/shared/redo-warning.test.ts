import { describe, expect, it } from 'vitest';
import {
  describeAge,
  describeBillRedo,
  describeInvoiceRedo,
  describePaymentRedo,
  redoSuspectsOf,
} from './redo-warning';

describe('the redo warning in words (issue 44)', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it('says how long ago', () => {
    expect(describeAge(now - 30_000, now)).toBe('just now');
    expect(describeAge(now - 60_000, now)).toBe('1 minute ago');
    expect(describeAge(now - 10 * 60_000, now)).toBe('10 minutes ago');
    expect(describeAge(now - 3 * 3_600_000, now)).toBe('3 hours ago');
    expect(describeAge(now - 3 * 86_400_000, now)).toBe('3 days ago');
    // A clock a little ahead of ours is "just now", never "-1 minutes ago".
    expect(describeAge(now + 90_000, now)).toBe('just now');
  });

  it('names what Xero already has as the issue quotes it', () => {
    const createdAt = new Date(now - 10 * 60_000).toISOString();
    expect(
      describeBillRedo(
        { contactName: 'R. Singh Tiling', reference: '3726', totalPence: 50_000, createdAt },
        now,
      ),
    ).toBe(
      'Xero already has a bill from R. Singh Tiling with reference 3726 for £500.00, created 10 minutes ago',
    );
    // Issue 42: R. Singh at 30 % on £500 of labour; Xero totals the bill £350.00 after its deduction line.
    expect(
      describeBillRedo(
        {
          contactName: 'R. Singh Tiling',
          reference: '3726',
          totalPence: 50_000,
          deductionPence: 15_000,
          createdAt,
        },
        now,
      ),
    ).toBe(
      'Xero already has a bill from R. Singh Tiling with reference 3726 for £500.00 (£350.00 after the CIS deduction), created 10 minutes ago',
    );
    expect(describePaymentRedo({ invoiceNumber: 'INV-0042', amountPence: 1_234, createdAt: null }, now)).toBe(
      'Xero already has a payment of £12.34 on INV-0042',
    );
    expect(
      describeInvoiceRedo(
        {
          invoiceNumber: 'INV-0107',
          contactName: 'Daily Sales',
          date: '2026-11-28',
          totalPence: 4_000,
          paidPence: 500,
          createdAt,
        },
        now,
      ),
    ).toBe(
      'Xero already has invoice INV-0107 to Daily Sales dated 28 Nov 2026 for £40.00 (£5.00 paid), created 10 minutes ago',
    );
  });

  it('reads the suspects of an error answer, and none from anything else', () => {
    const suspect = { kind: 'bill', xeroId: 'x', createdAt: null, message: 'Xero already has a bill' };
    expect(redoSuspectsOf({ message: 'm', code: 'CONFLICT', redo: [suspect, { nope: 1 }] })).toEqual([
      suspect,
    ]);
    expect(redoSuspectsOf({ message: 'm' })).toEqual([]);
    expect(redoSuspectsOf(null)).toEqual([]);
    expect(redoSuspectsOf('redo')).toEqual([]);
  });
});
