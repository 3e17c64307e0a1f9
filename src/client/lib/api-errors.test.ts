import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import {
  hasErrorCode,
  isConflict,
  isFeatureDisabled,
  isNotConnected,
  isTransientFailure,
} from './api-errors';

const answer = (status: number, body: unknown, message = 'Refused') =>
  new ApiError(message, status, body, '/api/xero/draft-invoices');

describe('reading what kind of failure an answer is from its code', () => {
  it('ApiError carries the code of a Ledgerlink answer, and none for an answer that is not ours', () => {
    expect(answer(403, { message: 'Refused', code: 'FEATURE_DISABLED' }).code).toBe('FEATURE_DISABLED');
    expect(answer(502, '<html>Bad gateway</html>').code).toBeUndefined();
    expect(answer(400, { message: 'Refused', code: 'FST_ERR_SOMETHING' }).code).toBeUndefined();
    expect(answer(400, { message: 'Refused', code: 42 }).code).toBeUndefined();
  });

  it('isNotConnected: the organisation is not connected to Xero, whatever the message says', () => {
    expect(isNotConnected(answer(403, { message: 'Gone', code: 'NOT_CONNECTED' }))).toBe(true);
    expect(
      isNotConnected(
        answer(403, { message: 'Organization "A" is not connected to Xero', code: 'FORBIDDEN' }),
      ),
    ).toBe(false);
    expect(isNotConnected(new Error('not connected to Xero'))).toBe(false);
  });

  it('isFeatureDisabled: the feature is switched off, not any other 403', () => {
    expect(isFeatureDisabled(answer(403, { message: 'Off', code: 'FEATURE_DISABLED' }))).toBe(true);
    expect(
      isFeatureDisabled(answer(403, { message: 'Administrator access required', code: 'FORBIDDEN' })),
    ).toBe(false);
    expect(isFeatureDisabled(answer(403, { message: 'Forbidden' }))).toBe(false);
    expect(isFeatureDisabled(undefined)).toBe(false);
  });

  it('isConflict: someone changed it first', () => {
    expect(isConflict(answer(409, { message: 'Changed in Xero meanwhile', code: 'CONFLICT' }))).toBe(true);
    expect(isConflict(answer(400, { message: 'Bad', code: 'VALIDATION_ERROR' }))).toBe(false);
    expect(isConflict(new Error('CONFLICT'))).toBe(false);
  });

  it('hasErrorCode: any code, only on an ApiError', () => {
    expect(
      hasErrorCode(answer(429, { message: 'Slow down', code: 'XERO_RATE_LIMITED' }), 'XERO_RATE_LIMITED'),
    ).toBe(true);
    expect(hasErrorCode({ code: 'XERO_RATE_LIMITED' }, 'XERO_RATE_LIMITED')).toBe(false);
  });
});

describe('isTransientFailure (issue 33 item 6: a Retry is offered only where it may help)', () => {
  it('Xero or the network not answering, or a rate limit, may pass on a retry', () => {
    expect(
      isTransientFailure(answer(502, { message: 'Xero is unavailable', code: 'XERO_UNAVAILABLE' })),
    ).toBe(true);
    expect(isTransientFailure(answer(429, { message: 'Slow down', code: 'XERO_RATE_LIMITED' }))).toBe(true);
    expect(isTransientFailure(answer(503, '<html>Service unavailable</html>'))).toBe(true);
    expect(isTransientFailure(new TypeError('Failed to fetch'))).toBe(true);
  });

  it('a refusal that says what is wrong does not', () => {
    expect(
      isTransientFailure(answer(400, { message: 'exceeds the invoice balance', code: 'VALIDATION_ERROR' })),
    ).toBe(false);
    expect(isTransientFailure(answer(409, { message: 'INV-1 is being paid', code: 'CONFLICT' }))).toBe(false);
    expect(isTransientFailure(answer(400, { message: 'Refused by Xero', code: 'XERO_REJECTED' }))).toBe(
      false,
    );
    expect(isTransientFailure(new Error('Failed to parse response'))).toBe(false);
  });
});
