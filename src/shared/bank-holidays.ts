/**
 * Bank holidays in England and Wales, and the working days they leave (issue 42: the CIS deductions' payment
 * date moves back to the last working day before a weekend or a bank holiday).
 *
 * The rule, and where it comes from:
 * - Banking and Financial Dealings Act 1971, s.1 and Schedule 1 para 1: Easter Monday, the last Monday in May,
 *   the last Monday in August, 26 December if it is not a Sunday, and 27 December in a year in which 25 or 26
 *   December is a Sunday. New Year's Day (or the next weekday) and the first Monday in May are appointed every
 *   year by royal proclamation under s.1(3); Christmas Day and Good Friday are common-law holidays.
 * - GOV.UK's published list (gov.uk/bank-holidays) applies the same substitute rule to all three winter days: a
 *   holiday on a Saturday or Sunday moves to the next weekday that is not already a holiday (25 December 2021,
 *   a Saturday → Monday 27; 26 December, a Sunday → Tuesday 28).
 * - Easter Sunday is the Gregorian Easter (the Calendar Act 1750's tables), computed with the anonymous
 *   Gregorian algorithm (Meeus, Astronomical Algorithms, ch. 8): Good Friday is two days before, Easter Monday
 *   the day after.
 * - One-off days announced by proclamation (each checked against gov.uk/bank-holidays): the Golden Jubilee
 *   (2002: spring holiday moved to 4 June, 3 June added), the Royal Wedding (29 April 2011), the Diamond Jubilee
 *   (2012: spring holiday moved to 4 June, 5 June added), VE Day's 75th anniversary (2020: the early May holiday
 *   moved to Friday 8 May), the Platinum Jubilee (2022: spring holiday moved to Thursday 2 June, 3 June added),
 *   the State Funeral of Queen Elizabeth II (19 September 2022) and the Coronation of King Charles III (8 May
 *   2023). A day announced later is added to `ONE_OFF_CHANGES`.
 */
import { addDays, createIsoDate, getIsoWeekday } from './dates';

/** A year's one-off changes: regular days that moved (`from` → `to`) and days added. */
interface OneOffChange {
  moved?: Array<{ from: string; to: string }>;
  added?: string[];
}

const ONE_OFF_CHANGES: Readonly<Record<number, OneOffChange>> = {
  2002: { moved: [{ from: '2002-05-27', to: '2002-06-04' }], added: ['2002-06-03'] },
  2011: { added: ['2011-04-29'] },
  2012: { moved: [{ from: '2012-05-28', to: '2012-06-04' }], added: ['2012-06-05'] },
  2020: { moved: [{ from: '2020-05-04', to: '2020-05-08' }] },
  2022: { moved: [{ from: '2022-05-30', to: '2022-06-02' }], added: ['2022-06-03', '2022-09-19'] },
  2023: { added: ['2023-05-08'] },
};

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm). */
export function getEasterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return createIsoDate(year, month, day);
}

const isWeekend = (isoDate: string) => getIsoWeekday(isoDate) >= 6;

/** The first given weekday (1 Monday … 7 Sunday) of a month. */
function firstWeekday(year: number, month: number, weekday: number): string {
  const first = createIsoDate(year, month, 1);
  return addDays(first, (weekday - getIsoWeekday(first) + 7) % 7);
}

/** The last given weekday of a month. */
function lastWeekday(year: number, month: number, weekday: number): string {
  const last = createIsoDate(year, month + 1, 0);
  return addDays(last, -((getIsoWeekday(last) - weekday + 7) % 7));
}

const cache = new Map<number, readonly string[]>();

/** England and Wales's bank holidays of a year, in date order (ISO dates). */
export function getBankHolidays(year: number): readonly string[] {
  const known = cache.get(year);
  if (known) return known;
  const days = new Set<string>();
  // New Year's Day, Christmas Day and Boxing Day: on a weekend, the next weekday not already a holiday.
  const substituted = (date: string) => {
    let day = date;
    while (isWeekend(day) || days.has(day)) day = addDays(day, 1);
    days.add(day);
  };
  substituted(createIsoDate(year, 1, 1));
  const easter = getEasterSunday(year);
  days.add(addDays(easter, -2));
  days.add(addDays(easter, 1));
  let regular = [
    firstWeekday(year, 5, 1), // early May
    lastWeekday(year, 5, 1), // spring
    lastWeekday(year, 8, 1), // summer
  ];
  const change = ONE_OFF_CHANGES[year];
  for (const move of change?.moved ?? []) regular = regular.map((day) => (day === move.from ? move.to : day));
  for (const day of regular) days.add(day);
  for (const day of change?.added ?? []) days.add(day);
  substituted(createIsoDate(year, 12, 25));
  substituted(createIsoDate(year, 12, 26));
  const sorted = [...days].sort();
  cache.set(year, sorted);
  return sorted;
}

/** Whether a day is an England and Wales bank holiday. */
export function isBankHoliday(isoDate: string): boolean {
  return getBankHolidays(Number(isoDate.slice(0, 4))).includes(isoDate);
}

/** A working day: Monday to Friday and not a bank holiday in England and Wales. */
export function isWorkingDay(isoDate: string): boolean {
  return !isWeekend(isoDate) && !isBankHoliday(isoDate);
}

/** The day itself when it is a working day, else the last working day before it. */
export function getWorkingDayOnOrBefore(isoDate: string): string {
  let day = isoDate;
  while (!isWorkingDay(day)) day = addDays(day, -1);
  return day;
}
