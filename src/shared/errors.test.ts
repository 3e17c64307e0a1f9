import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_STATUS,
  ERROR_STATUS_DESCRIPTIONS,
  errorCodeForStatus,
  errorCodeOf,
  errorResponseSchema,
} from './errors';

describe('the one list of error codes', () => {
  it('names every code under its status in the API description, where that status is documented', () => {
    const missing = ERROR_CODES.filter((code) => {
      const description = (ERROR_STATUS_DESCRIPTIONS as Record<number, string>)[ERROR_STATUS[code]];
      return description !== undefined && !description.split(/[^A-Z_]+/).includes(code);
    });
    expect(missing).toEqual([]);
  });

  it('gives an error the framework raises with only a status a code of that status', () => {
    for (const status of [400, 401, 403, 404, 409, 413, 414, 415, 422, 429, 500, 503]) {
      const code = errorCodeForStatus(status);
      expect(ERROR_STATUS[code] === status || (status >= 500 && code === 'INTERNAL')).toBe(true);
    }
    expect(errorCodeForStatus(418)).toBe('BAD_REQUEST');
  });

  it('reads a code only when it is one of ours', () => {
    expect(errorCodeOf({ message: 'Off', code: 'FEATURE_DISABLED' })).toBe('FEATURE_DISABLED');
    expect(errorCodeOf({ message: 'x', code: 'FST_ERR_CTP_BODY_TOO_LARGE' })).toBeUndefined();
    expect(errorCodeOf({ message: 'x', code: 'toString' })).toBeUndefined();
    expect(errorCodeOf('Bad gateway')).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
  });

  it('documents only answers whose code is on the list', () => {
    expect(errorResponseSchema.safeParse({ message: 'Gone', code: 'NOT_CONNECTED' }).success).toBe(true);
    expect(errorResponseSchema.safeParse({ message: 'Gone', code: 'UNAUTHORIZED' }).success).toBe(false);
  });
});
