import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { getCurrentMonthRange } from '@/shared/dates';
import { splitSalesPeriod, type SalesPeriod, type StockJournalEntry } from '@/shared/stock-journal';
import { makeConnection } from '@/client/testing/fixtures';
import { createQueryClient } from '@/client/lib/query-client';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { recordToasts } from '@/client/testing/toasts';
import { useJournalPosting } from '../hooks/use-journal-posting';

const DAILY = '6f1c1d2e-0000-4000-8000-000000000001';

const connected = makeConnection({
  defaultStockJournalContactId: DAILY,
  defaultStockJournalStockAccountId: 'stock-1',
  defaultStockJournalCostAccountId: 'cost-1',
  defaultStockJournalMarginRate: 1.35,
  defaultStockJournalPostingStatus: 'draft',
});

function line(date: string, net: number, extra: Record<string, unknown> = {}) {
  const vat = Math.round(net * 20) / 100;
  return {
    customerName: 'Daily Sales',
    invoiceNumber: `INV-${date}`,
    date,
    formattedDate: date,
    grossAmount: Math.round((net + vat) * 100) / 100,
    vatAmount: vat,
    netAmount: net,
    ...extra,
  };
}

function week(weekStart: string, weekEnd: string, lines: ReturnType<typeof line>[]): SalesPeriod {
  const days = [...new Set(lines.map((l) => l.date))].map((date) => {
    const invoices = lines.filter((l) => l.date === date);
    const sum = (k: 'grossAmount' | 'vatAmount' | 'netAmount') =>
      Math.round(invoices.reduce((n, i) => n + i[k] * 100, 0)) / 100;
    return {
      date,
      grossTotal: sum('grossAmount'),
      vatTotal: sum('vatAmount'),
      netTotal: sum('netAmount'),
      invoiceCount: invoices.length,
      invoices,
    };
  });
  const sum = (k: 'grossTotal' | 'vatTotal' | 'netTotal') =>
    Math.round(days.reduce((n, d) => n + d[k] * 100, 0)) / 100;
  const fmt = (d: string) =>
    new Date(`${d}T00:00:00Z`)
      .toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })
      .replace('Sept', 'Sep');
  return {
    weekStart,
    weekEnd,
    formattedRange: `${fmt(weekStart)} - ${fmt(weekEnd)}`,
    grossTotal: sum('grossTotal'),
    vatTotal: sum('vatTotal'),
    netTotal: sum('netTotal'),
    invoiceCount: lines.length,
    days,
  };
}

const W1 = week('2026-11-02', '2026-11-08', [
  line('2026-11-03', 1000),
  line('2026-11-05', 350, { customerName: null, invoiceNumber: null }),
]);
const SPLIT = week('2026-09-28', '2026-10-04', [line('2026-09-29', 400), line('2026-10-02', 270)]);
const DRAFTED = week('2026-11-09', '2026-11-15', [line('2026-11-10', 500)]);
const UNCLEAR = week('2026-11-16', '2026-11-22', [line('2026-11-17', 135)]);
const PERIODS = [SPLIT, W1, DRAFTED, UNCLEAR];

const ENTRIES: StockJournalEntry[] = [
  {
    periodStart: '2026-09-28',
    periodEnd: '2026-09-30',
    journalId: 'j-split-1',
    status: 'posted',
    amount: 296.3,
  },
  {
    periodStart: '2026-11-09',
    periodEnd: '2026-11-15',
    journalId: 'j-draft',
    status: 'draft',
    amount: 370.37,
  },
  { periodStart: '2026-11-16', periodEnd: '2026-11-22', journalId: null, status: 'pending' },
];

interface Recorded {
  sales: URLSearchParams[];
  posts: Array<{ body: Record<string, unknown>; key: string | null }>;
  syncs: number;
}

function useHandlers(
  options: {
    connection?: ReturnType<typeof makeConnection>;
    periods?: SalesPeriod[];
    entries?: StockJournalEntry[];
    post?: (body: Record<string, unknown>) => Response;
    sync?: () => Response;
    salesDelayMs?: number;
  } = {},
) {
  const recorded: Recorded = { sales: [], posts: [], syncs: 0 };
  let entries = [...(options.entries ?? ENTRIES)];
  server.use(
    http.get('*/api/xero/connection', () => HttpResponse.json(options.connection ?? connected)),
    http.get('*/api/xero/customers', () =>
      HttpResponse.json([
        { id: 'c-other', name: 'Blue Door Bakery' },
        { id: DAILY, name: 'Daily Sales' },
      ]),
    ),
    http.get('*/api/xero/sales', async ({ request }) => {
      recorded.sales.push(new URL(request.url).searchParams);
      if (options.salesDelayMs) await new Promise((r) => setTimeout(r, options.salesDelayMs));
      return HttpResponse.json(options.periods ?? PERIODS);
    }),
    http.get('*/api/xero/stock-journal/entries', () => HttpResponse.json(entries)),
    http.post('*/api/xero/stock-journal', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      recorded.posts.push({ body, key: request.headers.get('idempotency-key') });
      const answer = options.post?.(body);
      if (answer) return answer;
      entries = [
        ...entries,
        {
          periodStart: String(body.periodStart),
          periodEnd: String(body.periodEnd),
          journalId: 'j-new',
          status: 'draft',
        },
      ];
      return HttpResponse.json({ journalId: 'j-new', status: 'draft' }, { status: 201 });
    }),
    http.post('*/api/xero/stock-journal/sync-status', () => {
      recorded.syncs += 1;
      return options.sync?.() ?? HttpResponse.json({ updatedCount: 2 });
    }),
  );
  return recorded;
}

/** A week's accordion button: its accessible name starts with the week's range. */
const startsWith = (range: string) => (name: string) => name.startsWith(range);
const trigger = (range: string) => screen.getByRole('button', { name: startsWith(range) });
/** The first render loads the route and the chart lazily: allow for a slow, shared machine. */
const findTrigger = (range: string) =>
  screen.findByRole('button', { name: startsWith(range) }, { timeout: 15_000 });
const journalRegion = (range: string) => screen.getByRole('region', { name: `Journal for ${range}` });

async function openWeek(user: ReturnType<typeof userEvent.setup>, range: string) {
  await user.click(await findTrigger(range));
  await waitFor(() => expect(trigger(range)).toHaveAttribute('aria-expanded', 'true'));
}

describe('Stock Journal screen (001 §2–§8)', () => {
  it('shows the header, the filters with their defaults, skeletons while loading, then the weeks', async () => {
    const recorded = useHandlers({ salesDelayMs: 150 });
    renderApp('/stock-journal');
    expect(
      await screen.findByRole(
        'heading',
        { name: 'Stock Journal: View and analyze sales data by date range' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('View and analyze sales data by date range')).toBeInTheDocument();
    expect(await screen.findByRole('status', { name: 'Loading sales data' })).toBeInTheDocument();
    const month = getCurrentMonthRange();
    expect(screen.getByLabelText('From date')).toHaveValue(month.fromDate);
    expect(screen.getByLabelText('To date')).toHaveValue(month.toDate);
    expect(screen.getByLabelText('Margin Rate')).toHaveValue(1.35);
    expect(screen.getByLabelText('Margin Rate')).toHaveAttribute('placeholder', '1.35');
    expect(screen.getByLabelText('Margin Rate')).toHaveAttribute('step', '0.01');
    expect(screen.getByLabelText('Margin Rate')).toHaveAttribute('min', '0');
    expect(screen.getByRole('combobox', { name: 'Journal Status' })).toHaveTextContent('All Journals');
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Customer' })).toHaveTextContent('Daily Sales'),
    );
    await findTrigger(W1.formattedRange);
    expect(recorded.sales[0]?.get('customerId')).toBe(DAILY);
    expect(recorded.sales[0]?.get('fromDate')).toBe(month.fromDate);
    // Sorted by start date; Count as 'N invoice(s)'; money with £ and 2 decimals; badges per
    // docs/product/features.md §4.
    const names = screen.getAllByRole('button', { expanded: false }).map((b) => b.textContent ?? '');
    expect(names.findIndex((n) => n.startsWith(SPLIT.formattedRange))).toBeLessThan(
      names.findIndex((n) => n.startsWith(W1.formattedRange)),
    );
    expect(trigger(W1.formattedRange)).toHaveTextContent('2 invoices');
    expect(trigger(W1.formattedRange)).toHaveTextContent('£1,350.00');
    expect(trigger(W1.formattedRange)).toHaveTextContent('Unposted');
    expect(trigger(DRAFTED.formattedRange)).toHaveTextContent('Draft');
    expect(trigger(UNCLEAR.formattedRange)).toHaveTextContent('Unclear');
    expect(trigger(SPLIT.formattedRange)).toHaveTextContent('Partial');
  });

  it('says so when there are no sales', async () => {
    useHandlers({ periods: [] });
    renderApp('/stock-journal');
    expect(
      await screen.findByText('No sales data found', undefined, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        "There's no sales data matching your filter criteria. Try selecting a different customer or check back later.",
      ),
    ).toBeInTheDocument();
  });

  it('opens one week at a time: journal date, read-only amount, invoices with their fallbacks', async () => {
    useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    const journal = journalRegion(W1.formattedRange);
    expect(within(journal).getByLabelText('Journal Date')).toHaveValue('2026-11-05');
    expect(within(journal).getByLabelText('Amount')).toHaveValue('£1,000.00');
    expect(within(journal).getByLabelText('Amount')).toHaveAttribute('readonly');
    expect(within(journal).getByRole('button', { name: 'Post Journal to Xero' })).toBeEnabled();
    const rows = screen.getAllByRole('row');
    expect(rows.some((r) => r.textContent?.includes('Daily SalesINV-2'))).toBe(true);
    await openWeek(user, DRAFTED.formattedRange);
    expect(trigger(W1.formattedRange)).toHaveAttribute('aria-expanded', 'false');
    const drafted = journalRegion(DRAFTED.formattedRange);
    expect(within(drafted).getByRole('button', { name: 'Draft Journal Created' })).toBeDisabled();
    expect(within(drafted).getByRole('link', { name: 'View in Xero' })).toHaveAttribute(
      'href',
      'https://go.xero.com/Journal/Edit.aspx?invoiceID=j-draft',
    );
    expect(within(drafted).getByRole('link', { name: 'View in Xero' })).toHaveAttribute('target', '_blank');
    expect(within(drafted).getByLabelText('Amount')).toHaveValue('£370.37');
  });

  it('splits a week across a month end into two sub-periods with their own rows and buttons', async () => {
    useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, SPLIT.formattedRange);
    const [first, second] = splitSalesPeriod(SPLIT);
    if (!first || !second) throw new Error('no split');
    const firstRegion = journalRegion(first.formattedRange);
    const secondRegion = journalRegion(second.formattedRange);
    expect(within(firstRegion).getByRole('button', { name: 'Journal Posted' })).toBeDisabled();
    expect(within(firstRegion).getByRole('link', { name: 'View in Xero' })).toHaveAttribute(
      'href',
      'https://go.xero.com/Journal/View.aspx?invoiceID=j-split-1',
    );
    expect(within(secondRegion).getByRole('button', { name: 'Post Journal to Xero (range)' })).toBeEnabled();
    expect(within(secondRegion).getByLabelText('Journal Date')).toHaveValue('2026-10-02');
    expect(within(secondRegion).getByLabelText('Amount')).toHaveValue('£200.00');
  });

  it('warns when a journal status is unclear, with a Check in Xero link', async () => {
    useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, UNCLEAR.formattedRange);
    const region = journalRegion(UNCLEAR.formattedRange);
    expect(within(region).getByText('Journal Status Unclear')).toBeInTheDocument();
    expect(
      within(region).getByText(
        /The journal may have been created but the confirmation is incomplete\. Please check Xero\./,
      ),
    ).toBeInTheDocument();
    expect(within(region).getByRole('link', { name: 'Check in Xero' })).toHaveAttribute('target', '_blank');
  });

  it('posts a journal: Creating Journal..., the success toast, the key and date sent, the week collapses and shows Draft', async () => {
    const recorded = useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    const journal = journalRegion(W1.formattedRange);
    fireEvent.change(within(journal).getByLabelText('Journal Date'), { target: { value: '2026-11-08' } });
    await user.click(within(journal).getByRole('button', { name: 'Post Journal to Xero' }));
    expect(await screen.findByText('Journal Created Successfully!')).toBeInTheDocument();
    expect(
      screen.getByText('Draft journal for 2 Nov 2026 - 8 Nov 2026 has been created in Xero.'),
    ).toBeInTheDocument();
    expect(recorded.posts).toHaveLength(1);
    expect(recorded.posts[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(recorded.posts[0]?.body).toEqual({
      periodStart: '2026-11-02',
      periodEnd: '2026-11-08',
      netAmount: 1350,
      contactId: DAILY,
      stockAccountId: 'stock-1',
      costAccountId: 'cost-1',
      marginRate: 1.35,
      reference: 'Stock Transfer Journal - 2 Nov 2026 to 8 Nov 2026',
      journalDate: '2026-11-08',
    });
    await waitFor(() => expect(trigger(W1.formattedRange)).toHaveAttribute('aria-expanded', 'false'));
    await waitFor(() => expect(trigger(W1.formattedRange)).toHaveTextContent('Draft'));
  });

  it('asks for a verify when Xero gave no journal id', async () => {
    useHandlers({ post: () => HttpResponse.json({ journalId: null, status: 'draft' }, { status: 201 }) });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    expect(await screen.findByText('Journal Created - Please Verify')).toBeInTheDocument();
  });

  it('runs the posting checks in order, each an error toast, and sends nothing', async () => {
    const recorded = useHandlers({ connection: { ...connected, defaultStockJournalStockAccountId: '' } });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await findTrigger(W1.formattedRange);
    expect(screen.getByText('Stock journal settings incomplete')).toBeInTheDocument();
    // 1. A specific customer first, even with the settings incomplete.
    await user.click(screen.getByRole('combobox', { name: 'Customer' }));
    await user.click(await screen.findByRole('option', { name: 'All Customers' }));
    await openWeek(user, W1.formattedRange);
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    expect(await screen.findByText('Customer Required')).toBeInTheDocument();
    expect(
      screen.getByText(
        "Please select a specific customer in the settings page under 'Stock Journal Settings'.",
      ),
    ).toBeInTheDocument();
    // 2. Then the settings.
    await user.click(screen.getByRole('combobox', { name: 'Customer' }));
    await user.click(await screen.findByRole('option', { name: 'Daily Sales' }));
    await openWeek(user, W1.formattedRange);
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    expect(await screen.findByText('Configuration Required')).toBeInTheDocument();
    expect(screen.getByText('Please complete the stock journal settings first.')).toBeInTheDocument();
    expect(recorded.posts).toHaveLength(0);
  });

  it('refuses a margin rate of zero, and a period without sales (check 4, behind a disabled button)', async () => {
    const recorded = useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    const margin = screen.getByLabelText('Margin Rate');
    await user.clear(margin);
    await user.type(margin, '0');
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    expect(await screen.findByText('Invalid Margin Rate')).toBeInTheDocument();
    expect(screen.getByText('Margin rate must be a positive number greater than zero.')).toBeInTheDocument();
    expect(recorded.posts).toHaveLength(0);

    // The button is disabled for net 0 (docs/product/features.md §4), so check 4 is the hook's own last line
    // of defence.
    const { result } = renderHook(
      () =>
        useJournalPosting(1, {
          customerId: DAILY,
          stockAccountId: 's',
          costAccountId: 'c',
          marginRate: '1.35',
        }),
      {
        // The toaster of the screen rendered above shows the hook's toast.
        wrapper: ({ children }) => (
          <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>
        ),
      },
    );
    const empty = { ...splitSalesPeriod(W1)[0]!, netTotal: 0 };
    await act(async () => {
      expect(await result.current.post(empty)).toBe(false);
    });
    expect(await screen.findByText('No Sales Data')).toBeInTheDocument();
    expect(
      screen.getByText('There are no sales for this period. A journal cannot be created without sales data.'),
    ).toBeInTheDocument();
  });

  it.each([
    [
      409,
      {
        message:
          'A journal entry already exists for this period. Check your Xero account for the existing journal.',
      },
      'Journal Already Exists',
      'A journal entry already exists for this period. Check your Xero account for the existing journal.',
      null,
    ],
    [
      409,
      { message: 'The week of 3 Nov 2025 is being posted by carol; try again in a moment.' },
      'Journal Being Posted',
      'The week of 3 Nov 2025 is being posted by carol; try again in a moment.',
      null,
    ],
    [
      400,
      {
        message:
          'Invalid account selection: the stock account and the cost account must be different accounts.',
      },
      'Invalid Journal Data',
      'Invalid account selection. Please verify stock and cost accounts in settings.',
      null,
    ],
    [
      400,
      { message: 'Invalid customer: this customer was not found in Xero.' },
      'Invalid Journal Data',
      'Invalid customer selection. Please select a valid customer in settings.',
      null,
    ],
    [
      400,
      {
        message: 'The sales for this period have changed since they were loaded. Refresh Data and try again.',
      },
      'Invalid Journal Data',
      'The sales for this period have changed since they were loaded. Refresh Data and try again.',
      null,
    ],
    [
      401,
      { message: 'Your Xero connection has expired. Please reconnect.' },
      'Authentication Error',
      "Your Xero connection has expired. Please reconnect to Xero by clicking 'Reconnect' in the header.",
      'Reconnection Required',
    ],
    [
      502,
      { message: 'Xero is not answering properly right now. Please try again.' },
      'Xero Service Error',
      "There was a problem communicating with Xero's servers. Please try again in a few minutes.",
      null,
    ],
    [
      429,
      { message: "Xero's call limit for this organisation has been reached. Please try again later." },
      'Failed to Create Draft Journal',
      "Xero's call limit for this organisation has been reached. Please try again later.",
      'Troubleshooting Tips',
    ],
  ] as const)('maps a %i answer to its toast', async (status, body, title, description, followUp) => {
    useHandlers({ post: () => HttpResponse.json(body, { status }) });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    const toasts = recordToasts();
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    // The toast is on screen for 1 s before a follow-up replaces it: read from what was shown, in order.
    try {
      const titles = () => toasts.seen.map((t) => t.title);
      await waitFor(() => expect(titles()).toContain(title));
      expect(toasts.seen.find((t) => t.title === title)).toMatchObject({ description });
      if (followUp) {
        await waitFor(() => expect(titles()).toContain(followUp));
        expect(titles().indexOf(followUp)).toBeGreaterThan(titles().indexOf(title));
      } else expect(await screen.findByText(title)).toBeVisible();
    } finally {
      toasts.stop();
    }
  });

  it('Refresh Data refreshes the sales, the entries and the journal statuses together', async () => {
    const recorded = useHandlers();
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await findTrigger(W1.formattedRange);
    await user.click(screen.getByRole('button', { name: 'Refresh Data' }));
    expect(await screen.findByText('Status Updated')).toBeInTheDocument();
    expect(screen.getByText('Updated 2 journals with current status from Xero.')).toBeInTheDocument();
    expect(recorded.syncs).toBe(1);
    expect(recorded.sales.some((q) => q.get('refresh') === 'true')).toBe(true);
  });

  it.each([
    [
      () => HttpResponse.json({ updatedCount: 0 }),
      'Status Check Complete',
      'All journals are already up to date.',
    ],
    [
      () => HttpResponse.json({ message: 'Xero is not answering' }, { status: 502 }),
      'Sync Failed',
      'Unable to sync journal status from Xero. Please try again.',
    ],
  ] as const)('reports the status sync: %#', async (sync, title, description) => {
    useHandlers({ sync });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await findTrigger(W1.formattedRange);
    await user.click(screen.getByRole('button', { name: 'Refresh Data' }));
    expect(await screen.findByText(title)).toBeInTheDocument();
    expect(screen.getByText(description)).toBeInTheDocument();
  });

  it('filters by journal status: posted keeps posted weeks, unposted keeps weeks with no entry', async () => {
    useHandlers({
      entries: [
        ...ENTRIES,
        { periodStart: '2026-10-01', periodEnd: '2026-10-04', journalId: 'j-split-2', status: 'posted' },
      ],
    });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await findTrigger(W1.formattedRange);
    await user.click(screen.getByRole('combobox', { name: 'Journal Status' }));
    await user.click(await screen.findByRole('option', { name: 'Posted Only' }));
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: startsWith(W1.formattedRange) })).toBeNull(),
    );
    expect(trigger(SPLIT.formattedRange)).toHaveTextContent('Posted');
    expect(screen.queryByRole('button', { name: startsWith(DRAFTED.formattedRange) })).toBeNull();
    await user.click(screen.getByRole('combobox', { name: 'Journal Status' }));
    await user.click(await screen.findByRole('option', { name: 'Unposted Only' }));
    await findTrigger(W1.formattedRange);
    for (const hidden of [SPLIT, DRAFTED, UNCLEAR]) {
      expect(screen.queryByRole('button', { name: startsWith(hidden.formattedRange) })).toBeNull();
    }
  });

  it("below 640 px an open week's invoices are cards with Gross, VAT and Net (issue 17 item 13)", async () => {
    const original = window.matchMedia;
    window.matchMedia = vi.fn((query: string) => ({
      ...original(query),
      matches: query.includes('max-width: 639'),
    })) as typeof window.matchMedia;
    try {
      useHandlers();
      const user = userEvent.setup();
      renderApp('/stock-journal');
      await openWeek(user, W1.formattedRange);
      const list = await screen.findByRole('list', { name: 'Sales invoices of the period' });
      expect(screen.queryByRole('table', { name: 'Sales invoices of the period' })).toBeNull();
      const cards = within(list).getAllByRole('listitem');
      expect(cards).toHaveLength(2);
      for (const label of ['Gross', 'VAT', 'Net']) expect(cards[0]).toHaveTextContent(label);
    } finally {
      window.matchMedia = original;
    }
  });

  it('warns before posting the current, unfinished week, naming it (issue 17 item 18)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-05T12:00:00Z'));
    try {
      const recorded = useHandlers();
      const user = userEvent.setup();
      renderApp('/stock-journal');
      await openWeek(user, W1.formattedRange);
      await user.click(
        within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
      );
      const dialog = await screen.findByRole('dialog', { name: 'Confirm Stock Journal' });
      expect(
        within(dialog).getByText(`The week ${W1.formattedRange} has not ended yet`, { exact: false }),
      ).toBeInTheDocument();
      expect(recorded.posts).toHaveLength(0);
      await user.click(within(dialog).getByRole('button', { name: 'Post Journal to Xero' }));
      expect(await screen.findByText('Journal Created Successfully!')).toBeInTheDocument();
      expect(recorded.posts).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks for confirmation before posting straight to POSTED, then says the journal was posted (issue 17 item 4)', async () => {
    const recorded = useHandlers({
      connection: { ...connected, defaultStockJournalPostingStatus: 'posted' },
      post: () => HttpResponse.json({ journalId: 'j-new', status: 'posted' }, { status: 201 }),
    });
    const user = userEvent.setup();
    renderApp('/stock-journal');
    await openWeek(user, W1.formattedRange);
    await user.click(
      within(journalRegion(W1.formattedRange)).getByRole('button', { name: 'Post Journal to Xero' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Stock Journal' });
    expect(within(dialog).getByText('£1,350.00')).toBeInTheDocument();
    expect(within(dialog).getByText('£1,000.00')).toBeInTheDocument();
    expect(within(dialog).getByText('Daily Sales')).toBeInTheDocument();
    expect(within(dialog).getByText(/duplicate entry in Xero/)).toBeInTheDocument();
    expect(recorded.posts).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Post Journal to Xero' }));
    expect(await screen.findByText('Journal Posted Successfully!')).toBeInTheDocument();
    expect(screen.getByText(`Journal for ${W1.formattedRange} has been posted in Xero.`)).toBeInTheDocument();
    expect(screen.queryByText(/Draft journal for/)).toBeNull();
    expect(recorded.posts).toHaveLength(1);
  });
});
