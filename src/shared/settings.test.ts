import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_ID_FIELDS,
  DEFAULT_STOCK_JOURNAL_MARGIN_RATE,
  accountSchema,
  connectionDefaultsSchema,
  createEmptyConnectionDefaults,
  getOldDataCutoffDate,
  SETTING_FIELD_LABELS,
  SETTING_REFERENCE_KINDS,
  marginRateSchema,
  normalizeSelectValue,
  parseMarginRateOnSave,
  parseMarginRateWhileEditing,
  postingStatusSchema,
  settingsUpdateRequestSchema,
  taxStatusSchema,
  toConnectionDefaults,
  toSelectValue,
} from './settings';
import { normalizeConnectionStatus } from './connection';

describe('connection defaults (000 §3)', () => {
  it('fills the spec defaults for a new organisation', () => {
    const defaults = createEmptyConnectionDefaults();
    for (const field of DEFAULT_ID_FIELDS) expect(defaults[field]).toBe('');
    expect(defaults.defaultTaxStatus).toBe('Tax inclusive');
    expect(defaults.defaultStockJournalMarginRate).toBe(1.35);
    expect(defaults.defaultStockJournalPostingStatus).toBe('draft');
  });

  it('keeps the field names of the spec', () => {
    expect(Object.keys(connectionDefaultsSchema.shape)).toEqual([
      'defaultCreditCardAccountId',
      'defaultCashAccountId',
      'defaultSalesAccountId',
      'defaultVatRateId',
      'defaultBillVatRateId',
      'defaultBillAccountId',
      'defaultContactId',
      'defaultTaxStatus',
      'defaultCisSubcontractorsGroupId',
      'defaultStockJournalContactId',
      'defaultStockJournalMarginRate',
      'defaultStockJournalStockAccountId',
      'defaultStockJournalCostAccountId',
      'defaultStockJournalPostingStatus',
    ]);
  });

  it('turns missing ids into empty text and keeps set values', () => {
    const parsed = connectionDefaultsSchema.parse({
      defaultSalesAccountId: 'acc-1',
      defaultTaxStatus: 'No tax',
      defaultStockJournalMarginRate: 1.5,
      defaultStockJournalPostingStatus: 'posted',
    });
    expect(parsed.defaultCashAccountId).toBe('');
    expect(parsed.defaultSalesAccountId).toBe('acc-1');
    expect(parsed.defaultTaxStatus).toBe('No tax');
    expect(parsed.defaultStockJournalMarginRate).toBe(1.5);
    expect(parsed.defaultStockJournalPostingStatus).toBe('posted');
    expect(connectionDefaultsSchema.safeParse({ defaultTaxStatus: 'VAT' }).success).toBe(false);
  });

  it('builds defaults from stored values with nulls and junk', () => {
    const defaults = toConnectionDefaults({
      defaultCashAccountId: null,
      defaultSalesAccountId: 'acc-1',
      defaultTaxStatus: 'unknown',
      defaultStockJournalMarginRate: '1.4',
      defaultStockJournalPostingStatus: null,
    });
    expect(defaults).toEqual({
      ...createEmptyConnectionDefaults(),
      defaultSalesAccountId: 'acc-1',
      defaultStockJournalMarginRate: 1.4,
    });
    expect(toConnectionDefaults(null)).toEqual(createEmptyConnectionDefaults());
    expect(toConnectionDefaults({ defaultStockJournalMarginRate: 'abc' }).defaultStockJournalMarginRate).toBe(
      1.35,
    );
    expect(connectionDefaultsSchema.parse(defaults)).toEqual(defaults);
  });

  it('are the defaults the normalised connection status carries (one mapping for both)', () => {
    const raw = {
      connected: true,
      defaultSalesAccountId: 'acc-1',
      defaultVatRateId: null,
      defaultTaxStatus: 'No tax' as const,
      defaultStockJournalMarginRate: 2,
    };
    const status = normalizeConnectionStatus(raw);
    for (const [field, value] of Object.entries(toConnectionDefaults(raw)))
      expect(status).toHaveProperty(field, value);
    expect(normalizeConnectionStatus({ connected: false })).toMatchObject(createEmptyConnectionDefaults());
  });

  it('can be turned into JSON Schema for responses', () => {
    expect(() => z.toJSONSchema(connectionDefaultsSchema, { io: 'output' })).not.toThrow();
    expect(() => z.toJSONSchema(settingsUpdateRequestSchema, { io: 'input' })).not.toThrow();
  });
});

describe('status values', () => {
  it('has exactly the three tax statuses and two posting statuses', () => {
    expect(taxStatusSchema.options).toEqual(['Tax inclusive', 'Tax exclusive', 'No tax']);
    expect(postingStatusSchema.options).toEqual(['draft', 'posted']);
    expect(taxStatusSchema.safeParse('tax inclusive').success).toBe(false);
    expect(postingStatusSchema.safeParse('POSTED').success).toBe(false);
  });
});

describe('"none" means null', () => {
  it('normalises select values', () => {
    expect(normalizeSelectValue('none')).toBeNull();
    expect(normalizeSelectValue('')).toBeNull();
    expect(normalizeSelectValue(undefined)).toBeNull();
    expect(normalizeSelectValue(null)).toBeNull();
    expect(normalizeSelectValue('abc')).toBe('abc');
    expect(toSelectValue(null)).toBe('none');
    expect(toSelectValue('')).toBe('none');
    expect(toSelectValue('abc')).toBe('abc');
  });
});

describe('margin rate (000 §5)', () => {
  it('falls back to 1 while editing when invalid', () => {
    expect(parseMarginRateWhileEditing('')).toBe(1);
    expect(parseMarginRateWhileEditing('abc')).toBe(1);
    expect(parseMarginRateWhileEditing('0.5')).toBe(1);
    expect(parseMarginRateWhileEditing('-2')).toBe(1);
    expect(parseMarginRateWhileEditing(Number.NaN)).toBe(1);
    expect(parseMarginRateWhileEditing('1.4')).toBe(1.4);
    expect(parseMarginRateWhileEditing(2)).toBe(2);
  });

  it('falls back to 1.35 on save when unparsable', () => {
    expect(parseMarginRateOnSave('')).toBe(DEFAULT_STOCK_JOURNAL_MARGIN_RATE);
    expect(parseMarginRateOnSave('abc')).toBe(1.35);
    expect(parseMarginRateOnSave(null)).toBe(1.35);
    expect(parseMarginRateOnSave(Number.POSITIVE_INFINITY)).toBe(1.35);
    expect(parseMarginRateOnSave('1.5')).toBe(1.5);
    expect(parseMarginRateOnSave('0.8')).toBe(1);
    expect(parseMarginRateOnSave('1.355')).toBe(1.36);
    expect(parseMarginRateOnSave('1.3449')).toBe(1.34);
  });

  it('validates saved rates: number, min 1, step 0.01', () => {
    expect(marginRateSchema.safeParse(1).success).toBe(true);
    expect(marginRateSchema.safeParse(1.35).success).toBe(true);
    expect(marginRateSchema.safeParse(0.99).success).toBe(false);
    expect(marginRateSchema.safeParse(1.355).success).toBe(false);
    expect(marginRateSchema.safeParse('1.35').success).toBe(false);
  });
});

describe('settings PATCH request', () => {
  it('accepts any subset and reads "none" as null', () => {
    const parsed = settingsUpdateRequestSchema.parse({
      defaultCashAccountId: 'none',
      defaultSalesAccountId: 'acc-2',
      defaultContactId: null,
      defaultTaxStatus: 'Tax exclusive',
    });
    expect(parsed).toEqual({
      defaultCashAccountId: null,
      defaultSalesAccountId: 'acc-2',
      defaultContactId: null,
      defaultTaxStatus: 'Tax exclusive',
    });
    expect(settingsUpdateRequestSchema.parse({})).toEqual({});
  });

  it('refuses unknown fields and invalid values', () => {
    expect(settingsUpdateRequestSchema.safeParse({ featurePayInvoices: true }).success).toBe(false);
    expect(settingsUpdateRequestSchema.safeParse({ defaultTaxStatus: 'VAT' }).success).toBe(false);
    expect(settingsUpdateRequestSchema.safeParse({ defaultStockJournalMarginRate: 0.5 }).success).toBe(false);
    expect(
      settingsUpdateRequestSchema.safeParse({ defaultStockJournalPostingStatus: 'POSTED' }).success,
    ).toBe(false);
    expect(settingsUpdateRequestSchema.safeParse({ defaultCashAccountId: 5 }).success).toBe(false);
  });
});

describe('reference items', () => {
  it('reads an account without a code as code ""', () => {
    expect(accountSchema.parse({ id: 'a', name: 'Business card' })).toEqual({
      id: 'a',
      code: '',
      name: 'Business card',
    });
  });
});

describe('old data clean-up cut-off (000 §9 "older than 3 months")', () => {
  it('keeps the same day three calendar months back, clamped to short months', () => {
    expect(getOldDataCutoffDate('2026-11-22')).toBe('2026-08-22');
    expect(getOldDataCutoffDate('2026-02-15')).toBe('2025-11-15');
    expect(getOldDataCutoffDate('2026-05-31')).toBe('2026-02-28');
    expect(getOldDataCutoffDate('2028-05-31')).toBe('2028-02-29');
    expect(getOldDataCutoffDate('2026-01-01')).toBe('2025-10-01');
  });
});

describe('field labels and reference kinds', () => {
  it('names every default and says what each id refers to', () => {
    expect(Object.keys(SETTING_FIELD_LABELS)).toEqual(Object.keys(connectionDefaultsSchema.shape));
    expect(Object.keys(SETTING_REFERENCE_KINDS)).toEqual([...DEFAULT_ID_FIELDS]);
    expect(SETTING_FIELD_LABELS.defaultStockJournalStockAccountId).toBe('Stock account');
  });

  it('accepts an organisation id in the PATCH body', () => {
    expect(settingsUpdateRequestSchema.parse({ organizationId: 3 })).toEqual({ organizationId: 3 });
    expect(settingsUpdateRequestSchema.parse({ organizationId: '3' })).toEqual({ organizationId: '3' });
    expect(settingsUpdateRequestSchema.safeParse({ organizationId: 'x' }).success).toBe(false);
  });
});
