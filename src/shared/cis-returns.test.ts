import { describe, expect, it } from 'vitest';
import { getIsoWeekday } from './dates';
import {
  addMonths,
  getBillCisFigures,
  getBillMonthFigures,
  type ReturnBill,
  cisReturnQuerySchema,
  cisSettingsRequestSchema,
  getLatePenaltyPence,
  getMonthSharePence,
  getPaidSharePence,
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

describe('part payments count in proportion', () => {
  it('counts the share paid of what the subcontractor is owed', () => {
    // A £1,000 bill with a £200 deduction: £800 payable; £400 paid is half of every figure.
    expect(getPaidSharePence(100_000, 40_000, 80_000)).toBe(50_000);
    expect(getPaidSharePence(20_000, 40_000, 80_000)).toBe(10_000);
    expect(getPaidSharePence(100_000, 0, 80_000)).toBe(0);
  });

  it('counts a bill once however much over its payable was paid', () => {
    expect(getPaidSharePence(100_000, 80_000, 80_000)).toBe(100_000);
    expect(getPaidSharePence(100_000, 100_000, 80_000)).toBe(100_000);
  });

  it('rounds half up to the penny and the months of a bill add up to the whole', () => {
    // £100.00 in three payments of a third: 33.33, 33.33, 33.34 of £100 payable.
    const parts = [
      getMonthSharePence(10_000, 0, 3_333, 10_000),
      getMonthSharePence(10_000, 3_333, 3_333, 10_000),
      getMonthSharePence(10_000, 6_666, 3_334, 10_000),
    ];
    expect(parts).toEqual([3_333, 3_333, 3_334]);
    // 1 penny of deduction over three payments never loses the penny.
    const pennies = [
      getMonthSharePence(1, 0, 1, 3),
      getMonthSharePence(1, 1, 1, 3),
      getMonthSharePence(1, 2, 1, 3),
    ];
    expect(pennies.reduce((a, b) => a + b, 0)).toBe(1);
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

describe('a bill on the return', () => {
  const month = getTaxMonth('2026-12');
  const ledgerlinkBill: ReturnBill = {
    contactId: 'c1',
    contactName: 'Hughes Groundworks Ltd',
    subTotalPence: 100_000,
    totalPence: 100_000,
    lineAmountTypes: 'NoTax',
    lines: [{ accountCode: '321', lineAmountPence: 100_000, taxAmountPence: 0 }],
    payments: [],
    xeroDeductionPence: null,
    xeroRate: null,
  };
  const noMaterials = () => false;

  it("takes Ledgerlink's 20 % of the total on its own bills, and none at gross payment status", () => {
    expect(getBillCisFigures(ledgerlinkBill, noMaterials, 20)).toEqual({
      grossPence: 100_000,
      materialsPence: 0,
      deductionPence: 20_000,
      payablePence: 80_000,
    });
    expect(getBillCisFigures(ledgerlinkBill, noMaterials, 0).deductionPence).toBe(0);
  });

  it("takes Xero's deduction as Xero holds it, and materials net of VAT from the materials accounts", () => {
    const xeroBill: ReturnBill = {
      ...ledgerlinkBill,
      subTotalPence: 75_000,
      totalPence: 78_000,
      lineAmountTypes: 'Exclusive',
      lines: [
        { accountCode: '327', lineAmountPence: 60_000, taxAmountPence: 0 },
        { accountCode: '328', lineAmountPence: 15_000, taxAmountPence: 3_000 },
      ],
      xeroDeductionPence: 18_000,
      xeroRate: 30,
    };
    expect(getBillCisFigures(xeroBill, (code) => code === '328', 30)).toEqual({
      grossPence: 75_000,
      materialsPence: 15_000,
      deductionPence: 18_000,
      payablePence: 60_000,
    });
  });

  it('counts only the payments dated in the tax month, in proportion', () => {
    const bill: ReturnBill = {
      ...ledgerlinkBill,
      payments: [
        { date: '2026-11-05', amountPence: 20_000 }, // the month before
        { date: '2026-11-06', amountPence: 20_000 }, // first day
        { date: '2026-12-05', amountPence: 20_000 }, // last day
        { date: '2026-12-06', amountPence: 20_000 }, // the month after
      ],
    };
    const figures = getBillCisFigures(bill, noMaterials, 20);
    expect(getBillMonthFigures(bill, figures, month)).toEqual({
      paidPence: 40_000,
      grossPence: 50_000,
      materialsPence: 0,
      deductionPence: 10_000,
    });
  });
});
