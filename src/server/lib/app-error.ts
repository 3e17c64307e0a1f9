/**
 * Error codes services throw; the error handler maps each to an HTTP status. Xero failures are translated
 * into these by the Xero client so features never parse Xero's errors.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  MFA_REQUIRED: 401,
  FORBIDDEN: 403,
  FEATURE_DISABLED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  XERO_AUTH_EXPIRED: 401,
  XERO_RATE_LIMITED: 429,
  XERO_REJECTED: 400,
  XERO_UNAVAILABLE: 502,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Optional detail sent as the `error` field (docs/product/shell.md §8 reads `message`, then `error`). */
    readonly detail?: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = ERROR_STATUS[code];
  }
}
