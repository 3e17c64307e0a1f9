import type { FastifyRequest } from 'fastify';
import { AppError } from './app-error';

/** Xero's own bound for an Idempotency-Key (docs/xero-api.md §3); the browser's key is kept to the same. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

/** Visible ASCII only: the key is sent on to Xero as a header, where anything else has no place. */
const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);

/**
 * The Idempotency-Key the browser sent for one user action (one per action, reused by that action's
 * retries), validated; undefined when it sent none (an empty header counts as none). Every money-write
 * route reads it here, so they all accept and refuse the same keys.
 */
export function readIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || key === '') return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible characters`,
    );
  }
  return key;
}
