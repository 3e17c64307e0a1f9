/**
 * What the CIS Bills screen says (docs/product/features.md §2, §8): the subcontractor label, the submit
 * button, and the toasts of failed or partly failed writes. The validation rules and their texts stay in
 * `@/shared/cis-bills`.
 */
import { formatCount } from '@/shared/counts';
import { isCisChecked, type CisContact, type UserMessage } from '@/shared/cis-bills';

/** Shown instead of '(No UTR)' while a subcontractor's CIS settings are being read from Xero (issue 19). */
export const CIS_CHECKING_TEXT = 'Checking…';
/** Shown when Xero could not answer for a subcontractor's CIS settings; picking it or reopening asks again. */
export const CIS_NOT_CHECKED_TEXT = 'CIS not checked';

/**
 * Dropdown label (docs/product/features.md §2): contacts whose hasValidUTR is false are marked '(No UTR)'.
 * While the CIS settings are not known yet (issue 19) neither mark is given: the name says they are being
 * checked, or could not be.
 */
export function getCisContactLabel(
  contact: Pick<CisContact, 'name' | 'hasValidUTR' | 'cisChecked'>,
  options: { failed?: boolean } = {},
): string {
  if (!isCisChecked(contact))
    return `${contact.name} (${options.failed ? CIS_NOT_CHECKED_TEXT : 'checking CIS settings'})`;
  return contact.hasValidUTR ? contact.name : `${contact.name} (No UTR)`;
}

/**
 * Label of the submit button (docs/product/features.md §2): 'Create N Bill(s) in Xero', 'Processing...' while
 * busy.
 */
export function getCreateBillsButtonLabel(count: number, isProcessing: boolean): string {
  if (isProcessing) return 'Processing...';
  // docs/product/features.md §3's 'Create N Bill(s) in Xero'; with nothing to create, no "0 Bill(s)" (issue
  // 17 item 15).
  return count > 0 ? `Create ${formatCount(count, 'Bill')} in Xero` : 'Create Bills in Xero';
}

const CIS_ERROR_RE = /\bCIS\b|configuration|construction industry scheme|subcontractor|rate set/i;
const CIS_RATE_ADVICE = 'Please set up the CIS rate for this subcontractor in your Xero account.';

function stripErrorPrefixes(message: string): string {
  let text = message.trim();
  for (;;) {
    const colon = text.indexOf(':');
    if (colon <= 0 || colon > 60) return text;
    const head = text.slice(0, colon).toLowerCase();
    if (!/error|exception|failed|xero|validation/.test(head)) return text;
    text = text.slice(colon + 1).trim();
  }
}

/**
 * Toast for a failed bill creation (docs/product/features.md §8): "messages mentioning CIS, configuration,
 * Construction Industry Scheme, subcontractor or rate set get title 'CIS Configuration Error', with prefixes
 * stripped and 'Please set up the CIS rate for this subcontractor in your Xero account.' appended if absent".
 * Other messages keep their text under 'Failed to create bills'.
 */
export function describeCreateBillError(message: string | null | undefined): UserMessage {
  const text = (message ?? '').trim();
  if (!CIS_ERROR_RE.test(text)) {
    return { title: 'Failed to create bills', description: text || 'Failed to create bills' };
  }
  const stripped = stripErrorPrefixes(text);
  const description = stripped.includes(CIS_RATE_ADVICE)
    ? stripped
    : `${stripped}${stripped === '' || /[.!?]$/.test(stripped) ? '' : '.'} ${CIS_RATE_ADVICE}`.trim();
  return { title: 'CIS Configuration Error', description };
}

/** "1 bill", "3 bills": the spec's 'N bills' read right for one (issue 33 item 6). */
const billCount = (n: number) => formatCount(n, 'bill');

/**
 * Result of creating several bills (docs/product/features.md §8): 'Successfully created N bills (M failed)'
 * on partial success, 'Failed to create bills' when all failed, 'Successfully created N bills' when all
 * succeeded.
 */
export function describeBillCreationSummary(
  created: number,
  failed: number,
): { isError: boolean; message: string } {
  if (created === 0 && failed > 0) return { isError: true, message: 'Failed to create bills' };
  if (failed > 0)
    return { isError: false, message: `Successfully created ${billCount(created)} (${failed} failed)` };
  return { isError: false, message: `Successfully created ${billCount(created)}` };
}

/**
 * Delete failures (docs/product/features.md §8): 401 'Authentication error - please log in again'; 403 'You
 * don't have permission to delete this bill'; otherwise the server message or 'Server error ({status}):
 * Failed to delete bill'.
 */
export function describeDeleteBillError(status: number, serverMessage?: string | null): string {
  if (status === 401) return 'Authentication error - please log in again';
  if (status === 403) return "You don't have permission to delete this bill";
  return serverMessage?.trim() || `Server error (${status}): Failed to delete bill`;
}

/**
 * Approve failures (docs/product/features.md §8): an auth error (401)
 * 'Authentication error - your session has expired...' (the full text is below), other HTTP errors
 * 'Server error ({status}): Failed to approve bill', no answer
 * 'Network error - please check your connection and try again'. `isAuthError` tells the client to refresh connection
 * and user and set the session-expired flag, toasting 'Your login session has expired. Please refresh the
 * page and try again.'
 */
export function describeApproveBillError(status: number | 'network'): {
  message: string;
  isAuthError: boolean;
} {
  if (status === 'network') {
    return { message: 'Network error - please check your connection and try again', isAuthError: false };
  }
  if (status === 401) {
    return {
      message: 'Authentication error - your session has expired. Please log in again.',
      isAuthError: true,
    };
  }
  return { message: `Server error (${status}): Failed to approve bill`, isAuthError: false };
}

/**
 * An approval Xero refused (the server's XERO_REJECTED, carrying Xero's words): titled by what Xero said, as
 * the spec titles a refused creation (issue 33 item 6), never 'Server error (400): Failed to approve bill'. A
 * refusal about CIS is a 'CIS Configuration Error' with its advice; any other is 'Xero Refused the Approval'
 * with Xero's text, its "A validation exception occurred:" prefixes stripped.
 */
export function describeApproveBillRefusal(xeroMessage: string): UserMessage {
  const text = xeroMessage.trim();
  if (CIS_ERROR_RE.test(text)) return describeCreateBillError(text);
  const stripped = stripErrorPrefixes(text) || text;
  return { title: 'Xero Refused the Approval', description: stripped };
}

/** The toast shown on an approve auth error (docs/product/features.md §8). */
export const SESSION_EXPIRED_TOAST = 'Your login session has expired. Please refresh the page and try again.';
