import { describe, expect, it } from 'vitest';
import type { CisContact } from '@/shared/cis-bills';
import { describeDeduction, describeVat, getContactTax, previewBill } from './bill-entry';

const hughes: CisContact = {
  id: 'c-hughes',
  name: 'Hughes Groundworks Ltd',
  isContractor: true,
  isSupplier: true,
  hasValidUTR: true,
  cisChecked: true,
  cisRate: 20,
  vatTreatment: 'standard',
  vatPercent: 20,
};

describe('a subcontractor’s CIS and VAT on the screen (issue 42)', () => {
  it('follows the reverse-charge setting read when the screen opened, for VAT-registered subcontractors only', () => {
    expect(getContactTax(hughes, { reverseCharge: false })).toMatchObject({
      state: 'cis',
      rate: 20,
      vatTreatment: 'standard',
      vatPercent: 20,
    });
    expect(getContactTax(hughes, { reverseCharge: true })).toMatchObject({
      vatTreatment: 'reverse-charge',
      vatPercent: 0,
      vatShownPercent: 20,
    });
    expect(
      getContactTax({ ...hughes, vatTreatment: 'none', vatPercent: 0 }, { reverseCharge: true }),
    ).toMatchObject({ vatTreatment: 'none', vatPercent: 0 });
  });

  it('knows no rate while Xero’s CIS settings are read, and none for a contact not marked CIS', () => {
    expect(getContactTax({ ...hughes, cisChecked: false, hasValidUTR: null }, undefined).state).toBe(
      'checking',
    );
    expect(getContactTax({ ...hughes, cisRate: null, hasValidUTR: false }, undefined)).toMatchObject({
      state: 'not-cis',
      rate: null,
    });
    expect(
      previewBill(getContactTax({ ...hughes, cisChecked: false, hasValidUTR: null }, undefined), {
        labourPence: 100,
        materialsPence: 0,
      }),
    ).toBeNull();
  });

  it('words the VAT and the deduction’s rate', () => {
    expect(describeVat('none', 0)).toBe('No VAT');
    expect(describeVat('standard', 20)).toBe('20 % VAT');
    expect(describeVat('reverse-charge', 20)).toBe('Reverse charge (20 %)');
    expect(describeDeduction(20)).toBeNull();
    expect(describeDeduction(30)).toBe('30 % — not verified');
    expect(describeDeduction(20, 'xero')).toBe("20 % — Xero's own CIS");
  });
});
