import { describe, expect, it } from 'vitest';
import { getZeroAmountConfirmation } from './messages';

describe('zero-amount confirmation (001 §2)', () => {
  it('names the invoice and the £0 approval', () => {
    expect(getZeroAmountConfirmation('INV-12')).toEqual({
      title: 'Confirm Zero Amount Approval',
      description:
        "You're about to approve invoice INV-12 with £0 cash amount. Are you sure you want to continue?",
      cancelLabel: 'Cancel',
      confirmLabel: 'Approve with £0',
    });
  });
});
