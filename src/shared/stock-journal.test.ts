import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, getIsoWeekday } from './dates';
import { fromPence, sumPence, toPence } from './money';
import {
  type SalesLineInput,
  type StockJournalEntry,
  buildJournalCreateRequest,
  canPostJournal,
  filterPeriodsByJournalStatus,
  getDefaultJournalDate,
  getJournalAmount,
  getJournalAmountPence,
  getJournalState,
  getJournalXeroUrl,
  getStockJournalKey,
  getJournalPeriodLabel,
  getStockJournalReference,
  groupSalesByWeek,
  indexStockJournalEntries,
  isJournalPeriod,
  isSplitPeriod,
  journalCreateRequestSchema,
  parseStockJournalReference,
  getWeeklySalesRange,
  salesPeriodLenientSchema,
  salesPeriodSchema,
  salesQuerySchema,
  salesResponseLenientSchema,
  salesResponseSchema,
  sortInvoiceLines,
  splitSalesPeriod,
  validateJournalConfirmation,
  validateJournalPosting,
} from './stock-journal';

function line(
  date: string,
  gross: number,
  vat: number,
  net: number,
  extra: Partial<SalesLineInput> = {},
): SalesLineInput {
  return {
    customerName: 'Shop',
    invoiceNumber: `INV-${date}`,
    date,
    grossAmount: gross,
    vatAmount: vat,
    netAmount: net,
    ...extra,
  };
}

describe('weekly grouping (001 §2, §3)', () => {
  it('groups Monday–Sunday, sorted, with day totals', () => {
    const periods = groupSalesByWeek([
      line('2025-11-12', 12, 2, 10),
      line('2025-11-03', 1.2, 0.2, 1),
      line('2025-11-09', 0.1, 0, 0.1),
      line('2025-11-09', 0.2, 0, 0.2),
    ]);
    expect(periods.map((p) => [p.weekStart, p.weekEnd])).toEqual([
      ['2025-11-03', '2025-11-09'],
      ['2025-11-10', '2025-11-16'],
    ]);
    const first = periods[0]!;
    expect(first.formattedRange).toBe('3 Nov 2025 - 9 Nov 2025');
    expect(first.days.map((d) => d.date)).toEqual(['2025-11-03', '2025-11-09']);
    expect(first.days[1]).toMatchObject({ grossTotal: 0.3, netTotal: 0.3, invoiceCount: 2 }); // not 0.30000000000000004
    expect(first).toMatchObject({ grossTotal: 1.5, vatTotal: 0.2, netTotal: 1.3, invoiceCount: 3 });
    expect(first.days[0]!.invoices[0]!.formattedDate).toBe('03 Nov 2025');
  });

  it('groups across a year end and a DST change', () => {
    const periods = groupSalesByWeek([
      line('2025-12-31', 1, 0, 1),
      line('2026-01-04', 1, 0, 1), // Sunday: same week as 31 Dec
      line('2026-01-05', 1, 0, 1), // Monday: next week
      line('2025-03-30', 1, 0, 1), // clocks go forward (Sunday)
      line('2025-03-31', 1, 0, 1),
      line('2025-10-26', 1, 0, 1), // clocks go back (Sunday)
      line('2025-10-27', 1, 0, 1),
    ]);
    expect(periods.map((p) => `${p.weekStart}..${p.weekEnd}:${p.invoiceCount}`)).toEqual([
      '2025-03-24..2025-03-30:1',
      '2025-03-31..2025-04-06:1',
      '2025-10-20..2025-10-26:1',
      '2025-10-27..2025-11-02:1',
      '2025-12-29..2026-01-04:2',
      '2026-01-05..2026-01-11:1',
    ]);
  });

  it('keeps only the line DTO fields', () => {
    const row = { ...line('2025-11-05', 1, 0, 1), organisationId: 7, secret: 'x' };
    const invoice = groupSalesByWeek([row])[0]!.days[0]!.invoices[0]!;
    expect(Object.keys(invoice).sort()).toEqual([
      'customerName',
      'date',
      'formattedDate',
      'grossAmount',
      'invoiceNumber',
      'netAmount',
      'vatAmount',
    ]);
  });

  it('returns no periods for no lines', () => {
    expect(groupSalesByWeek([])).toEqual([]);
  });

  it('preserves the sum and puts each line in its own week', () => {
    const lineArb = fc.record({
      date: fc
        .date({
          min: new Date('2024-01-01T00:00:00Z'),
          max: new Date('2026-12-31T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString().slice(0, 10)),
      net: fc.integer({ min: -100000, max: 10000000 }),
      vat: fc.integer({ min: 0, max: 2000000 }),
    });
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 60 }), (raw) => {
        const lines = raw.map((r) =>
          line(r.date, fromPence(r.net + r.vat), fromPence(r.vat), fromPence(r.net)),
        );
        const periods = groupSalesByWeek(lines);
        expect(sumPence(periods.map((p) => toPence(p.netTotal)))).toBe(sumPence(raw.map((r) => r.net)));
        expect(sumPence(periods.map((p) => toPence(p.grossTotal)))).toBe(
          sumPence(raw.map((r) => r.net + r.vat)),
        );
        expect(periods.reduce((n, p) => n + p.invoiceCount, 0)).toBe(lines.length);
        for (const p of periods) {
          expect(getIsoWeekday(p.weekStart)).toBe(1);
          expect(getIsoWeekday(p.weekEnd)).toBe(7);
          for (const d of p.days) expect(d.date >= p.weekStart && d.date <= p.weekEnd).toBe(true);
          // Splitting a week keeps its sum too.
          const parts = splitSalesPeriod(p);
          expect(sumPence(parts.map((s) => toPence(s.netTotal)))).toBe(toPence(p.netTotal));
          expect(parts.reduce((n, s) => n + s.invoiceCount, 0)).toBe(p.invoiceCount);
        }
        for (let i = 1; i < periods.length; i++)
          expect(periods[i - 1]!.weekStart < periods[i]!.weekStart).toBe(true);
      }),
    );
  });
});

describe('split periods (001 §2)', () => {
  it('splits a week spanning two months at the month end', () => {
    const [period] = groupSalesByWeek([
      line('2025-10-28', 12, 2, 10),
      line('2025-11-01', 24, 4, 20),
      line('2025-11-02', 6, 1, 5),
    ]);
    expect(isSplitPeriod(period!)).toBe(true);
    const parts = splitSalesPeriod(period!);
    expect(
      parts.map((p) => [p.periodStart, p.periodEnd, p.key, p.netTotal, p.invoiceCount, p.isSubPeriod]),
    ).toEqual([
      ['2025-10-27', '2025-10-31', '2025-10-27_2025-10-31', 10, 1, true],
      ['2025-11-01', '2025-11-02', '2025-11-01_2025-11-02', 25, 2, true],
    ]);
    expect(parts[0]!.formattedRange).toBe('27 Oct 2025 - 31 Oct 2025');
  });

  it('splits across the year end, with an empty half', () => {
    const [period] = groupSalesByWeek([line('2026-01-02', 1, 0, 1)]);
    const parts = splitSalesPeriod(period!);
    expect(parts.map((p) => [p.key, p.netTotal, p.days.length])).toEqual([
      ['2025-12-29_2025-12-31', 0, 0],
      ['2026-01-01_2026-01-04', 1, 1],
    ]);
  });

  it('keeps a week inside one month whole', () => {
    const [period] = groupSalesByWeek([line('2025-11-05', 1, 0, 1)]);
    const parts = splitSalesPeriod(period!);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({
      periodStart: '2025-11-03',
      periodEnd: '2025-11-09',
      isSubPeriod: false,
      key: '2025-11-03_2025-11-09',
    });
  });

  it('splits a week ending on the last day of February (leap year)', () => {
    const [period] = groupSalesByWeek([line('2024-02-27', 1, 0, 1)]);
    expect(period).toMatchObject({ weekStart: '2024-02-26', weekEnd: '2024-03-03' });
    expect(splitSalesPeriod(period!).map((p) => p.key)).toEqual([
      '2024-02-26_2024-02-29',
      '2024-03-01_2024-03-03',
    ]);
  });
});

describe('wire schemas (001 §3, §7)', () => {
  it('fills missing day and period totals', () => {
    const period = salesPeriodLenientSchema.parse({
      weekStart: '2025-11-03',
      weekEnd: '2025-11-09',
      formattedRange: '3 Nov 2025 - 9 Nov 2025',
      days: [
        { date: '2025-11-03', grossTotal: 0.1, netTotal: 0.1, invoiceCount: 1 },
        {
          date: '2025-11-04',
          grossTotal: 0.2,
          vatTotal: null,
          netTotal: 0.2,
          invoiceCount: 1,
          invoices: null,
        },
        { date: '2025-11-05' },
      ],
    });
    expect(period).toMatchObject({ grossTotal: 0.3, vatTotal: 0, netTotal: 0.3, invoiceCount: 2 });
    expect(period.days[2]).toEqual({
      date: '2025-11-05',
      grossTotal: 0,
      vatTotal: 0,
      netTotal: 0,
      invoiceCount: 0,
      invoices: [],
    });
    const sparse = salesPeriodLenientSchema.parse({
      weekStart: '2025-11-03',
      weekEnd: '2025-11-09',
      netTotal: 5,
    });
    expect(sparse).toEqual({
      weekStart: '2025-11-03',
      weekEnd: '2025-11-09',
      formattedRange: '3 Nov 2025 - 9 Nov 2025',
      grossTotal: 0,
      vatTotal: 0,
      netTotal: 5,
      invoiceCount: 0,
      days: [],
    });
    expect(salesPeriodSchema.parse(sparse)).toEqual(sparse);
    expect(
      salesResponseLenientSchema.parse([{ weekStart: '2025-11-03', weekEnd: '2025-11-09' }]),
    ).toHaveLength(1);
  });

  it('requires complete periods from the server', () => {
    const grouped = groupSalesByWeek([line('2025-11-05', 1.2, 0.2, 1)]);
    expect(salesResponseSchema.parse(grouped)).toEqual(grouped);
    expect(
      salesPeriodSchema.safeParse({
        weekStart: '2025-11-03',
        weekEnd: '2025-11-09',
        formattedRange: '',
        days: [],
      }).success,
    ).toBe(false);
  });

  it('validates the sales query', () => {
    expect(salesQuerySchema.safeParse({ fromDate: '2025-11-01', toDate: '2025-11-30' }).success).toBe(true);
    expect(
      salesQuerySchema.safeParse({ customerId: 'c1', fromDate: '2025-11-01', toDate: '2025-11-01' }).success,
    ).toBe(true);
    expect(salesQuerySchema.safeParse({ fromDate: '2025-11-30', toDate: '2025-11-01' }).success).toBe(false);
    expect(salesQuerySchema.safeParse({ fromDate: '2020-01-01', toDate: '2025-01-01' }).success).toBe(false);
    expect(salesQuerySchema.safeParse({ fromDate: 'x', toDate: '2025-01-01' }).success).toBe(false);
  });

  it('validates the journal payload', () => {
    const period = { periodStart: '2025-11-03', periodEnd: '2025-11-09', netTotal: 1350 };
    const body = buildJournalCreateRequest({
      period,
      contactId: 'c',
      stockAccountId: 's',
      costAccountId: 'k',
      marginRate: 1.35,
    });
    expect(body).toEqual({
      periodStart: '2025-11-03',
      periodEnd: '2025-11-09',
      netAmount: 1350,
      contactId: 'c',
      stockAccountId: 's',
      costAccountId: 'k',
      marginRate: 1.35,
      reference: 'Stock Transfer Journal - 3 Nov 2025 to 9 Nov 2025',
    });
    expect(journalCreateRequestSchema.parse(body)).toEqual(body);
    expect(journalCreateRequestSchema.safeParse({ ...body, netAmount: 0 }).success).toBe(false);
    expect(journalCreateRequestSchema.safeParse({ ...body, netAmount: 1.001 }).success).toBe(false);
    expect(journalCreateRequestSchema.safeParse({ ...body, marginRate: 0 }).success).toBe(false);
    expect(journalCreateRequestSchema.safeParse({ ...body, periodEnd: '2025-11-02' }).success).toBe(false);
    expect(journalCreateRequestSchema.safeParse({ ...body, periodEnd: '2025-11-30' }).success).toBe(false);
  });
});

describe('journal amount (001 §9: net / margin rate, 2 decimals)', () => {
  it('divides exactly and rounds half up', () => {
    expect(getJournalAmountPence(135000, 1.35)).toBe(100000);
    expect(getJournalAmountPence(10000, 1.35)).toBe(7407); // 74.0740…
    expect(getJournalAmountPence(1, 1.35)).toBe(1); // 0.74p → 1p
    expect(getJournalAmountPence(3, 2)).toBe(2); // 1.5p → 2p (half up)
    expect(getJournalAmountPence(-3, 2)).toBe(-2);
    expect(getJournalAmountPence(99999999, 1.35)).toBe(74074073); // 740740.7333…
    expect(getJournalAmountPence(100, 0)).toBeNull();
    expect(getJournalAmountPence(100, -1)).toBeNull();
    expect(getJournalAmountPence(100, Number.NaN)).toBeNull();
    expect(getJournalAmountPence(100, 1e-7)).toBe(1_000_000_000); // exponent-form rate read exactly
    expect(getJournalAmount(1350, 1.35)).toBe(1000);
    expect(getJournalAmount(100, 0)).toBe(0);
  });

  it('never drifts from the exact quotient by more than half a penny', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99999999 }),
        fc.integer({ min: 100, max: 500 }),
        (net, rateHundredths) => {
          const amount = getJournalAmountPence(net, rateHundredths / 100)!;
          // |amount − net·100/rate| ≤ ½  ⇔  |2·amount·rate − 2·net·100| ≤ rate (all integers)
          expect(Math.abs(2 * amount * rateHundredths - 2 * net * 100)).toBeLessThanOrEqual(rateHundredths);
        },
      ),
    );
  });
});

describe('texts (001 §2, §3)', () => {
  it('writes the reference exactly', () => {
    expect(getStockJournalReference('2025-10-27', '2025-10-31')).toBe(
      'Stock Transfer Journal - 27 Oct 2025 to 31 Oct 2025',
    );
    expect(getStockJournalReference('2026-01-01', '2026-01-04')).toBe(
      'Stock Transfer Journal - 1 Jan 2026 to 4 Jan 2026',
    );
  });

  it('sorts the invoices of a period by date', () => {
    expect(sortInvoiceLines([{ date: '2025-11-05' }, { date: '2025-11-03' }]).map((l) => l.date)).toEqual([
      '2025-11-03',
      '2025-11-05',
    ]);
  });

  it('defaults the journal date to the last day', () => {
    expect(
      getDefaultJournalDate({
        periodEnd: '2025-11-09',
        days: [{ date: '2025-11-03' }, { date: '2025-11-07' }],
      }),
    ).toBe('2025-11-07');
    expect(getDefaultJournalDate({ periodEnd: '2025-11-09', days: [] })).toBe('2025-11-09');
  });
});

describe('status rules (001 §4)', () => {
  const entry = (
    start: string,
    end: string,
    status: string | null,
    journalId: string | null = 'j',
  ): StockJournalEntry => ({
    periodStart: start,
    periodEnd: end,
    journalId,
    status,
  });

  it('maps entries to statuses', () => {
    expect(getJournalState(undefined)).toBe('none');
    expect(getJournalState(entry('a', 'b', 'draft'))).toBe('draft');
    expect(getJournalState(entry('a', 'b', 'POSTED'))).toBe('posted');
    expect(getJournalState(entry('a', 'b', 'none', null))).toBe('none');
    expect(getJournalState(entry('a', 'b', null, 'j'))).toBe('unclear');
    expect(getJournalState(entry('a', 'b', 'pending'))).toBe('unclear');
    expect(getJournalState({ periodStart: 'a', periodEnd: 'b', xeroJournalId: 'x', status: 'VOIDED' })).toBe(
      'unclear',
    );
  });

  it('enables posting only without a journal, while idle, with net above 0', () => {
    expect(canPostJournal({ isPosting: false, entry: undefined, netTotal: 10 })).toBe(true);
    expect(canPostJournal({ isPosting: true, entry: undefined, netTotal: 10 })).toBe(false);
    expect(canPostJournal({ isPosting: false, entry: entry('a', 'b', 'draft'), netTotal: 10 })).toBe(false);
    expect(canPostJournal({ isPosting: false, entry: undefined, netTotal: 0 })).toBe(false);
    expect(canPostJournal({ isPosting: false, entry: undefined, netTotal: -5 })).toBe(false);
  });

  it('filters by journal status', () => {
    const periods = [
      { weekStart: '2025-11-03', weekEnd: '2025-11-09' },
      { weekStart: '2025-11-10', weekEnd: '2025-11-16' },
      { weekStart: '2025-11-17', weekEnd: '2025-11-23' },
      { weekStart: '2025-11-24', weekEnd: '2025-11-30' },
      { weekStart: '2025-12-29', weekEnd: '2026-01-04' },
    ];
    const entries = indexStockJournalEntries([
      entry('2025-11-03', '2025-11-09', 'posted'),
      entry('2025-11-10', '2025-11-16', 'draft'),
      entry('2025-11-17', '2025-11-23', 'odd'),
      entry('2025-12-29', '2025-12-31', 'posted'),
    ]);
    const starts = (list: typeof periods) => list.map((p) => p.weekStart);
    expect(starts(filterPeriodsByJournalStatus(periods, entries, 'all'))).toHaveLength(5);
    expect(starts(filterPeriodsByJournalStatus(periods, entries, 'posted'))).toEqual(['2025-11-03']);
    expect(starts(filterPeriodsByJournalStatus(periods, entries, 'unposted'))).toEqual(['2025-11-24']);
    expect(getStockJournalKey('2025-11-03', '2025-11-09')).toBe('2025-11-03_2025-11-09');
  });

  it('links to the view page when posted, else the edit page', () => {
    expect(getJournalXeroUrl('j 1', 'posted')).toBe('https://go.xero.com/Journal/View.aspx?invoiceID=j%201');
    expect(getJournalXeroUrl('j1', 'draft', 'http://127.0.0.1:4000/')).toBe(
      'http://127.0.0.1:4000/Journal/Edit.aspx?invoiceID=j1',
    );
  });
});

describe('posting checks in order (001 §5)', () => {
  const ok = { customerId: 'c1', stockAccountId: 's', costAccountId: 'k', marginRate: 1.35, netTotal: 10 };

  it('returns the first failing check with the exact texts', () => {
    expect(validateJournalPosting({ ...ok, customerId: 'all', stockAccountId: '', netTotal: 0 })).toEqual({
      title: 'Customer Required',
      description: "Please select a specific customer in the settings page under 'Stock Journal Settings'.",
    });
    expect(validateJournalPosting({ ...ok, customerId: '' })?.title).toBe('Customer Required');
    const config = {
      title: 'Configuration Required',
      description: 'Please complete the stock journal settings first.',
    };
    expect(validateJournalPosting({ ...ok, stockAccountId: '', marginRate: -1 })).toEqual(config);
    expect(validateJournalPosting({ ...ok, costAccountId: null })).toEqual(config);
    expect(validateJournalPosting({ ...ok, marginRate: null })).toEqual(config);
    expect(validateJournalPosting({ ...ok, marginRate: '' })).toEqual(config);
    const rate = {
      title: 'Invalid Margin Rate',
      description: 'Margin rate must be a positive number greater than zero.',
    };
    expect(validateJournalPosting({ ...ok, marginRate: 0, netTotal: 0 })).toEqual(rate);
    expect(validateJournalPosting({ ...ok, marginRate: 'abc' })).toEqual(rate);
    expect(validateJournalPosting({ ...ok, netTotal: 0 })).toEqual({
      title: 'No Sales Data',
      description: 'There are no sales for this period. A journal cannot be created without sales data.',
    });
    expect(validateJournalPosting({ ...ok, netTotal: 0.004 })?.title).toBe('No Sales Data');
    expect(validateJournalPosting(ok)).toBeNull();
    expect(validateJournalPosting({ ...ok, marginRate: '1.5' })).toBeNull();
  });

  it('checks the legacy confirm path', () => {
    expect(validateJournalConfirmation({ periodStart: '2025-11-03', customerId: 'all' })).toEqual({
      title: 'Missing Required Information',
      description: "Please ensure you've selected a week and customer before creating a journal.",
    });
    expect(validateJournalConfirmation({ periodStart: '2025-11-03', customerId: 'c' })).toBeNull();
  });
});

describe('periods, references and server messages', () => {
  it('widens a sales range to whole Monday–Sunday weeks', () => {
    expect(getWeeklySalesRange('2025-11-01', '2025-11-30')).toEqual({
      fromDate: '2025-10-27',
      toDate: '2025-11-30',
    });
    expect(getWeeklySalesRange('2025-11-03', '2025-11-09')).toEqual({
      fromDate: '2025-11-03',
      toDate: '2025-11-09',
    });
  });

  it('knows a journal period: a week inside one month, or one side of a week split at a month end', () => {
    expect(isJournalPeriod('2025-11-03', '2025-11-09')).toBe(true);
    expect(isJournalPeriod('2025-10-27', '2025-10-31')).toBe(true);
    expect(isJournalPeriod('2025-11-01', '2025-11-02')).toBe(true);
    expect(isJournalPeriod('2025-10-27', '2025-11-02')).toBe(false);
    expect(isJournalPeriod('2025-11-04', '2025-11-09')).toBe(false);
    expect(isJournalPeriod('2025-11-03', '2025-11-10')).toBe(false);
    expect(isJournalPeriod('2025-11-09', '2025-11-03')).toBe(false);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), (offset) => {
        const monday = getWeeklySalesRange(
          addDays('2020-01-06', offset * 7),
          addDays('2020-01-06', offset * 7),
        ).fromDate;
        const week = groupSalesByWeek([line(monday, 1, 0, 1)])[0];
        if (!week) return false;
        return splitSalesPeriod(week).every((p) => isJournalPeriod(p.periodStart, p.periodEnd));
      }),
    );
  });

  it('reads the period back from a narration, in the spec format or with ISO dates', () => {
    expect(parseStockJournalReference(getStockJournalReference('2025-11-03', '2025-11-09'))).toEqual({
      periodStart: '2025-11-03',
      periodEnd: '2025-11-09',
    });
    expect(parseStockJournalReference('Stock Transfer Journal - 2025-10-27 to 2025-10-31')).toEqual({
      periodStart: '2025-10-27',
      periodEnd: '2025-10-31',
    });
    expect(parseStockJournalReference('Stock Transfer Journal - 3 Nov 2025 to 30 Nov 2025')).toBeNull();
    expect(parseStockJournalReference('Stock Transfer Journal - 31 Feb 2025 to 2 Mar 2025')).toBeNull();
    expect(parseStockJournalReference('Wages journal')).toBeNull();
    expect(parseStockJournalReference(null)).toBeNull();
  });

  it("reads the period back from a narration carrying its write's mark, and from one without (issue 28)", () => {
    const week = { periodStart: '2025-11-03', periodEnd: '2025-11-09' };
    const reference = getStockJournalReference(week.periodStart, week.periodEnd);
    expect(parseStockJournalReference(`${reference} [LL-0123456789]`)).toEqual(week);
    expect(parseStockJournalReference(reference)).toEqual(week);
    expect(
      parseStockJournalReference('Stock Transfer Journal - 2025-11-03 to 2025-11-09 [LL-abcdef0123]'),
    ).toEqual(week);
    // Anything else after the dates is not a Ledgerlink journal of the period.
    expect(parseStockJournalReference(`${reference} [LL-012345678]`)).toBeNull();
    expect(parseStockJournalReference(`${reference} (copy)`)).toBeNull();
    expect(parseStockJournalReference(`${reference} [LL-0123456789] again`)).toBeNull();
  });

  it('names a period as people do when two of them post it at once (issue 28)', () => {
    expect(getJournalPeriodLabel('2026-11-16', '2026-11-22')).toBe('The week of 16 Nov 2026');
    expect(getJournalPeriodLabel('2026-11-30', '2026-11-30')).toBe(
      'The journal for 30 Nov 2026 to 30 Nov 2026',
    );
    expect(getJournalPeriodLabel('2026-12-01', '2026-12-06')).toBe(
      'The journal for 1 Dec 2026 to 6 Dec 2026',
    );
  });

  it('accepts a journal date inside the period only', () => {
    const body = {
      periodStart: '2025-11-03',
      periodEnd: '2025-11-09',
      netAmount: 100,
      contactId: 'c',
      stockAccountId: 's',
      costAccountId: 'k',
      marginRate: 1.35,
      reference: getStockJournalReference('2025-11-03', '2025-11-09'),
    };
    expect(journalCreateRequestSchema.safeParse({ ...body, journalDate: '2025-11-07' }).success).toBe(true);
    expect(journalCreateRequestSchema.safeParse({ ...body, journalDate: '2025-11-10' }).success).toBe(false);
    expect(journalCreateRequestSchema.safeParse({ ...body, journalDate: '2025-11-31' }).success).toBe(false);
  });
});
