import { describe, expect, it } from 'vitest';
import { liveInvoicesEventSchema } from './live-events';

describe('live invoices event', () => {
  it('reads an invoice change with its balances in pence', () => {
    const event = {
      organizationId: 7,
      invoices: [
        {
          invoiceId: 'inv-1',
          invoiceNumber: 'INV-0001',
          type: 'ACCREC',
          before: { status: 'AUTHORISED', amountDuePence: 3500, amountPaidPence: 0 },
          after: { status: 'AUTHORISED', amountDuePence: 1500, amountPaidPence: 2000, totalPence: 3500 },
          newPayments: [{ paymentId: 'pay-1', amountPence: 2000, reference: 'Card payment for INV-0001' }],
        },
      ],
    };
    expect(liveInvoicesEventSchema.parse(event)).toEqual(event);
    const inPounds = structuredClone(event);
    inPounds.invoices[0]!.after.amountDuePence = 15.5;
    expect(liveInvoicesEventSchema.safeParse(inPounds).success).toBe(false);
  });
});
