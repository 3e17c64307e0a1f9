import { describe, expect, it } from 'vitest';
import type { LiveInvoiceChange } from '@/shared/live-events';
import { describeChangeElsewhere } from './changed-elsewhere';

const change = (overrides: Partial<LiveInvoiceChange> = {}): LiveInvoiceChange => ({
  invoiceId: 'inv-1',
  invoiceNumber: 'INV-0001',
  type: 'ACCREC',
  before: { status: 'AUTHORISED', amountDuePence: 3500, amountPaidPence: 0 },
  after: { status: 'AUTHORISED', amountDuePence: 1500, amountPaidPence: 2000, totalPence: 3500 },
  newPayments: [{ paymentId: 'pay-1', amountPence: 2000, reference: 'Card payment for INV-0001' }],
  ...overrides,
});

describe('describeChangeElsewhere', () => {
  it('says what was paid, how, and what is still due', () => {
    expect(describeChangeElsewhere(change())).toBe(
      'Paid in Xero a moment ago: £20.00 by card; £15.00 still due',
    );
  });

  it('says nothing is left to pay, and leaves out a method it does not know', () => {
    const paid = change({
      after: { status: 'PAID', amountDuePence: 0, amountPaidPence: 3500, totalPence: 3500 },
      newPayments: [{ paymentId: 'p', amountPence: 3500, reference: null }],
    });
    expect(describeChangeElsewhere(paid)).toBe('Paid in Xero a moment ago: £35.00; nothing left to pay');
  });

  it("stays quiet about this browser's own payment and about changes a payment does not depend on", () => {
    expect(describeChangeElsewhere(change(), new Set(['pay-1']))).toBeNull();
    expect(
      describeChangeElsewhere(
        change({
          after: { status: 'AUTHORISED', amountDuePence: 3500, amountPaidPence: 0, totalPence: 3500 },
          newPayments: [],
        }),
      ),
    ).toBeNull();
  });

  it('names a voided invoice and a balance changed another way', () => {
    expect(
      describeChangeElsewhere(
        change({
          after: { status: 'VOIDED', amountDuePence: 0, amountPaidPence: 0, totalPence: 3500 },
          newPayments: [],
        }),
      ),
    ).toContain('Voided in Xero');
    expect(describeChangeElsewhere(change({ newPayments: [] }))).toBe(
      'Changed in Xero a moment ago: £15.00 still due',
    );
  });
});
