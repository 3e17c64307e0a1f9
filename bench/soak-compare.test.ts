import { describe, expect, it } from 'vitest';
import { billRowCreated } from './soak-compare';

describe('the soak reads a CIS Bills answer per bill', () => {
  const answer = JSON.stringify({
    created: 1,
    failed: 1,
    results: [
      { id: 'gross', ok: true, invoiceID: 'b-1', status: 'DRAFT' },
      { id: 'net', ok: false, statusCode: 422, message: 'Choose the CIS deductions account…' },
    ],
  });

  it('a bill told created is its own row ok, not the batch told success', () => {
    expect(billRowCreated(answer, 'gross')).toBe(true);
    // "1 created, 1 failed": the refused bill was told so, and is not a lost write when Xero has none.
    expect(billRowCreated(answer, 'net')).toBe(false);
    expect(billRowCreated(answer, undefined)).toBe(false);
  });

  it('an answer without rows is taken at the batch word', () => {
    expect(billRowCreated(JSON.stringify({ created: 2, failed: 0 }), 'any')).toBe(true);
    expect(billRowCreated('not json', 'any')).toBe(true);
  });
});
