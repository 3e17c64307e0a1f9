/**
 * Xero's error answers (docs/xero-api.md §5), thrown by handlers and rendered by the accounting error
 * handler.
 */
import { randomUUID } from 'node:crypto';

export interface ValidationMessage {
  Message: string;
}

export class XeroError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType = 'application/json; charset=utf-8',
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : `Xero error ${status}`);
  }

  /** 400 ValidationException with the offending elements echoed back. */
  static validation(elements: Record<string, unknown>[]): XeroError {
    return new XeroError(400, {
      ErrorNumber: 10,
      Type: 'ValidationException',
      Message: 'A validation exception occurred',
      Elements: elements,
    });
  }

  static postDataInvalid(message: string): XeroError {
    return new XeroError(400, { ErrorNumber: 14, Type: 'PostDataInvalidException', Message: message });
  }

  static queryParse(message: string): XeroError {
    return new XeroError(400, { ErrorNumber: 16, Type: 'QueryParseException', Message: message });
  }

  static notFound(): XeroError {
    return new XeroError(404, "The resource you're looking for cannot be found", 'text/plain; charset=utf-8');
  }

  static problem(status: 401 | 403, detail: string): XeroError {
    return new XeroError(status, {
      Type: null,
      Title: status === 401 ? 'Unauthorized' : 'Forbidden',
      Status: status,
      Detail: detail,
      Instance: randomUUID(),
      Extensions: {},
    });
  }
}
