/**
 * Every `code` an error answer of the API can carry, with the HTTP status it is sent with (docs/api-errors.md).
 * The server's `AppError` and every answer it writes by hand take an `ErrorCode`, and the client's `ApiError`
 * reads one, so a new code is added here, once, or not at all. Zod-free: the client's fetch wrapper is on the
 * first screen (decision 022).
 */
export const ERROR_STATUS = {
  /** The request's body, query or path failed its schema; the message names the field. */
  VALIDATION_ERROR: 400,
  /** A request the server cannot read (malformed JSON, a bad address) or a refusal with no better code. */
  BAD_REQUEST: 400,
  /** Not signed in, or the session has ended. */
  UNAUTHENTICATED: 401,
  /** Signed in with a password; the second step (TOTP or a recovery code) is still owed. */
  MFA_REQUIRED: 401,
  /** Not allowed: another organisation, not an administrator, someone else's write, a cross-origin request. */
  FORBIDDEN: 403,
  /** The organisation's switch for this feature is off (decision 007). */
  FEATURE_DISABLED: 403,
  /** The organisation the request works on is not connected to Xero (disconnected, or never connected). */
  NOT_CONNECTED: 403,
  /** The thing named is not there (or is another organisation's). */
  NOT_FOUND: 404,
  /** Conflicts with the current state: someone changed it first, a duplicate, a write already in progress. */
  CONFLICT: 409,
  /** The request body is larger than the server accepts. */
  PAYLOAD_TOO_LARGE: 413,
  /** The address (a path parameter) is longer than the server accepts. */
  URI_TOO_LONG: 414,
  /** A body that is not JSON. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** Understood but cannot be done (an undo too late, a period that cannot be filed). */
  UNPROCESSABLE: 422,
  /** Ledgerlink's own limit; the Retry-After header says when to try again. */
  RATE_LIMITED: 429,
  /** Xero refused the organisation's tokens: the user must reconnect to Xero. */
  XERO_AUTH_EXPIRED: 401,
  /** Xero's call limit for the organisation; Retry-After says when to try again. */
  XERO_RATE_LIMITED: 429,
  /** Xero refused the request itself (its validation message is passed on). */
  XERO_REJECTED: 400,
  /** Xero could not be reached or failed. */
  XERO_UNAVAILABLE: 502,
  /** A fault of ours; the message says nothing about it. */
  INTERNAL: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, value);
}

/** The code of an error answer's body, when it is one of ours. */
export function errorCodeOf(body: unknown): ErrorCode | undefined {
  const code = body && typeof body === 'object' ? (body as Record<string, unknown>).code : undefined;
  return isErrorCode(code) ? code : undefined;
}

/**
 * The one error shape of the whole API (docs/product/shell.md §8 reads `message` first, then `error`). Some
 * answers add fields of their own (a retry time, the failed rows).
 */
export interface ErrorAnswer {
  message: string;
  code: ErrorCode;
  error?: string;
  [field: string]: unknown;
}

/** The code of an error the framework raised with only a status (a body too large, a limit hit). */
export function errorCodeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 414:
      return 'URI_TOO_LONG';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 422:
      return 'UNPROCESSABLE';
    case 429:
      return 'RATE_LIMITED';
    default:
      return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
  }
}
