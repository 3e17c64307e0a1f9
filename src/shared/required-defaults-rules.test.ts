import { describe, expect, it } from 'vitest';
import { findMissingDefaults, REQUIRED_DEFAULTS } from './required-defaults-rules';
import { FEATURE_KEYS } from './feature-flags-rules';
import { SETTING_FIELD_LABELS } from './settings';

describe('findMissingDefaults', () => {
  it('names every default Add Invoices needs when none is set, in the Settings order', () => {
    expect(findMissingDefaults('add-invoices', {}).map((m) => m.label)).toEqual([
      'Cash account',
      'Sales account',
      'Default contact',
    ]);
  });

  it('counts empty text, blanks and null as missing, and an id as set', () => {
    expect(
      findMissingDefaults('add-invoices', {
        defaultCashAccountId: 'acc-1',
        defaultSalesAccountId: '  ',
        defaultContactId: null,
      }).map((m) => m.field),
    ).toEqual(['defaultSalesAccountId', 'defaultContactId']);
    expect(findMissingDefaults('cis-bills', { defaultBillAccountId: '' })).toHaveLength(1);
    expect(findMissingDefaults('cis-bills', { defaultBillAccountId: 'acc-321' })).toEqual([]);
  });

  it('asks nothing of Pay Invoices, which falls back to the first card and cash accounts', () => {
    expect(findMissingDefaults('pay-invoices', null)).toEqual([]);
  });

  it('labels each field as the Settings screen does', () => {
    for (const feature of FEATURE_KEYS)
      for (const r of REQUIRED_DEFAULTS[feature]) expect(r.label).toBe(SETTING_FIELD_LABELS[r.field]);
  });
});
