import { ERROR_STATUS, type ErrorAnswer, type ErrorCode } from '../../shared/errors-rules';

export { ERROR_STATUS, type ErrorCode };

/**
 * What services throw: an `ErrorCode` (src/shared/errors-rules.ts, docs/api-errors.md) that the error handler
 * maps to its HTTP status. Xero failures are translated into these by the Xero client so features never parse
 * Xero's errors.
 */
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

/** The body of an error answer: every answer the server writes by hand is built here, so its code is typed. */
export function errorAnswer(
  code: ErrorCode,
  message: string,
  fields: Omit<Partial<ErrorAnswer>, 'code' | 'message'> = {},
): ErrorAnswer {
  return { message, ...fields, code };
}
