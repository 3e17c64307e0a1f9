import { describe, expect, it } from 'vitest';
import {
  getBankHolidays,
  getEasterSunday,
  getWorkingDayOnOrBefore,
  isBankHoliday,
  isWorkingDay,
} from './bank-holidays';

// The expected lists are GOV.UK's (gov.uk/bank-holidays, "England and Wales") for the years it published.
describe('England and Wales bank holidays', () => {
  it('finds Easter by the Gregorian rule', () => {
    expect(
      [2000, 2011, 2019, 2022, 2024, 2025, 2026, 2027, 2038].map((y) => [y, getEasterSunday(y)]),
    ).toEqual([
      [2000, '2000-04-23'],
      [2011, '2011-04-24'],
      [2019, '2019-04-21'],
      [2022, '2022-04-17'],
      [2024, '2024-03-31'],
      [2025, '2025-04-20'],
      [2026, '2026-04-05'],
      [2027, '2027-03-28'],
      [2038, '2038-04-25'],
    ]);
  });

  it('lists each year as GOV.UK does, with the substitute days', () => {
    expect(getBankHolidays(2024)).toEqual([
      '2024-01-01',
      '2024-03-29',
      '2024-04-01',
      '2024-05-06',
      '2024-05-27',
      '2024-08-26',
      '2024-12-25',
      '2024-12-26',
    ]);
    expect(getBankHolidays(2025)).toEqual([
      '2025-01-01',
      '2025-04-18',
      '2025-04-21',
      '2025-05-05',
      '2025-05-26',
      '2025-08-25',
      '2025-12-25',
      '2025-12-26',
    ]);
    // Boxing Day 2026 is a Saturday: Monday 28 December instead.
    expect(getBankHolidays(2026)).toEqual([
      '2026-01-01',
      '2026-04-03',
      '2026-04-06',
      '2026-05-04',
      '2026-05-25',
      '2026-08-31',
      '2026-12-25',
      '2026-12-28',
    ]);
    // Christmas on a Saturday, Boxing Day on a Sunday: Monday 27 and Tuesday 28.
    expect(getBankHolidays(2027)).toEqual([
      '2027-01-01',
      '2027-03-26',
      '2027-03-29',
      '2027-05-03',
      '2027-05-31',
      '2027-08-30',
      '2027-12-27',
      '2027-12-28',
    ]);
    // New Year's Day on a Saturday: Monday 3 January. Christmas on a Sunday: Tuesday 27 December.
    expect(getBankHolidays(2022)).toEqual([
      '2022-01-03',
      '2022-04-15',
      '2022-04-18',
      '2022-05-02',
      '2022-06-02',
      '2022-06-03',
      '2022-08-29',
      '2022-09-19',
      '2022-12-26',
      '2022-12-27',
    ]);
  });

  it('knows the one-off days the Crown announced', () => {
    for (const day of ['2011-04-29', '2012-06-05', '2020-05-08', '2022-09-19', '2023-05-08'])
      expect(isBankHoliday(day), day).toBe(true);
    // The regular days they replaced are ordinary working days.
    for (const day of ['2012-05-28', '2020-05-04', '2022-05-30']) expect(isWorkingDay(day), day).toBe(true);
    expect(getBankHolidays(2023)).toContain('2023-05-01');
  });

  it('moves a day back to the last working day before a weekend or a bank holiday', () => {
    // 22 November 2026 is a Sunday: Friday 20.
    expect(getWorkingDayOnOrBefore('2026-11-22')).toBe('2026-11-20');
    // 22 April 2011 was Good Friday: Thursday 21.
    expect(getWorkingDayOnOrBefore('2011-04-22')).toBe('2011-04-21');
    // 22 December 2019 was a Sunday: Friday 20.
    expect(getWorkingDayOnOrBefore('2019-12-22')).toBe('2019-12-20');
    // 29 December 2026 (Tuesday) after Christmas Friday and Boxing Day moved to Monday 28: itself.
    expect(getWorkingDayOnOrBefore('2026-12-29')).toBe('2026-12-29');
    // Monday 28 December 2026 (Boxing Day's substitute): back over the weekend and Christmas to Thursday 24.
    expect(getWorkingDayOnOrBefore('2026-12-28')).toBe('2026-12-24');
    // A working day stays.
    expect(getWorkingDayOnOrBefore('2026-12-22')).toBe('2026-12-22');
  });
});
