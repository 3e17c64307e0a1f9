import { describe, expect, it } from 'vitest';
import {
  getTaxYearOf,
  isVerificationNeeded,
  pickVerificationNumber,
  verificationReason,
  type VerifiedRate,
} from './hmrc-filing';

/** HMRC's rule (CISR51050): verify before paying, unless paid in this tax year or the two before it. */
describe("HMRC's rule for who must be verified (issue 43)", () => {
  it('counts tax years from 6 April', () => {
    expect(getTaxYearOf('2026-04-05')).toBe(2025);
    expect(getTaxYearOf('2026-04-06')).toBe(2026);
    expect(getTaxYearOf('2027-04-05')).toBe(2026);
  });

  it('asks for a new subcontractor, and for one last paid before the tax year two before this one', () => {
    const today = '2026-11-28'; // tax year 2026-27: this year and the two before start on 6 April 2024
    expect(isVerificationNeeded(null, today)).toBe(true);
    expect(isVerificationNeeded('2024-04-06', today)).toBe(false);
    expect(isVerificationNeeded('2024-04-05', today)).toBe(true);
    expect(isVerificationNeeded('2026-11-27', today)).toBe(false);
    // On 6 April the window moves on a year: a payment on 6 April 2023 is in the tax year two before 2025-26 (the
    // day before), and three before 2026-27.
    expect(isVerificationNeeded('2023-04-06', '2026-04-05')).toBe(false);
    expect(isVerificationNeeded('2023-04-06', '2026-04-06')).toBe(true);
  });

  it('says why in words, before the next payment and for a month already paid', () => {
    expect(verificationReason(null, '2026-11-28')).toMatch(/^Not paid before: HMRC asks/);
    expect(verificationReason('2022-05-01', '2026-11-28')).toMatch(/^Not paid in this tax year or the two/);
    expect(verificationReason('2026-05-01', '2026-11-28')).toBeNull();
    expect(verificationReason(null, '2026-11-06', 'month')).toMatch(/^Not paid before this month/);
    expect(verificationReason('2022-05-01', '2026-11-06', 'month')).toMatch(
      /^Not paid in the tax year of this month or the two before it/,
    );
  });
});

describe('the verification number a 30 % line quotes (issue 43)', () => {
  const unmatched: VerifiedRate = {
    rate: 30,
    matched: false,
    verificationNumber: 'V1234567890A',
    verifiedAt: '2026-11-20T10:00:00.000Z',
  };

  it("is HMRC's answer to a verification from Ledgerlink, or the one typed when there is none", () => {
    expect(pickVerificationNumber(undefined, unmatched)).toBe('V1234567890A');
    expect(pickVerificationNumber({ verificationNumber: null }, unmatched)).toBe('V1234567890A');
    expect(pickVerificationNumber({ verificationNumber: 'V0000000001B' }, undefined)).toBe('V0000000001B');
    expect(pickVerificationNumber(undefined, undefined)).toBeNull();
  });

  it("is never a matched subcontractor's number: HMRC quotes one only for the higher rate", () => {
    const matched = { ...unmatched, rate: 20 as const, matched: true, verificationNumber: 'V1234567890' };
    expect(pickVerificationNumber(undefined, matched)).toBeNull();
    expect(pickVerificationNumber({ verificationNumber: 'V0000000001B' }, matched)).toBe('V0000000001B');
  });

  it('is the later of the two when both are kept', () => {
    const typed = (at: string) => ({ verificationNumber: 'V0000000001B', updatedAt: new Date(at) });
    expect(pickVerificationNumber(typed('2026-11-01T00:00:00Z'), unmatched)).toBe('V1234567890A');
    expect(pickVerificationNumber(typed('2026-11-21T00:00:00Z'), unmatched)).toBe('V0000000001B');
  });
});
