import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findUnsafeText, isDbId, UNSAFE_TEXT_MESSAGE } from '../../shared/input';
import { AppError, errorAnswer } from '../lib/app-error';
import { isApiRequest } from './route-path';

/** Fields that name one of our rows by its integer id (`id`, `userId`, `organizationId`, `?org=`…). */
const ID_FIELD = /^(id|org|[a-z]+Id)$/;

/** An id field whose value is a whole number (or its digits) beyond what our integer columns hold. */
function findOutOfRangeId(value: unknown, path = '', depth = 0): string | null {
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const where = path ? `${path}.${key}` : key;
    const numeric =
      typeof item === 'number'
        ? Number.isInteger(item) || !Number.isFinite(item)
        : typeof item === 'string' && /^\s*-?\d+\s*$/.test(item);
    if (ID_FIELD.test(key) && numeric && !isDbId(item) && Math.abs(Number(item)) > 2_147_483_647)
      return where;
    const found = findOutOfRangeId(item, where, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The rules every input keeps, whatever the route (issue 16), checked once the request is parsed and before its
 * own schema runs: no text anywhere holds a control character (tab and line breaks aside) or a lone surrogate,
 * and no id is beyond our integer columns. Each answers 400 with a message instead of reaching the database.
 * The route schemas say the same with `textSchema`/`idSchema` (src/shared/input.ts), for the client's forms.
 */
export function registerInputGuard(app: FastifyInstance): void {
  // A callback hook, not an async one: most requests pass, and without a promise each (issue 32).
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      guardInput(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

function guardInput(request: FastifyRequest): void {
  if (!isApiRequest(request)) return;
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [context, value] of parts) {
    const unsafe =
      typeof value === 'string' ? (findUnsafeText(value) === null ? null : '') : findUnsafeText(value);
    if (unsafe !== null)
      throw new AppError(
        'VALIDATION_ERROR',
        `Invalid ${unsafe ? `${context}.${unsafe}` : context}: ${UNSAFE_TEXT_MESSAGE}`,
      );
    const id = findOutOfRangeId(value);
    if (id !== null) throw new AppError('VALIDATION_ERROR', `Invalid ${context}.${id}: Invalid ID`);
  }
}

/**
 * Errors Fastify's router answers before any hook runs (a path parameter beyond its length, a malformed URL),
 * in the app's `{ message, code }` shape instead of Fastify's own body.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = error.statusCode ?? 400;
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'The address is too long'
      : status >= 500
        ? 'Internal server error'
        : 'The address is not valid';
  void reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(errorAnswer(status === 414 ? 'URI_TOO_LONG' : status >= 500 ? 'INTERNAL' : 'BAD_REQUEST', message));
}
