import { describe, expect, it } from 'vitest';
import { toPence } from '@/shared/money';
import { checkPaymentAgainstBalance } from '@/shared/pay-invoices';
import {
  describePaymentError,
  describePaymentOutcome,
  describePaymentSuccess,
  describeUndoneReplay,
  getInvoiceStatusBadge,
  UNDO_MESSAGES,
} from './messages';

describe('payment toasts (001 §8)', () => {
  it('maps payment errors', () => {
    expect(describePaymentError('Invoice is already fully paid')).toEqual({
      title: 'Invoice Data Out of Sync',
      description:
        'Payment validation failed. The invoice data may have changed. Try refreshing the invoice.',
      isOutOfSync: true,
    });
    expect(describePaymentError('Validation failed for Payment').isOutOfSync).toBe(true);
    expect(describePaymentError('Boom')).toEqual({
      title: 'Payment Failed',
      description: 'Failed to process payments. Please try again.',
      isOutOfSync: false,
    });
    expect(describePaymentError(undefined).title).toBe('Payment Failed');
  });

  it("reads the server's balance refusals as out of sync", () => {
    const over = checkPaymentAgainstBalance(toPence(10.02), toPence(10));
    expect(describePaymentError(over).isOutOfSync).toBe(true);
    expect(describePaymentError(checkPaymentAgainstBalance(100, 1)).isOutOfSync).toBe(true);
  });
});

describe('success texts (001 §4)', () => {
  it('describes success', () => {
    expect(describePaymentSuccess(2, 'INV-9')).toEqual({
      title: 'Payments Processed Successfully',
      description: 'Processed 2 payments for invoice INV-9',
    });
    expect(describePaymentOutcome(1)).toEqual({
      title: 'Payment Successful!',
      detail: 'Invoice fully paid',
      tag: 'COMPLETED',
    });
    expect(describePaymentOutcome(123456, 'USD')).toEqual({
      title: 'Payment Successful!',
      detail: 'Remaining balance: $1,234.56',
      tag: 'PARTIAL',
    });
  });

  it('says whether an Undo worked', () => {
    expect(UNDO_MESSAGES.success.title).toBe('Payment Undone');
    expect(UNDO_MESSAGES.failure.title).toBe('Undo Failed');
  });
});

describe('status badge (001 §4)', () => {
  const today = '2025-11-20';
  it('shows the spec wording', () => {
    expect(getInvoiceStatusBadge({ amountDue: 0, dueDate: '2025-11-01' }, today).label).toBe('Fully Paid');
    // Issue 17 item 15: a penny left is said, not shown as "Fully Paid".
    expect(getInvoiceStatusBadge({ amountDue: 0.01, dueDate: '2025-11-01' }, today).label).toBe(
      '£0.01 left to pay',
    );
    expect(getInvoiceStatusBadge({ amountDue: 5, dueDate: '2025-11-17' }, today).label).toBe(
      'Overdue by 3 days',
    );
    expect(getInvoiceStatusBadge({ amountDue: 5, dueDate: '2025-11-20' }, today).label).toBe('Due today');
    expect(getInvoiceStatusBadge({ amountDue: 5, dueDate: '2025-11-27' }, today).label).toBe('Due in 7 days');
    expect(getInvoiceStatusBadge({ amountDue: 5, dueDate: '2026-01-01' }, '2025-12-31').label).toBe(
      'Due in 1 day',
    );
    expect(getInvoiceStatusBadge({ amountDue: 5, dueDate: '2025-12-30' }, '2025-12-31').label).toBe(
      'Overdue by 1 day',
    );
  });
});

describe('a resend of a payment undone since (issue 28, issue 33)', () => {
  it('says nothing was paid now and what is due, not that the payment succeeded', () => {
    const message = describeUndoneReplay(
      'INV-0037',
      [{ amount: 20, isCard: true, undoneAt: '2026-07-01T09:05:00.000Z' }],
      toPence(112.88),
    );
    expect(message).toEqual({
      title: 'Payment Was Undone',
      description:
        'This payment (card £20.00) was recorded and then undone at 10:05; nothing was paid now. £112.88 is still due on INV-0037.',
    });
    expect(describeUndoneReplay('INV-0037', [], 0).description).toContain('INV-0037 is fully paid.');
  });
});
