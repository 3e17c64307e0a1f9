/**
 * What the Stock Journal screen says and shows (docs/product/features.md §2, §4, §8): the status badges, the
 * post button, the toasts of a post or a status sync, and the display fallbacks of the tables. The rules they
 * rest on (journal status, the split of a week, the posting checks with their spec texts) stay in
 * `@/shared/stock-journal`.
 */
import { formatCount } from '@/shared/counts';
import { formatDateShort } from '@/shared/dates';
import { formatMoney, roundPoundsToPence } from '@/shared/money';
import {
  getJournalId,
  getJournalState,
  type JournalState,
  type SalesInvoiceLine,
  type StockJournalEntry,
  type UserMessage,
} from '@/shared/stock-journal';

/** Customer fallback in the invoices card (docs/product/features.md §2). */
const DEFAULT_CUSTOMER_NAME = 'Daily Sales';

/**
 * Badge of a journal status (docs/product/features.md §4): 'Unposted', amber 'Draft', green 'Posted', red
 * 'Unclear'.
 */
export function getJournalStatusBadge(status: JournalState): {
  label: 'Unposted' | 'Draft' | 'Posted' | 'Unclear';
  tone: 'neutral' | 'amber' | 'green' | 'red';
} {
  switch (status) {
    case 'none':
      return { label: 'Unposted', tone: 'neutral' };
    case 'draft':
      return { label: 'Draft', tone: 'amber' };
    case 'posted':
      return { label: 'Posted', tone: 'green' };
    case 'unclear':
      return { label: 'Unclear', tone: 'red' };
  }
}

/**
 * Combined badge of a split week (docs/product/features.md §4): "Posted if both halves are posted; Draft if
 * both have ids and each is posted or draft; Partial if only one half has an id; otherwise Unposted." (Both
 * halves with ids but one unclear therefore shows Unposted, as the spec says; each half's own badge shows
 * Unclear.)
 */
export function getSplitPeriodBadge(
  first: StockJournalEntry | null | undefined,
  second: StockJournalEntry | null | undefined,
): 'Posted' | 'Draft' | 'Partial' | 'Unposted' {
  const s1 = getJournalState(first);
  const s2 = getJournalState(second);
  const id1 = getJournalId(first) !== null;
  const id2 = getJournalId(second) !== null;
  if (s1 === 'posted' && s2 === 'posted') return 'Posted';
  const isDone = (s: JournalState): boolean => s === 'posted' || s === 'draft';
  if (id1 && id2 && isDone(s1) && isDone(s2)) return 'Draft';
  if (id1 !== id2) return 'Partial';
  return 'Unposted';
}

/**
 * The warning shown for an unclear status (docs/product/features.md §4), with its 'Check in Xero' link label.
 */
export const JOURNAL_STATUS_UNCLEAR_WARNING = {
  title: 'Journal Status Unclear',
  description: 'The journal may have been created but the confirmation is incomplete. Please check Xero.',
  linkLabel: 'Check in Xero',
} as const;

/**
 * Post button text (docs/product/features.md §2): 'Post Journal to Xero' ('Post Journal to Xero (range)' for
 * a sub-period), 'Posting Journal to Xero...' while busy, 'Journal Posted' or 'Draft Journal Created' once a
 * journal exists.
 */
export function getPostButtonLabel(input: {
  isPosting: boolean;
  entry: StockJournalEntry | null | undefined;
  isSubPeriod: boolean;
}): string {
  if (input.isPosting) return 'Posting Journal to Xero...';
  if (getJournalId(input.entry) !== null) {
    return getJournalState(input.entry) === 'posted' ? 'Journal Posted' : 'Draft Journal Created';
  }
  return input.isSubPeriod ? 'Post Journal to Xero (range)' : 'Post Journal to Xero';
}

/**
 * Toast for a failed journal creation, by HTTP status (docs/product/features.md §8); a 409 refusing a post
 * because another person is posting the period says so, in the server's words. `followUp` is the second
 * toast shown after 1 s, when there is one.
 */
export function describeJournalError(
  status: number,
  serverMessage?: string | null,
): UserMessage & { followUp?: UserMessage } {
  const message = (serverMessage ?? '').trim();
  if (status === 409 && message.includes(' is being posted by ')) {
    // Another person's post of the period is on its way to Xero (issue 28, one writer per document): the
    // server's message names who; the period is not known to have a journal yet.
    return { title: 'Journal Being Posted', description: message };
  }
  if (status === 409) {
    return {
      title: 'Journal Already Exists',
      description:
        'A journal entry already exists for this period. Check your Xero account for the existing journal.',
    };
  }
  if (status === 400) {
    const lower = message.toLowerCase();
    let description = message || 'Please check your input values and try again.';
    if (lower.includes('customer') || lower.includes('contact')) {
      description = 'Invalid customer selection. Please select a valid customer in settings.';
    } else if (lower.includes('account')) {
      description = 'Invalid account selection. Please verify stock and cost accounts in settings.';
    } else if (lower.includes('margin') || lower.includes('rate')) {
      description = 'Invalid margin rate. Please provide a positive margin rate in settings.';
    } else if (lower.includes('date') && !lower.includes('must be within')) {
      // A server message that says what is wrong with the date ("Journal date must be within the period")
      // is shown as it is (issue 17 item 15); vaguer ones get the spec's wording.
      description = 'Invalid date range. Please check the selected period dates.';
    }
    return { title: 'Invalid Journal Data', description };
  }
  if (status === 401 || status === 403) {
    return {
      title: 'Authentication Error',
      description:
        "Your Xero connection has expired. Please reconnect to Xero by clicking 'Reconnect' in the header.",
      followUp: {
        title: 'Reconnection Required',
        description: "Please reconnect to Xero by clicking 'Reconnect' in the header.",
      },
    };
  }
  if (status >= 500) {
    return {
      title: 'Xero Service Error',
      description:
        "There was a problem communicating with Xero's servers. Please try again in a few minutes.",
    };
  }
  return {
    title: 'Failed to Create Draft Journal',
    description: message || 'An unexpected error occurred. Please check your settings and try again.',
    followUp: {
      title: 'Troubleshooting Tips',
      description:
        'Make sure all required fields are filled in Settings, especially the Stock Account and Cost Account.',
    },
  };
}

/**
 * Toast after a successful create (docs/product/features.md §8): 'Journal Created Successfully!' / 'Draft
 * journal for {start} - {end} has been created in Xero.', or 'Journal Created - Please Verify' when no
 * journalId came back. A journal Xero holds as POSTED (the organisation's posting status) is said to be
 * posted, never a draft (issue 17 item 4).
 */
export function describeJournalCreated(
  periodStart: string,
  periodEnd: string,
  journalId: string | null | undefined,
  status?: string | null,
): UserMessage {
  if (!journalId) {
    return {
      title: 'Journal Created - Please Verify',
      description: 'The journal may have been created but no journal id was returned. Please check Xero.',
    };
  }
  if (status?.toLowerCase() === 'posted') {
    return {
      title: 'Journal Posted Successfully!',
      description: `Journal for ${formatDateShort(periodStart)} - ${formatDateShort(periodEnd)} has been posted in Xero.`,
    };
  }
  return {
    title: 'Journal Created Successfully!',
    description: `Draft journal for ${formatDateShort(periodStart)} - ${formatDateShort(periodEnd)} has been created in Xero.`,
  };
}

/**
 * Toast after a status sync (docs/product/features.md §8): 'Status Updated' or 'Status Check Complete' ('All
 * journals are already up to date.'). The spec's
 * 'Updated N journal(s) with current status from Xero.'
 * is said with the count read right for one ("Updated 1 journal …", formatCount, issue 33 item 6).
 */
export function describeSyncResult(updatedCount: number): UserMessage {
  if (updatedCount > 0) {
    return {
      title: 'Status Updated',
      description: `Updated ${formatCount(updatedCount, 'journal')} with current status from Xero.`,
    };
  }
  return { title: 'Status Check Complete', description: 'All journals are already up to date.' };
}

/** Count column text (docs/product/features.md §2): 'N invoice(s)', read right for one (issue 33 item 6). */
export function formatInvoiceCount(count: number): string {
  return formatCount(count, 'invoice');
}

/**
 * Display of an invoice line with the fallbacks of docs/product/features.md §2: customer 'Daily Sales',
 * invoice number 'INV-' plus a number (its 1-based position in the period's list).
 */
export function getInvoiceLineDisplay(
  line: Pick<SalesInvoiceLine, 'customerName' | 'invoiceNumber'>,
  index: number,
): { customerName: string; invoiceNumber: string } {
  return {
    customerName: line.customerName?.trim() || DEFAULT_CUSTOMER_NAME,
    invoiceNumber: line.invoiceNumber?.trim() || `INV-${index + 1}`,
  };
}

/** Format a period total for the table (docs/product/features.md §2: in £ with 2 decimals). */
export function formatPeriodMoney(pounds: number): string {
  return formatMoney(roundPoundsToPence(pounds));
}
