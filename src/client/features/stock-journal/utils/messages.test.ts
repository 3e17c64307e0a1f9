import { describe, expect, it } from 'vitest';
import { JOURNAL_SERVER_MESSAGES, type StockJournalEntry } from '@/shared/stock-journal';
import {
  describeJournalCreated,
  describeJournalError,
  describeSyncResult,
  formatInvoiceCount,
  formatPeriodMoney,
  getInvoiceLineDisplay,
  getJournalStatusBadge,
  getPostButtonLabel,
  getSplitPeriodBadge,
} from './messages';

const entry = (
  start: string,
  end: string,
  status: string | null,
  journalId: string | null = 'j',
): StockJournalEntry => ({
  periodStart: start,
  periodEnd: end,
  journalId,
  status,
});

describe('display fallbacks (001 §2)', () => {
  it('uses the display fallbacks', () => {
    expect(formatInvoiceCount(1)).toBe('1 invoice');
    expect(formatInvoiceCount(2)).toBe('2 invoices');
    expect(getInvoiceLineDisplay({ customerName: null, invoiceNumber: '' }, 2)).toEqual({
      customerName: 'Daily Sales',
      invoiceNumber: 'INV-3',
    });
    expect(getInvoiceLineDisplay({ customerName: 'Shop', invoiceNumber: 'INV-0042' }, 0)).toEqual({
      customerName: 'Shop',
      invoiceNumber: 'INV-0042',
    });
    expect(formatPeriodMoney(1234.5)).toBe('£1,234.50');
  });
});

describe('badges and labels (001 §2, §4)', () => {
  it('badges each status', () => {
    expect(getJournalStatusBadge('none')).toEqual({ label: 'Unposted', tone: 'neutral' });
    expect(getJournalStatusBadge('draft')).toEqual({ label: 'Draft', tone: 'amber' });
    expect(getJournalStatusBadge('posted')).toEqual({ label: 'Posted', tone: 'green' });
    expect(getJournalStatusBadge('unclear')).toEqual({ label: 'Unclear', tone: 'red' });
  });

  it('combines split badges', () => {
    const posted = entry('a', 'b', 'posted');
    const draft = entry('a', 'b', 'draft');
    const unclear = entry('a', 'b', 'weird');
    expect(getSplitPeriodBadge(posted, posted)).toBe('Posted');
    expect(getSplitPeriodBadge(posted, draft)).toBe('Draft');
    expect(getSplitPeriodBadge(draft, draft)).toBe('Draft');
    expect(getSplitPeriodBadge(draft, undefined)).toBe('Partial');
    expect(getSplitPeriodBadge(undefined, posted)).toBe('Partial');
    expect(getSplitPeriodBadge(undefined, undefined)).toBe('Unposted');
    expect(getSplitPeriodBadge(posted, unclear)).toBe('Unposted');
  });

  it('labels the post button', () => {
    expect(getPostButtonLabel({ isPosting: false, entry: undefined, isSubPeriod: false })).toBe(
      'Post Journal to Xero',
    );
    expect(getPostButtonLabel({ isPosting: false, entry: undefined, isSubPeriod: true })).toBe(
      'Post Journal to Xero (range)',
    );
    expect(getPostButtonLabel({ isPosting: true, entry: undefined, isSubPeriod: false })).toBe(
      'Posting Journal to Xero...',
    );
    expect(
      getPostButtonLabel({ isPosting: false, entry: entry('a', 'b', 'posted'), isSubPeriod: false }),
    ).toBe('Journal Posted');
    expect(
      getPostButtonLabel({ isPosting: false, entry: entry('a', 'b', 'draft'), isSubPeriod: false }),
    ).toBe('Draft Journal Created');
  });
});

describe('messages (001 §8)', () => {
  it('maps errors by status', () => {
    expect(describeJournalError(409).title).toBe('Journal Already Exists');
    expect(describeJournalError(400, 'Contact not found').description).toBe(
      'Invalid customer selection. Please select a valid customer in settings.',
    );
    expect(describeJournalError(400, 'Account is archived').description).toBe(
      'Invalid account selection. Please verify stock and cost accounts in settings.',
    );
    expect(describeJournalError(400, 'Margin must be positive').description).toBe(
      'Invalid margin rate. Please provide a positive margin rate in settings.',
    );
    expect(describeJournalError(400, 'Bad date').description).toBe(
      'Invalid date range. Please check the selected period dates.',
    );
    // Issue 17 item 15: the server's precise date message is shown, not replaced.
    expect(describeJournalError(400, 'Journal date must be within the period').description).toBe(
      'Journal date must be within the period',
    );
    expect(describeJournalError(400, 'Something odd')).toEqual({
      title: 'Invalid Journal Data',
      description: 'Something odd',
    });
    expect(describeJournalError(400).description).toBe('Please check your input values and try again.');
    const auth = describeJournalError(403);
    expect(auth.title).toBe('Authentication Error');
    expect(auth.followUp?.title).toBe('Reconnection Required');
    expect(describeJournalError(503).title).toBe('Xero Service Error');
    const other = describeJournalError(418);
    expect(other.title).toBe('Failed to Create Draft Journal');
    expect(other.description).toBe('An unexpected error occurred. Please check your settings and try again.');
    expect(other.followUp?.title).toBe('Troubleshooting Tips');
  });

  it('describes creation and sync', () => {
    expect(describeJournalCreated('2025-11-03', '2025-11-09', 'j1')).toEqual({
      title: 'Journal Created Successfully!',
      description: 'Draft journal for 3 Nov 2025 - 9 Nov 2025 has been created in Xero.',
    });
    expect(describeJournalCreated('2025-11-03', '2025-11-09', 'j1', 'draft').description).toBe(
      'Draft journal for 3 Nov 2025 - 9 Nov 2025 has been created in Xero.',
    );
    // Issue 17 item 4: an organisation that posts journals as POSTED is told it was posted, not "Draft journal".
    expect(describeJournalCreated('2025-11-03', '2025-11-09', 'j1', 'posted')).toEqual({
      title: 'Journal Posted Successfully!',
      description: 'Journal for 3 Nov 2025 - 9 Nov 2025 has been posted in Xero.',
    });
    expect(describeJournalCreated('2025-11-03', '2025-11-09', null).title).toBe(
      'Journal Created - Please Verify',
    );
    expect(describeSyncResult(3)).toEqual({
      title: 'Status Updated',
      description: 'Updated 3 journals with current status from Xero.',
    });
    expect(describeSyncResult(0)).toEqual({
      title: 'Status Check Complete',
      description: 'All journals are already up to date.',
    });
  });

  it("words each server refusal so the client's 400 mapping picks the right text", () => {
    const described = (message: string) => describeJournalError(400, message).description;
    expect(described(JOURNAL_SERVER_MESSAGES.sameAccounts)).toBe(
      'Invalid account selection. Please verify stock and cost accounts in settings.',
    );
    expect(described(JOURNAL_SERVER_MESSAGES.unknownCustomer)).toBe(
      'Invalid customer selection. Please select a valid customer in settings.',
    );
    expect(described(JOURNAL_SERVER_MESSAGES.badPeriod)).toBe(
      'Invalid date range. Please check the selected period dates.',
    );
    expect(described(JOURNAL_SERVER_MESSAGES.zeroAmount)).toBe(
      'Invalid margin rate. Please provide a positive margin rate in settings.',
    );
    expect(described(JOURNAL_SERVER_MESSAGES.salesChanged)).toBe(JOURNAL_SERVER_MESSAGES.salesChanged);
    expect(describeJournalError(409, JOURNAL_SERVER_MESSAGES.alreadyExists).description).toBe(
      JOURNAL_SERVER_MESSAGES.alreadyExists,
    );
  });

  it('says who is posting the period when another person is, not that a journal exists (issue 28)', () => {
    const busy = 'The week of 16 Nov 2026 is being posted by carol; try again in a moment.';
    expect(describeJournalError(409, busy)).toEqual({ title: 'Journal Being Posted', description: busy });
  });
});
