import { describe, expect, it } from 'vitest';
import {
  describeApproveBillError,
  describeApproveBillRefusal,
  describeBillCreationSummary,
  describeCreateBillError,
  describeDeleteBillError,
  getCisContactLabel,
  getCreateBillsButtonLabel,
  SESSION_EXPIRED_TOAST,
} from './messages';

describe('labels (001 §2)', () => {
  it('marks contacts without a valid UTR', () => {
    expect(getCisContactLabel({ name: 'alpha Roofing', hasValidUTR: false })).toBe('alpha Roofing (No UTR)');
    expect(getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: true })).toBe('Zed Plastering');
    // Issue 19: not checked yet, neither mark; checked, as Xero says.
    expect(getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: false, cisChecked: false })).toBe(
      'Zed Plastering (checking CIS settings)',
    );
    expect(
      getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: false, cisChecked: false }, { failed: true }),
    ).toBe('Zed Plastering (CIS not checked)');
    expect(getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: false, cisChecked: true })).toBe(
      'Zed Plastering (No UTR)',
    );
  });

  it('reads an unknown hasValidUTR (null) as being checked, never as "(No UTR)" (issue 33 item 12)', () => {
    expect(getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: null })).toBe(
      'Zed Plastering (checking CIS settings)',
    );
    expect(getCisContactLabel({ name: 'Zed Plastering', hasValidUTR: null, cisChecked: false })).toBe(
      'Zed Plastering (checking CIS settings)',
    );
  });

  it('names the submit button by the bills to create', () => {
    expect(getCreateBillsButtonLabel(3, false)).toBe('Create 3 Bills in Xero');
    expect(getCreateBillsButtonLabel(1, false)).toBe('Create 1 Bill in Xero');
    expect(getCreateBillsButtonLabel(0, false)).toBe('Create Bills in Xero');
    expect(getCreateBillsButtonLabel(3, true)).toBe('Processing...');
  });
});

describe('error texts (001 §8)', () => {
  it('rewrites CIS configuration errors', () => {
    expect(
      describeCreateBillError('A validation exception occurred: The contact is not a CIS subcontractor'),
    ).toEqual({
      title: 'CIS Configuration Error',
      description:
        'The contact is not a CIS subcontractor. Please set up the CIS rate for this subcontractor in your Xero account.',
    });
    expect(
      describeCreateBillError(
        'Error: No rate set. Please set up the CIS rate for this subcontractor in your Xero account.',
      ),
    ).toEqual({
      title: 'CIS Configuration Error',
      description: 'No rate set. Please set up the CIS rate for this subcontractor in your Xero account.',
    });
    expect(describeCreateBillError('Construction Industry Scheme settings missing.').title).toBe(
      'CIS Configuration Error',
    );
    expect(describeCreateBillError('Precision lost').title).toBe('Failed to create bills'); // "cis" inside a word is not CIS
    expect(describeCreateBillError('Account code is archived')).toEqual({
      title: 'Failed to create bills',
      description: 'Account code is archived',
    });
  });

  it('summarises several creations', () => {
    expect(describeBillCreationSummary(3, 2)).toEqual({
      isError: false,
      message: 'Successfully created 3 bills (2 failed)',
    });
    expect(describeBillCreationSummary(0, 2)).toEqual({ isError: true, message: 'Failed to create bills' });
    expect(describeBillCreationSummary(5, 0).message).toBe('Successfully created 5 bills');
    // One is one bill, not "1 bills" (issue 33 item 6).
    expect(describeBillCreationSummary(1, 0).message).toBe('Successfully created 1 bill');
  });

  it('describes delete and approve failures by status', () => {
    expect(describeDeleteBillError(401)).toBe('Authentication error - please log in again');
    expect(describeDeleteBillError(403, 'Forbidden')).toBe("You don't have permission to delete this bill");
    expect(describeDeleteBillError(500)).toBe('Server error (500): Failed to delete bill');
    expect(describeDeleteBillError(409, 'Bill is not a draft')).toBe('Bill is not a draft');
    expect(describeApproveBillError(401)).toEqual({
      message: 'Authentication error - your session has expired. Please log in again.',
      isAuthError: true,
    });
    expect(describeApproveBillError(502).message).toBe('Server error (502): Failed to approve bill');
    expect(describeApproveBillError('network').message).toBe(
      'Network error - please check your connection and try again',
    );
  });

  it("titles an approval Xero refused by what Xero said, not 'Server error (400)' (issue 33 item 6)", () => {
    expect(
      describeApproveBillRefusal(
        "A validation exception occurred: Account code '429' has been archived, or has been deleted. Each line item must reference a valid account.",
      ),
    ).toEqual({
      title: 'Xero Refused the Approval',
      description:
        "Account code '429' has been archived, or has been deleted. Each line item must reference a valid account.",
    });
    expect(
      describeApproveBillRefusal('Validation error: CIS rate is not set for this subcontractor'),
    ).toEqual({
      title: 'CIS Configuration Error',
      description:
        'CIS rate is not set for this subcontractor. Please set up the CIS rate for this subcontractor in your Xero account.',
    });
  });

  it('tells an expired session to refresh the page', () => {
    expect(SESSION_EXPIRED_TOAST).toBe(
      'Your login session has expired. Please refresh the page and try again.',
    );
  });
});
