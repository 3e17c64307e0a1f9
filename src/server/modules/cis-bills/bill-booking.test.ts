import { describe, expect, it } from 'vitest';
import type { CachedTaxRate } from '../../xero/cache/cache.repository';
import { readContactCis, resolveBillVat } from './bill-booking';

const rate = (taxType: string, percent: number): CachedTaxRate => ({
  organizationId: 1,
  taxType,
  name: taxType,
  rate: percent.toFixed(4),
  status: 'ACTIVE',
  canApplyToRevenue: false,
  canApplyToExpenses: true,
  syncedAt: new Date(),
});
const UK = [
  rate('INPUT2', 20),
  rate('RRINPUT', 5),
  rate('NONE', 0),
  rate('DRCHARGE20', 0),
  rate('DRCHARGE5', 0),
];
const registered = { taxNumber: 'GB123456789', accountsPayableTaxType: 'INPUT2' };

describe("a subcontractor's VAT on a bill (issue 42)", () => {
  it('charges none without a VAT number or with "No VAT", whatever the reverse-charge setting', () => {
    for (const reverseCharge of [false, true]) {
      expect(
        resolveBillVat({ taxNumber: null, accountsPayableTaxType: 'INPUT2' }, { reverseCharge }, UK, null),
      ).toMatchObject({ treatment: 'none', taxType: null, lineAmountTypes: 'NoTax', problem: null });
      expect(
        resolveBillVat({ taxNumber: 'GB1', accountsPayableTaxType: 'NONE' }, { reverseCharge }, UK, 'INPUT2'),
      ).toMatchObject({ treatment: 'none' });
    }
  });

  it("takes the contact's own rate, else the organisation's default bill VAT rate, else 20 %", () => {
    expect(
      resolveBillVat(
        { ...registered, accountsPayableTaxType: 'RRINPUT' },
        { reverseCharge: false },
        UK,
        'INPUT2',
      ),
    ).toMatchObject({ treatment: 'standard', taxType: 'RRINPUT', percent: 5 });
    expect(
      resolveBillVat(
        { ...registered, accountsPayableTaxType: null },
        { reverseCharge: false },
        UK,
        'RRINPUT',
      ),
    ).toMatchObject({ taxType: 'RRINPUT', percent: 5 });
    expect(
      resolveBillVat({ ...registered, accountsPayableTaxType: null }, { reverseCharge: false }, UK, null),
    ).toMatchObject({ taxType: 'INPUT2', percent: 20, lineAmountTypes: 'Exclusive' });
    // A zero rate is no standard rate for a VAT-registered subcontractor.
    expect(
      resolveBillVat({ ...registered, accountsPayableTaxType: 'NONE2' }, { reverseCharge: false }, UK, null)
        .taxType,
    ).toBe('INPUT2');
  });

  it('puts the reverse charge on when the firm applies it: DRCHARGE20, or DRCHARGE5 for 5 % work, no VAT on the total', () => {
    expect(resolveBillVat(registered, { reverseCharge: true }, UK, null)).toMatchObject({
      treatment: 'reverse-charge',
      taxType: 'DRCHARGE20',
      percent: 0,
      displayPercent: 20,
      lineAmountTypes: 'Exclusive',
      problem: null,
    });
    expect(
      resolveBillVat({ ...registered, accountsPayableTaxType: 'RRINPUT' }, { reverseCharge: true }, UK, null),
    ).toMatchObject({ taxType: 'DRCHARGE5', displayPercent: 5 });
    // Labelled the other way round (Xero's docs' table), the one that applies to expenses is taken.
    expect(
      resolveBillVat(
        registered,
        { reverseCharge: true },
        [rate('INPUT2', 20), rate('DRCHARGESUPPLY20', 0)],
        null,
      ).taxType,
    ).toBe('DRCHARGESUPPLY20');
  });

  it('says what to do when Xero lacks the rate a bill needs', () => {
    expect(resolveBillVat(registered, { reverseCharge: true }, [rate('INPUT2', 20)], null).problem).toMatch(
      /Add Domestic Reverse Charge Tax Rates/,
    );
    expect(resolveBillVat(registered, { reverseCharge: false }, [rate('NONE', 0)], null).problem).toMatch(
      /no VAT rate for bills/,
    );
  });
});

describe("a contact's CIS state from Xero's settings (issue 42)", () => {
  const checked = new Date('2026-11-01T00:00:00Z');
  const contact = (cisEnabled: boolean | null, cisRate: number | null, current = true) =>
    ({
      cisEnabled,
      cisRate,
      cisCheckedAt: current ? checked : null,
      cisCheckedUpdatedUtc: checked,
      updatedUtc: checked,
    }) as never;

  it('is CIS at 0, 20 or 30; not CIS when Xero says so; unknown without a rate or before the settings are read', () => {
    expect(readContactCis(contact(true, 30))).toEqual({ state: 'cis', rate: 30 });
    expect(readContactCis(contact(true, 0))).toEqual({ state: 'cis', rate: 0 });
    expect(readContactCis(contact(false, null))).toEqual({ state: 'not-cis', rate: null });
    expect(readContactCis(contact(true, null))).toEqual({ state: 'unknown', rate: null });
    expect(readContactCis(contact(true, 25))).toEqual({ state: 'unknown', rate: null });
    expect(readContactCis(contact(true, 20, false))).toEqual({ state: 'unknown', rate: null });
    expect(readContactCis(null)).toEqual({ state: 'unknown', rate: null });
  });
});
