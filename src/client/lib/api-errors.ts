import type { ErrorCode } from '@/shared/errors-rules';
import { isApiError } from './api-client';

/**
 * What kind of failure a thrown value is, read from the server's typed `code` (docs/api-errors.md), so no page
 * parses a body or a message to find out.
 */
export function hasErrorCode(error: unknown, code: ErrorCode): boolean {
  return isApiError(error) && error.code === code;
}

/** The organisation the request worked on is not connected to Xero: the page shows its not-connected state. */
export function isNotConnected(error: unknown): boolean {
  return hasErrorCode(error, 'NOT_CONNECTED');
}

/** The organisation's switch for the page's feature is off: the page shows its feature-disabled state. */
export function isFeatureDisabled(error: unknown): boolean {
  return hasErrorCode(error, 'FEATURE_DISABLED');
}

/** Someone changed the thing first, or a write for it is still in progress (issue 28): read again, then retry. */
export function isConflict(error: unknown): boolean {
  return hasErrorCode(error, 'CONFLICT');
}

/**
 * A failure that may pass if the same request is sent again (issue 33 item 6): Xero or the network did not
 * answer, or a rate limit was hit. Not a refusal: a 4xx that says what is wrong stays wrong on a retry.
 */
export function isTransientFailure(error: unknown): boolean {
  if (isApiError(error)) {
    return (
      error.code === 'XERO_UNAVAILABLE' ||
      error.code === 'XERO_RATE_LIMITED' ||
      error.code === 'RATE_LIMITED' ||
      error.status === 502 ||
      error.status === 503 ||
      error.status === 504
    );
  }
  // fetch rejects with a TypeError when the network failed after the client's own retries.
  return error instanceof TypeError;
}
