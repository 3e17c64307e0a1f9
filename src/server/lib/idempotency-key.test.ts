import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error';
import { readIdempotencyKey } from './idempotency-key';

function requestWith(key: string | string[] | undefined): FastifyRequest {
  return { headers: key === undefined ? {} : { 'idempotency-key': key } } as unknown as FastifyRequest;
}

describe('readIdempotencyKey', () => {
  it('returns the key the browser sent, the first of repeated headers', () => {
    expect(readIdempotencyKey(requestWith('3f2a9c1e-7b4d-4c8e-9a1f-2b3c4d5e6f70'))).toBe(
      '3f2a9c1e-7b4d-4c8e-9a1f-2b3c4d5e6f70',
    );
    expect(readIdempotencyKey(requestWith(['first', 'second']))).toBe('first');
    expect(readIdempotencyKey(requestWith('k'.repeat(128)))).toBe('k'.repeat(128));
  });

  it('reads no header and an empty one as no key', () => {
    expect(readIdempotencyKey(requestWith(undefined))).toBeUndefined();
    expect(readIdempotencyKey(requestWith(''))).toBeUndefined();
  });

  it.each([
    ['longer than 128 characters', 'k'.repeat(129)],
    ['with a space', 'two words'],
    ['with a character outside visible ASCII', 'clé'],
  ])('refuses a key %s as a validation error', (_, key) => {
    const error = (() => {
      try {
        readIdempotencyKey(requestWith(key));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Idempotency-Key must be 1 to 128 visible characters',
    });
  });
});
