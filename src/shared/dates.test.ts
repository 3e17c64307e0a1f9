import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  documentDateSchema,
  DOCUMENT_DATE_RANGE_MESSAGE,
  isDocumentDate,
  addDays,
  compareIsoDates,
  convertXeroDate,
  convertXeroTimestamp,
  createIsoDate,
  formatDateLong,
  formatDateMedium,
  formatDateNumeric,
  formatDateShort,
  getCurrentMonthRange,
  getDaysBetween,
  getIsoWeekday,
  getMonthEnd,
  getMonthStart,
  getUkToday,
  getWeekEnd,
  getWeekStart,
  isIsoDate,
  isoDateSchema,
  parseDateNumeric,
  splitRangeByMonth,
  toUkIsoDate,
} from './dates';

const isoDateArb = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

describe('ISO dates', () => {
  it('validates real calendar dates only', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2025-02-29')).toBe(false);
    expect(isIsoDate('2025-13-01')).toBe(false);
    expect(isIsoDate('2025-4-6')).toBe(false);
    expect(isIsoDate('2025-04-06T00:00:00Z')).toBe(false);
    expect(isoDateSchema.safeParse('2025-04-06').success).toBe(true);
    expect(isoDateSchema.safeParse('06/04/2025').success).toBe(false);
  });

  it('adds days across month, year and DST changes', () => {
    expect(addDays('2025-01-31', 1)).toBe('2025-02-01');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-03-29', 1)).toBe('2025-03-30'); // clocks go forward 30 Mar 2025
    expect(addDays('2025-03-30', 1)).toBe('2025-03-31');
    expect(addDays('2025-10-26', 1)).toBe('2025-10-27'); // clocks go back 26 Oct 2025
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(getDaysBetween('2025-03-29', '2025-04-01')).toBe(3);
    expect(createIsoDate(2024, 3, 0)).toBe('2024-02-29');
  });

  it('finds Monday–Sunday weeks', () => {
    expect(getIsoWeekday('2025-11-03')).toBe(1); // Monday
    expect(getIsoWeekday('2025-11-09')).toBe(7); // Sunday
    expect(getWeekStart('2025-11-09')).toBe('2025-11-03');
    expect(getWeekEnd('2025-11-03')).toBe('2025-11-09');
    expect(getWeekStart('2026-01-01')).toBe('2025-12-29');
    expect(getWeekEnd('2025-12-29')).toBe('2026-01-04');
    expect(getWeekStart('2025-03-30')).toBe('2025-03-24'); // DST Sunday belongs to the week before
    expect(getWeekStart('2025-03-31')).toBe('2025-03-31');
  });

  it('keeps every date inside its week', () => {
    fc.assert(
      fc.property(isoDateArb, (date) => {
        const start = getWeekStart(date);
        expect(getIsoWeekday(start)).toBe(1);
        expect(getDaysBetween(start, date)).toBeGreaterThanOrEqual(0);
        expect(getDaysBetween(start, date)).toBeLessThan(7);
        expect(getDaysBetween(start, getWeekEnd(date))).toBe(6);
      }),
    );
  });

  it('finds month bounds including leap years', () => {
    expect(getMonthStart('2024-02-15')).toBe('2024-02-01');
    expect(getMonthEnd('2024-02-15')).toBe('2024-02-29');
    expect(getMonthEnd('2025-02-15')).toBe('2025-02-28');
    expect(getMonthEnd('2025-12-02')).toBe('2025-12-31');
  });

  it('splits ranges at month ends', () => {
    expect(splitRangeByMonth('2025-10-27', '2025-11-02')).toEqual([
      { start: '2025-10-27', end: '2025-10-31' },
      { start: '2025-11-01', end: '2025-11-02' },
    ]);
    expect(splitRangeByMonth('2025-12-29', '2026-01-04')).toEqual([
      { start: '2025-12-29', end: '2025-12-31' },
      { start: '2026-01-01', end: '2026-01-04' },
    ]);
    expect(splitRangeByMonth('2025-11-03', '2025-11-09')).toEqual([
      { start: '2025-11-03', end: '2025-11-09' },
    ]);
    expect(splitRangeByMonth('2025-11-30', '2025-12-01')).toHaveLength(2);
    expect(() => splitRangeByMonth('2025-11-09', '2025-11-03')).toThrow(RangeError);
  });

  it('sorts ISO dates', () => {
    expect(['2025-02-01', '2024-12-31', '2025-01-15'].sort(compareIsoDates)).toEqual([
      '2024-12-31',
      '2025-01-15',
      '2025-02-01',
    ]);
  });
});

describe('document dates (issue 28)', () => {
  it('takes 1 Jan 1900 to 31 Dec 2099 and nothing outside it', () => {
    for (const ok of ['1900-01-01', '2026-11-27', '2099-12-31']) expect(isDocumentDate(ok), ok).toBe(true);
    for (const bad of ['1899-12-31', '2100-01-01', '9999-12-31', '1000-01-01', '2026-02-30', '2026-1-1'])
      expect(isDocumentDate(bad), bad).toBe(false);
  });

  it('says which rule a date breaks: its form, or the range', () => {
    const schema = documentDateSchema('Please enter a date for the invoice');
    expect(schema.safeParse('2099-12-31').success).toBe(true);
    expect(schema.safeParse('9999-12-31').error?.issues.map((i) => i.message)).toEqual([
      DOCUMENT_DATE_RANGE_MESSAGE,
    ]);
    for (const bad of ['', 'tomorrow', '2026-02-30', 'x'.repeat(100_000), 20261127])
      expect(schema.safeParse(bad).error?.issues[0]?.message, String(bad).slice(0, 20)).toBe(
        'Please enter a date for the invoice',
      );
  });
});

describe('UK time', () => {
  it('gives the UK date of an instant in GMT and BST', () => {
    expect(toUkIsoDate(new Date('2025-07-01T23:30:00Z'))).toBe('2025-07-02'); // BST: 00:30 next day
    expect(toUkIsoDate(new Date('2025-01-01T23:30:00Z'))).toBe('2025-01-01'); // GMT
    expect(toUkIsoDate(new Date('2025-03-30T00:59:59Z'))).toBe('2025-03-30');
    expect(toUkIsoDate(new Date('2025-10-25T23:00:00Z'))).toBe('2025-10-26'); // still BST: 00:00
    expect(getUkToday(new Date('2025-06-30T23:15:00Z'))).toBe('2025-07-01');
    expect(() => toUkIsoDate(new Date(NaN))).toThrow(RangeError);
  });

  it("gives Intl's UK date for every instant, minute by minute across both clock changes, whatever was asked before", () => {
    const reference = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' });
    // Two years in steps of 37 minutes (every minute of an hour, in turn), then each minute of both 2025 changes
    // (a day either side, so the midnights near them too) asked in both directions.
    const instants: number[] = [];
    for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2026, 0, 1); ms += 37 * 60_000) instants.push(ms);
    for (const change of [Date.UTC(2025, 2, 30, 1), Date.UTC(2025, 9, 26, 1)]) {
      const minutes = Array.from({ length: 3120 }, (_, i) => change + (i - 1560) * 60_000);
      instants.push(...minutes, ...minutes.reverse());
    }
    const wrong = instants.filter((ms) => toUkIsoDate(ms) !== reference.format(new Date(ms)));
    expect(wrong.map((ms) => new Date(ms).toISOString())).toEqual([]);
  });

  it('defaults the sales range to the current UK month', () => {
    expect(getCurrentMonthRange(new Date('2025-06-30T23:15:00Z'))).toEqual({
      fromDate: '2025-07-01',
      toDate: '2025-07-31',
    });
    expect(getCurrentMonthRange(new Date('2024-02-10T12:00:00Z'))).toEqual({
      fromDate: '2024-02-01',
      toDate: '2024-02-29',
    });
  });
});

describe('Xero dates', () => {
  it('reads calendar dates (midnight UTC) as that day, in winter and summer', () => {
    expect(convertXeroDate('/Date(1539993600000+0000)/')).toBe('2018-10-20');
    expect(convertXeroDate('/Date(1735689600000+0000)/')).toBe('2025-01-01');
    expect(convertXeroDate('/Date(1751328000000)/')).toBe('2025-07-01');
  });

  it('reads timestamps as the UK day', () => {
    // 2025-07-01T23:30:00Z is 00:30 on 2 July in London.
    expect(convertXeroDate(`/Date(${Date.parse('2025-07-01T23:30:00Z')}+0000)/`)).toBe('2025-07-02');
    expect(convertXeroDate(`/Date(${Date.parse('2025-01-01T23:30:00Z')}+0000)/`)).toBe('2025-01-01');
  });

  it('applies a non-zero offset', () => {
    // Midnight 20 Oct 2018 in +13:00 is 11:00 UTC on 19 Oct.
    expect(convertXeroDate(`/Date(${Date.parse('2018-10-19T11:00:00Z')}+1300)/`)).toBe('2018-10-20');
    expect(convertXeroDate(`/Date(${Date.parse('2018-10-20T05:00:00Z')}-0500)/`)).toBe('2018-10-20');
  });

  it('returns null for anything else', () => {
    for (const bad of [null, undefined, '', '2025-01-01', '/Date(abc)/', '/Date(1+00)/']) {
      expect(convertXeroDate(bad)).toBeNull();
    }
    expect(convertXeroDate('/Date(-86400000+0000)/')).toBe('1969-12-31');
  });

  it('converts timestamps to ISO instants', () => {
    expect(convertXeroTimestamp('/Date(1552327126164)/')).toBe('2019-03-11T17:58:46.164Z');
    expect(convertXeroTimestamp('/Date(1552327126164+1300)/')).toBe('2019-03-11T17:58:46.164Z');
    expect(convertXeroTimestamp('nope')).toBeNull();
  });
});

describe('display formats', () => {
  it('formats as the spec lists', () => {
    expect(formatDateNumeric('2025-04-06')).toBe('06/04/2025');
    expect(formatDateMedium('2025-04-06')).toBe('06 Apr 2025');
    expect(formatDateShort('2025-04-06')).toBe('6 Apr 2025');
    expect(formatDateLong('2025-04-06')).toBe('April 6th, 2025');
    expect(formatDateLong('2025-04-01')).toBe('April 1st, 2025');
    expect(formatDateLong('2025-04-22')).toBe('April 22nd, 2025');
    expect(formatDateLong('2025-04-13')).toBe('April 13th, 2025');
    expect(formatDateLong('2025-04-23')).toBe('April 23rd, 2025');
    expect(() => formatDateShort('2025-02-30')).toThrow(RangeError);
  });

  it('parses dd/mm/yyyy', () => {
    expect(parseDateNumeric('06/04/2025')).toBe('2025-04-06');
    expect(parseDateNumeric('6/4/2025')).toBe('2025-04-06');
    expect(parseDateNumeric('31/02/2025')).toBeNull();
    expect(parseDateNumeric('2025-04-06')).toBeNull();
  });

  it('round-trips the numeric format', () => {
    fc.assert(
      fc.property(isoDateArb, (date) => {
        expect(parseDateNumeric(formatDateNumeric(date))).toBe(date);
      }),
    );
  });
});
