import { describe, expect, it } from 'vitest';
import { getIsoWeekday } from './dates';
import {
  addMonths,
  cisReturnQuerySchema,
  cisSettingsRequestSchema,
  getLatePenaltyPence,
  getPenaltySchedule,
  getPeriodOf,
  getTaxMonth,
  hasPeriodBegun,
  hasPeriodEnded,
  isNilReturnRequired,
  isUtr,
  isVerificationNumber,
  listRecentPeriods,
  parsePeriod,
  subcontractorRefsRequestSchema,
  describeMissingForFiling,
  diffReturnLines,
  filedUnderMessage,
  getDeductionsPaymentDueDate,
  getFilingChecks,
  getMonthPenalties,
  mayChangeFiledUnder,
  shiftPeriod,
  UTR_MESSAGE,
  VERIFICATION_NUMBER_MESSAGE,
} from './cis-returns';

describe('tax months', () => {
  it('names a tax month by the month it ends in: 2026-12 is 6 November to 5 December 2026', () => {
    expect(getTaxMonth('2026-12')).toEqual({
      period: '2026-12',
      start: '2026-11-06',
      end: '2026-12-05',
      dueDate: '2026-12-19',
      paymentDueDate: '2026-12-22',
      statementDueDate: '2026-12-19',
    });
  });

  it('crosses the year: 2027-01 runs from 6 December 2026 to 5 January 2027', () => {
    expect(getTaxMonth('2027-01')).toMatchObject({ start: '2026-12-06', end: '2027-01-05' });
  });

  it('puts the 5th in the month ending that day and the 6th in the next one', () => {
    expect(getPeriodOf('2026-12-05')).toBe('2026-12');
    expect(getPeriodOf('2026-12-06')).toBe('2027-01');
    expect(getPeriodOf('2026-12-31')).toBe('2027-01');
    expect(getPeriodOf('2027-01-01')).toBe('2027-01');
    expect(getPeriodOf('2026-04-05')).toBe('2026-04');
    expect(getPeriodOf('2026-04-06')).toBe('2026-05');
  });

  it('counts 29 February in the tax month ending on 5 March of a leap year', () => {
    expect(getPeriodOf('2028-02-29')).toBe('2028-03');
    const month = getTaxMonth('2028-03');
    expect(month.start).toBe('2028-02-06');
    expect(month.end).toBe('2028-03-05');
  });

  it('keeps the return due on the 19th even when the 19th is a weekend', () => {
    // 19 December 2026 is a Saturday, 19 July 2026 a Sunday: HMRC does not move the date.
    expect(getIsoWeekday('2026-12-19')).toBe(6);
    expect(getTaxMonth('2026-12').dueDate).toBe('2026-12-19');
    expect(getIsoWeekday('2026-07-19')).toBe(7);
    expect(getTaxMonth('2026-07').dueDate).toBe('2026-07-19');
  });

  it('lists the current tax month and the eleven before it, newest first', () => {
    const periods = listRecentPeriods('2026-11-27');
    expect(periods).toHaveLength(12);
    expect(periods[0]).toBe('2026-12');
    expect(periods[11]).toBe('2026-01');
  });

  it('knows whether a month has begun or ended', () => {
    expect(hasPeriodBegun('2026-12', '2026-11-05')).toBe(false);
    expect(hasPeriodBegun('2026-12', '2026-11-06')).toBe(true);
    expect(hasPeriodEnded('2026-12', '2026-12-05')).toBe(false);
    expect(hasPeriodEnded('2026-12', '2026-12-06')).toBe(true);
  });

  it('refuses what is not a month', () => {
    for (const bad of ['2026-13', '2026-00', '2026-1', '26-12', '2026/12', '', '2026-12-01'])
      expect(parsePeriod(bad)).toBeNull();
    expect(cisReturnQuerySchema.safeParse({ period: '2026-13' }).success).toBe(false);
    expect(cisReturnQuerySchema.safeParse({ period: '2026-12' }).success).toBe(true);
  });

  it('requires nil returns for tax months from 6 April 2026', () => {
    expect(isNilReturnRequired('2026-04')).toBe(false);
    expect(isNilReturnRequired('2026-05')).toBe(true);
  });

  it('adds calendar months keeping the day', () => {
    expect(addMonths('2026-12-19', 2)).toBe('2027-02-19');
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2028-01-31', 1)).toBe('2028-02-29');
  });
});

describe('late-return penalties (CH62380)', () => {
  const due = '2026-12-19';

  it('is nothing on the due date and £100 the day after', () => {
    expect(getLatePenaltyPence(due, '2026-12-19', 50_000)).toBe(0);
    expect(getLatePenaltyPence(due, '2026-12-20', 50_000)).toBe(10_000);
  });

  it('adds £200 once two months late', () => {
    expect(getLatePenaltyPence(due, '2027-02-19', 50_000)).toBe(10_000);
    expect(getLatePenaltyPence(due, '2027-02-20', 50_000)).toBe(30_000);
  });

  it('adds £300 or 5 % of the deductions, whichever is more, at 6 and again at 12 months', () => {
    expect(getLatePenaltyPence(due, '2027-06-20', 50_000)).toBe(60_000);
    expect(getLatePenaltyPence(due, '2027-12-20', 50_000)).toBe(90_000);
    // 5 % of £10,000 of deductions is £500, more than £300.
    expect(getLatePenaltyPence(due, '2027-06-20', 1_000_000)).toBe(80_000);
    expect(getLatePenaltyPence(due, '2027-12-20', 1_000_000)).toBe(130_000);
  });

  it('lists the steps with the day each applies from', () => {
    expect(getPenaltySchedule(due, 0).map((s) => s.from)).toEqual([
      '2026-12-20',
      '2027-02-20',
      '2027-06-20',
      '2027-12-20',
    ]);
  });
});

describe('reference formats', () => {
  it('takes a UTR of 10 digits, spaces allowed', () => {
    expect(isUtr('1234567890')).toBe(true);
    expect(isUtr('12345 67890')).toBe(true);
    expect(isUtr('123456789')).toBe(false);
    expect(isUtr('12345678901')).toBe(false);
    expect(isUtr('12345678A0')).toBe(false);
  });

  it('takes a verification number of V, 10 digits and up to two letters', () => {
    expect(isVerificationNumber('V1234567890')).toBe(true);
    expect(isVerificationNumber('V1234567890A')).toBe(true);
    expect(isVerificationNumber('v1234567890ab')).toBe(true);
    expect(isVerificationNumber('V1234567890ABC')).toBe(false);
    expect(isVerificationNumber('1234567890A')).toBe(false);
    expect(isVerificationNumber('V123456789A')).toBe(false);
  });

  it('answers in the spec style and keeps references normalised', () => {
    const bad = subcontractorRefsRequestSchema.safeParse({ utr: '123', verificationNumber: 'X1' });
    expect(bad.success).toBe(false);
    const messages = bad.error?.issues.map((i) => i.message);
    expect(messages).toEqual([UTR_MESSAGE, VERIFICATION_NUMBER_MESSAGE]);
    const good = subcontractorRefsRequestSchema.parse({
      utr: '12345 67890',
      verificationNumber: 'v1234567890ab',
    });
    expect(good).toEqual({ utr: '1234567890', verificationNumber: 'V1234567890AB' });
    expect(subcontractorRefsRequestSchema.parse({ utr: '', verificationNumber: null })).toEqual({
      utr: null,
      verificationNumber: null,
    });
  });

  it('checks the contractor settings', () => {
    const ok = cisSettingsRequestSchema.parse({
      contractorName: '  ',
      utr: '1234567890',
      employerReference: '123/ab45678',
      accountsOfficeReference: '123pa00012345',
      materialsAccountCodes: ['311'],
    });
    expect(ok).toMatchObject({
      contractorName: null,
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
    });
    expect(
      cisSettingsRequestSchema.safeParse({
        contractorName: null,
        utr: null,
        employerReference: 'AB45678',
        accountsOfficeReference: null,
        materialsAccountCodes: [],
      }).success,
    ).toBe(false);
  });
});

describe('penalties for each month (CH62340–CH62600)', () => {
  const month = (period: string, filedOn: string | null, deductionPence = 50_000) => ({
    period,
    dueDate: getTaxMonth(period).dueDate,
    deductionPence,
    filedOn,
    needsReturn: true,
  });

  it('keeps the penalty of a return filed late, as it stood on the day it was filed', () => {
    // Due 19 December 2026, filed 3 March 2027: £100, and £200 more from 20 February.
    const penalties = getMonthPenalties(
      [month('2026-11', '2026-11-15'), month('2026-12', '2027-03-03')],
      '2027-09-01',
    );
    expect(penalties.get('2026-12')).toEqual({ pence: 30_000, late: true, next: null, newContractor: false });
    expect(penalties.get('2026-11')).toMatchObject({ pence: 0, late: false });
  });

  it('keeps growing an unfiled month by HMRC’s steps, 13 months on and after', () => {
    const penalties = getMonthPenalties(
      [month('2025-10', '2025-10-10'), month('2025-11', null, 1_000_000)],
      '2026-12-20',
    );
    // 5 % of £10,000 is £500, more than £300, at 6 and at 12 months: £100 + £200 + £500 + £500.
    expect(penalties.get('2025-11')).toEqual({
      pence: 130_000,
      late: false,
      next: null,
      newContractor: false,
    });
  });

  it('says what the next step adds and when', () => {
    const penalties = getMonthPenalties(
      [month('2026-10', '2026-10-01'), month('2026-11', null)],
      '2026-12-01',
    );
    expect(penalties.get('2026-11')).toMatchObject({
      pence: 10_000,
      next: { from: '2027-01-20', pence: 20_000 },
    });
  });

  it('caps a new contractor’s fixed penalties at £3,000 and drops the £300 minimum (CH62600’s example)', () => {
    // Value Construction Ltd: returns due from 19 January 2014 on, none filed until 2015, deductions £3,000 then
    // £1,000 then £0 a month. The 6 month penalties are 5 % with no minimum: £150, £50, £0.
    const periods = ['2014-01', '2014-02', '2014-03', '2014-04', '2014-05', '2014-06', '2014-07', '2014-08'];
    const deductions = [300_000, 100_000, 0, 0, 0, 0, 0, 0];
    const months = periods.map((p, i) => month(p, null, deductions[i]));
    const penalties = getMonthPenalties(months, '2015-01-06');
    expect(penalties.get('2014-01')).toMatchObject({ pence: 10_000 + 20_000 + 15_000, newContractor: true });
    expect(penalties.get('2014-02')).toMatchObject({ pence: 10_000 + 20_000 + 5_000 });
    expect(penalties.get('2014-03')).toMatchObject({ pence: 30_000 });
    // Eight months of £300 would be £2,400: under the cap. Sixteen would not.
    const many = Array.from({ length: 16 }, (_, i) => month(shiftPeriod('2015-04', -i), null, 0));
    const capped = getMonthPenalties(many, '2016-09-30');
    const fixed = [...capped.values()].reduce((sum, p) => sum + p.pence, 0);
    expect(fixed).toBe(300_000);
  });

  it('stops treating the contractor as new once a return was made, for returns due after it', () => {
    const penalties = getMonthPenalties(
      [month('2026-06', '2026-08-01'), month('2026-07', '2026-08-01'), month('2026-08', null)],
      '2026-12-01',
    );
    // The first return filed (1 August) and the one due before it fall under the new-contractor rules.
    expect(penalties.get('2026-06')?.newContractor).toBe(true);
    expect(penalties.get('2026-07')?.newContractor).toBe(true);
    expect(penalties.get('2026-08')?.newContractor).toBe(false);
    // A contractor who filed before Ledgerlink says so: the rules do not apply.
    const known = getMonthPenalties([month('2026-08', null)], '2026-12-01', '2020-05-19');
    expect(known.get('2026-08')?.newContractor).toBe(false);
  });

  it('charges nothing for a month that needs no return', () => {
    const penalties = getMonthPenalties(
      [{ ...month('2026-08', null), needsReturn: false }, month('2026-07', '2026-07-10')],
      '2027-12-01',
    );
    expect(penalties.get('2026-08')).toEqual({ pence: 0, late: false, next: null, newContractor: false });
  });
});

describe('the deductions’ payment date', () => {
  it('moves back from a weekend or a bank holiday to the last working day before', () => {
    // The 22nd of November 2026 is a Sunday.
    expect(getDeductionsPaymentDueDate('2026-11')).toEqual({ due: '2026-11-20', nominal: '2026-11-22' });
    // 22 December 2026 is a Tuesday: it stays.
    expect(getDeductionsPaymentDueDate('2026-12')).toEqual({ due: '2026-12-22', nominal: '2026-12-22' });
    // 22 April 2011 was Good Friday.
    expect(getDeductionsPaymentDueDate('2011-04').due).toBe('2011-04-21');
  });
});

describe('checked before filing', () => {
  const contractor = { utr: null, employerReference: '123/AB45678', accountsOfficeReference: null };
  const lines = [
    { contactId: 'a', name: 'Hughes Groundworks Ltd', utr: '1111111111', verificationNumber: null, rate: 20 },
    { contactId: 'b', name: 'R. Singh Tiling', utr: null, verificationNumber: null, rate: 30 },
    { contactId: 'c', name: 'Northside Electrical', utr: null, verificationNumber: null, rate: 0 },
  ];

  it('names each missing thing, a verification number only at 30 %', () => {
    const checks = getFilingChecks(contractor, lines);
    expect(checks.filter((c) => !c.ok).map((c) => c.label)).toEqual([
      'Your UTR (the contractor’s)',
      'Your accounts office reference',
      'UTR of R. Singh Tiling',
      'Verification number of R. Singh Tiling (deducted at 30 %)',
      'UTR of Northside Electrical',
    ]);
    expect(describeMissingForFiling(checks)).toBe(
      'This return cannot be filed yet. Missing: Your UTR (the contractor’s); Your accounts office reference; UTR of R. Singh Tiling; Verification number of R. Singh Tiling (deducted at 30 %); UTR of Northside Electrical.',
    );
  });

  it('needs only the contractor’s references for a nil return', () => {
    const checks = getFilingChecks(
      { utr: '1234567890', employerReference: '123/AB45678', accountsOfficeReference: '123PA00012345' },
      [],
    );
    expect(checks.every((c) => c.ok)).toBe(true);
  });
});

describe('who may change what a return is filed under', () => {
  it('lets any member fill in a reference, and only an administrator change one that is set', () => {
    expect(mayChangeFiledUnder(null, '1234567890', false)).toBe(true);
    expect(mayChangeFiledUnder('1234567890', '1234567890', false)).toBe(true);
    expect(mayChangeFiledUnder('1234567890', '0987654321', false)).toBe(false);
    expect(mayChangeFiledUnder('1234567890', null, false)).toBe(false);
    expect(mayChangeFiledUnder('1234567890', null, true)).toBe(true);
    expect(filedUnderMessage(['utr', 'employerReference'])).toBe(
      'Only an administrator can change your UTR and your employer reference once set: returns are filed under them. Ask an administrator.',
    );
  });
});

describe('a filed return against the live one', () => {
  const line = (contactId: string, gross: number, deduction: number) => ({
    contactId,
    name: contactId.toUpperCase(),
    utr: null,
    verificationNumber: null,
    rate: 20,
    grossAmount: gross,
    materialsAmount: 0,
    deductionAmount: deduction,
    flags: [],
  });

  it('names what was added, removed or changed', () => {
    expect(diffReturnLines([line('a', 1000, 200)], [line('a', 1000, 200)])).toEqual([]);
    expect(
      diffReturnLines([line('a', 1000, 200), line('b', 50, 10)], [line('a', 2000, 400), line('c', 10, 2)]),
    ).toEqual([
      {
        contactId: 'a',
        name: 'A',
        kind: 'changed',
        filed: { grossAmount: 1000, materialsAmount: 0, deductionAmount: 200 },
        now: { grossAmount: 2000, materialsAmount: 0, deductionAmount: 400 },
      },
      {
        contactId: 'b',
        name: 'B',
        kind: 'removed',
        filed: { grossAmount: 50, materialsAmount: 0, deductionAmount: 10 },
        now: null,
      },
      {
        contactId: 'c',
        name: 'C',
        kind: 'added',
        filed: null,
        now: { grossAmount: 10, materialsAmount: 0, deductionAmount: 2 },
      },
    ]);
  });
});
