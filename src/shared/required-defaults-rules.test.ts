import { describe, expect, it } from 'vitest';
import { findDefaultNamedIn, findMissingDefaults, REQUIRED_DEFAULTS } from './required-defaults-rules';
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

describe('findDefaultNamedIn (issue 33 item 6: the toast that refuses offers Open Settings at that field)', () => {
  it('finds the default a refusal sends the user to Settings for', () => {
    expect(
      findDefaultNamedIn(
        'add-invoices',
        'No default cash account is set for this organization. Choose a Default Cash Account in Settings before entering cash amounts.',
      )?.field,
    ).toBe('defaultCashAccountId');
    expect(
      findDefaultNamedIn('add-invoices', 'Set a Default Contact in Settings before creating an invoice.')
        ?.field,
    ).toBe('defaultContactId');
    expect(
      findDefaultNamedIn(
        'cis-bills',
        'Please set a default bill account in the settings page before approving bills.',
      )?.field,
    ).toBe('defaultBillAccountId');
  });

  it('finds none in a refusal that is not about Settings, or names no default of the feature', () => {
    expect(findDefaultNamedIn('add-invoices', 'The cash account was refused by Xero.')).toBeNull();
    expect(findDefaultNamedIn('add-invoices', 'Choose a bill account in Settings.')).toBeNull();
    expect(findDefaultNamedIn('add-invoices', undefined)).toBeNull();
  });
});
