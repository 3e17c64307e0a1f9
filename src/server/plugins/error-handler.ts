import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isErrorCode, errorCodeForStatus } from '../../shared/errors-rules';
import { AppError, errorAnswer } from '../lib/app-error';

function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    if (first) {
      const where = (first.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
      const context = error.validationContext ?? 'request';
      const field = where ? `${context}.${where}` : context;
      // Our own messages (the spec's wording) stand alone; zod's generic ones get the field's name.
      const message = first.message ?? 'is invalid';
      const generic =
        /^(Invalid (input|option|string|type|union|key|element|enum|literal|date|number|ISO|email|url|uuid)|Too (small|big)|Unrecognized key|Expected|Required|is invalid)/;
      if (!generic.test(message)) return message;
      return `Invalid ${field}: ${message}`;
    }
  }
  return error.message || 'Invalid request';
}

/**
 * One error shape for the whole API: `{ message, code, error? }` (docs/product/shell.md §8 reads `message`
 * first, then `error`; `code` is an ErrorCode, docs/api-errors.md). Client errors say what was wrong; server errors say nothing about internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Every 429 says when to try again (RFC 9110 §10.2.3): the limit's own wait, @fastify/rate-limit's header, or a minute.
    // A 409 for a change still being processed says it too when the ledger knows (issue 28 item 5).
    const seconds = error instanceof AppError ? Number(error.extra?.retryAfterSeconds) : NaN;
    const hasWait = Number.isFinite(seconds) && seconds > 0;
    if ((error.statusCode ?? 0) === 429 && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(hasWait ? Math.ceil(seconds) : 60));
    } else if ((error.statusCode ?? 0) === 409 && hasWait && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(Math.ceil(seconds)));
    }
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return reply.status(error.statusCode).send(
        errorAnswer(error.code, error.message, {
          ...(error.detail ? { error: error.detail } : {}),
          ...error.extra,
        }),
      );
    }
    if (error.validation || hasZodFastifySchemaValidationErrors(error)) {
      return reply.status(400).send(errorAnswer('VALIDATION_ERROR', describeValidation(error)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        status === 413
          ? 'Request body is too large'
          : status === 415
            ? 'Unsupported content type: send JSON'
            : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
              ? 'Request body is not valid JSON'
              : error.message;
      // Fastify's own codes (FST_ERR_…) are not ours: the answer carries the code of its status instead.
      const code = isErrorCode(error.code) ? error.code : errorCodeForStatus(status);
      return reply.status(status).send(errorAnswer(code, message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorAnswer('INTERNAL', 'Internal server error'));
  });
}
