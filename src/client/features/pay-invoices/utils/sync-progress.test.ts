import { describe, expect, it } from 'vitest';
import { describeSyncProgress, markPartial } from './sync-progress';

describe('sync progress texts (issue 19)', () => {
  it('says how many of how many, with thousands separators', () => {
    expect(describeSyncProgress({ complete: false, fetched: 1000, total: 5048 })).toBe(
      'Loading invoices from Xero: 1,000 of 5,048',
    );
    expect(describeSyncProgress({ complete: false, fetched: 2000, total: null })).toBe(
      'Loading invoices from Xero: 2,000 so far',
    );
    // Xero's count can be passed by invoices added meanwhile: never "2,100 of 2,000".
    expect(describeSyncProgress({ complete: false, fetched: 2100, total: 2000 })).toBe(
      'Loading invoices from Xero: 2,100 of 2,100',
    );
  });

  it('marks counts as partial only while the list is', () => {
    expect(markPartial('12 invoices awaiting payment', { complete: false, fetched: 1, total: 2 })).toBe(
      '12 invoices awaiting payment (so far)',
    );
    expect(markPartial('12 invoices awaiting payment', { complete: true, fetched: 2, total: 2 })).toBe(
      '12 invoices awaiting payment',
    );
  });
});
