import type { Locator, Page } from '@playwright/test';
import { addDays, getUkToday, getWeekEnd, isSameMonth } from '../src/shared/dates';
import {
  getStockJournalReference,
  splitSalesPeriod,
  type SalesPeriod,
  type StockJournalEntry,
} from '../src/shared/stock-journal';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  sandbox,
  SANDBOX_URL,
  screenshot,
  setTheme,
  test,
} from './fixtures';

interface LedgerWrite {
  tenantName: string;
  kind: string;
  action: string;
  id: string;
  summary: { narration?: string; date?: string; status?: string; amount?: number };
}

/** A write's mark after a narration (issue 28): " [LL-" and 10 hex digits. */
const MARK = / \[LL-[0-9a-f]{10}\]$/;
const withoutMark = (narration: string | undefined) => (narration ?? '').replace(MARK, '');

const today = getUkToday();
/** Three months back: several weeks, at least one of them across a month end. */
const FROM = addDays(today, -95);

async function journalWrites(page: Page): Promise<LedgerWrite[]> {
  const ledger = (await (await page.request.get(`${SANDBOX_URL}/__sandbox/ledger`)).json()) as {
    writes: LedgerWrite[];
  };
  return ledger.writes.filter((w) => w.kind === 'journal' && w.tenantName === 'Demo Shop Ltd');
}

/** The stock journal settings of docs/product/shell.md §2, saved the way the Settings screen saves them. */
async function saveSettings(page: Page, overrides: Record<string, unknown> = {}) {
  const customers = (await (await page.request.get('/api/xero/customers')).json()) as Array<{
    id: string;
    name: string;
  }>;
  const assets = (await (await page.request.get('/api/xero/asset-accounts')).json()) as Array<{
    id: string;
    code: string;
  }>;
  const costs = (await (await page.request.get('/api/xero/cost-accounts')).json()) as Array<{
    id: string;
    code: string;
  }>;
  const daily = customers.find((c) => c.name === 'Daily Sales')?.id;
  const stock = assets.find((a) => a.code === '630')?.id;
  const cost = costs.find((a) => a.code === '310')?.id;
  expect(daily && stock && cost).toBeTruthy();
  const res = await page.request.patch('/api/xero/settings', {
    data: {
      defaultStockJournalContactId: daily,
      defaultStockJournalStockAccountId: stock,
      defaultStockJournalCostAccountId: cost,
      defaultStockJournalMarginRate: 1.35,
      defaultStockJournalPostingStatus: 'draft',
      ...overrides,
    },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
  return { dailySales: daily ?? '', stock: stock ?? '', cost: cost ?? '' };
}

async function loadPeriods(page: Page, customerId: string): Promise<SalesPeriod[]> {
  const res = await page.request.get(
    `/api/xero/sales?customerId=${customerId}&fromDate=${FROM}&toDate=${today}`,
  );
  expect(res.status()).toBe(200);
  return res.json();
}

async function loadEntries(page: Page): Promise<StockJournalEntry[]> {
  return (await page.request.get('/api/xero/stock-journal/entries')).json();
}

/** The weeks of the two stock journals the sandbox seeds (3 weeks ago POSTED, 2 weeks ago DRAFT), by their Sunday. */
function seededWeekEnds(): string[] {
  const weekday = new Date(`${today}T00:00:00Z`).getUTCDay();
  const lastSunday = addDays(today, -((weekday + 6) % 7) - 1);
  return [addDays(lastSunday, -14), addDays(lastSunday, -7)];
}

/** Opens the Stock Journal for the last three months. */
async function openScreen(page: Page) {
  await page.goto('/stock-journal');
  await expect(page.getByRole('heading', { level: 1, name: /^Stock Journal\b/ })).toBeVisible();
  await expect(page.getByText('View and analyze sales data by date range', { exact: true })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Customer' })).toHaveText('Daily Sales');
  await page.getByLabel('From date', { exact: true }).fill(FROM);
  await page.getByLabel('To date', { exact: true }).fill(today);
}

/** A week's accordion button: its name starts with the week's range (no two weeks' ranges contain each other). */
const weekTrigger = (page: Page, range: string): Locator => page.getByRole('button', { name: range });

async function expand(page: Page, range: string) {
  const trigger = weekTrigger(page, range);
  if ((await trigger.getAttribute('aria-expanded')) !== 'true') await trigger.click();
  await expect(trigger).toHaveAttribute('aria-expanded', 'true');
}

test.describe('Stock Journal', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  let ids = { dailySales: '', stock: '', cost: '' };

  test.beforeEach(async ({ page }) => {
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    ids = await saveSettings(page);
  });

  test('posts a draft journal for a week, shows it Draft, and Refresh Data brings the statuses Xero holds', async ({
    page,
  }) => {
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    ids = await saveSettings(page);
    await page.request.delete(`${SANDBOX_URL}/__sandbox/ledger`);
    const periods = await loadPeriods(page, ids.dailySales);
    const seeded = seededWeekEnds();
    const week = periods.find(
      (p) =>
        isSameMonth(p.weekStart, p.weekEnd) &&
        p.netTotal > 0 &&
        !seeded.includes(p.weekEnd) &&
        p.weekEnd < addDays(today, -21),
    );
    if (!week) throw new Error('no whole week to post');

    await openScreen(page);
    await expect(weekTrigger(page, week.formattedRange)).toContainText('Unposted');
    await expand(page, week.formattedRange);
    const journalCard = page.getByRole('region', { name: `Journal for ${week.formattedRange}` });
    await expect(journalCard.getByLabel('Journal Date')).toHaveValue(week.weekEnd);
    const cost = Math.round((Math.round(week.netTotal * 100) * 100) / 135) / 100;
    await expect(journalCard.getByLabel('Amount')).toHaveValue(
      `£${cost.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
    );
    await journalCard.getByRole('button', { name: 'Post Journal to Xero', exact: true }).click();
    await expect(page.getByText('Journal Created Successfully!', { exact: true })).toBeVisible();
    await expect(
      page.getByText(`Draft journal for ${week.formattedRange} has been created in Xero.`, { exact: true }),
    ).toBeVisible();
    // The open item collapses; the week now shows Draft, and its card offers the journal in Xero.
    await expect(weekTrigger(page, week.formattedRange)).toHaveAttribute('aria-expanded', 'false');
    await expect(weekTrigger(page, week.formattedRange)).toContainText('Draft');
    await expand(page, week.formattedRange);
    await expect(journalCard.getByRole('button', { name: 'Draft Journal Created' })).toBeDisabled();
    const entry = (await loadEntries(page)).find(
      (e) => e.periodStart === week.weekStart && e.periodEnd === week.weekEnd,
    );
    await expect(journalCard.getByRole('link', { name: 'View in Xero' })).toHaveAttribute(
      'href',
      `https://go.xero.com/Journal/Edit.aspx?invoiceID=${entry?.journalId}`,
    );
    await expect(journalCard.getByRole('link', { name: 'View in Xero' })).toHaveAttribute('target', '_blank');

    // The journal in Xero: the spec's reference, dated at the period end, net ÷ 1.35 on both (balancing) lines.
    // The narration carries the write's mark after the reference (found again after a restore, issue 28).
    const [write] = await journalWrites(page);
    expect(withoutMark(write?.summary.narration)).toBe(
      getStockJournalReference(week.weekStart, week.weekEnd),
    );
    expect(write?.summary.narration).toMatch(MARK);
    expect(write).toMatchObject({
      action: 'create',
      id: entry?.journalId,
      summary: {
        date: week.weekEnd,
        status: 'DRAFT',
        amount: cost,
      },
    });

    // The journals already in Xero for the seeded weeks were read when the screen opened (issue 15): those
    // weeks show their status without Refresh Data, and the posted one cannot be posted again.
    const [postedWeekEnd, draftWeekEnd] = seeded;
    const postedWeek = periods.find((p) => p.weekEnd === postedWeekEnd);
    const draftWeek = periods.find((p) => p.weekEnd === draftWeekEnd);
    if (!postedWeek || !draftWeek) throw new Error('seeded weeks not listed');
    await expect(weekTrigger(page, postedWeek.formattedRange)).toContainText('Posted');
    await expect(weekTrigger(page, draftWeek.formattedRange)).toContainText('Draft');
    await expand(page, postedWeek.formattedRange);
    await expect(page.getByRole('button', { name: 'Journal Posted' })).toBeDisabled();

    // Nothing changed since: Refresh Data's status sync says so.
    await page.getByRole('button', { name: 'Refresh Data' }).click();
    await expect(page.getByText('Status Check Complete', { exact: true })).toBeVisible();
    await expect(page.getByText('All journals are already up to date.', { exact: true })).toBeVisible();

    // The journal status filter (docs/product/features.md §4): Posted Only keeps posted weeks; Unposted Only
    // drops drafts.
    await page.getByRole('combobox', { name: 'Journal Status' }).click();
    await page.getByRole('option', { name: 'Posted Only', exact: true }).click();
    await expect(weekTrigger(page, postedWeek.formattedRange)).toBeVisible();
    await expect(weekTrigger(page, week.formattedRange)).toBeHidden();
    await page.getByRole('combobox', { name: 'Journal Status' }).click();
    await page.getByRole('option', { name: 'Unposted Only', exact: true }).click();
    await expect(weekTrigger(page, week.formattedRange)).toBeHidden();
    await expect(weekTrigger(page, postedWeek.formattedRange)).toBeHidden();
    await expect(page.locator('[data-state]').filter({ hasText: 'Unposted' }).first()).toBeVisible();

    // The bookkeeper posts our draft in Xero's own web app; Refresh Data brings it back as Posted.
    await page.getByRole('combobox', { name: 'Journal Status' }).click();
    await page.getByRole('option', { name: 'Posted Only', exact: true }).click();
    await expect(weekTrigger(page, week.formattedRange)).toBeHidden();
    await sandbox(page, `/__sandbox/manual-journals/${entry?.journalId}/status`, { status: 'POSTED' });
    await page.getByRole('button', { name: 'Refresh Data' }).click();
    await expect(
      page.getByText('Updated 1 journal with current status from Xero.', { exact: true }),
    ).toBeVisible();
    await expect(weekTrigger(page, week.formattedRange)).toContainText('Posted');
  });

  test('splits a week across a month end into two sub-periods, posts each, and refuses a second post for a period', async ({
    page,
  }) => {
    const periods = await loadPeriods(page, ids.dailySales);
    const taken = new Set((await loadEntries(page)).map((e) => `${e.periodStart}_${e.periodEnd}`));
    const week = periods.find(
      (p) =>
        !isSameMonth(p.weekStart, p.weekEnd) &&
        splitSalesPeriod(p).every((h) => h.netTotal > 0 && !taken.has(h.key)),
    );
    if (!week) throw new Error('no month-spanning week with sales on both sides');
    const [first, second] = splitSalesPeriod(week);
    if (!first || !second) throw new Error('week did not split');

    await openScreen(page);
    await expand(page, week.formattedRange);
    const firstCard = page.getByRole('region', { name: `Journal for ${first.formattedRange}` });
    const secondCard = page.getByRole('region', { name: `Journal for ${second.formattedRange}` });
    await expect(firstCard.getByLabel('Journal Date')).toHaveValue(first.periodEnd);
    await expect(secondCard.getByLabel('Journal Date')).toHaveValue(second.periodEnd);
    await screenshot(page, 'stock-journal-split-week');
    await firstCard.getByRole('button', { name: 'Post Journal to Xero (range)' }).click();
    await expect(page.getByText('Journal Created Successfully!', { exact: true })).toBeVisible();
    // One half posted: the combined badge says Partial.
    await expect(weekTrigger(page, week.formattedRange)).toContainText('Partial');
    await expand(page, week.formattedRange);
    await secondCard.getByRole('button', { name: 'Post Journal to Xero (range)' }).click();
    await expect(
      page.getByText(`Draft journal for ${second.formattedRange} has been created in Xero.`, { exact: true }),
    ).toBeVisible();
    await expect(weekTrigger(page, week.formattedRange)).toContainText('Draft');

    const writes = await journalWrites(page);
    for (const half of [first, second]) {
      const write = writes.find(
        (w) =>
          withoutMark(w.summary.narration) === getStockJournalReference(half.periodStart, half.periodEnd),
      );
      expect(write?.summary.date).toBe(half.periodEnd);
      expect(write?.summary.amount).toBe(Math.round((Math.round(half.netTotal * 100) * 100) / 135) / 100);
    }

    // A journal for this period arrives from elsewhere (another tab, another user) while the screen shows it free.
    const takenNow = new Set((await loadEntries(page)).map((e) => `${e.periodStart}_${e.periodEnd}`));
    const target = periods
      .flatMap((p) => splitSalesPeriod(p))
      .find((p) => p.netTotal > 0 && !takenNow.has(p.key) && p.periodEnd < addDays(today, -7));
    if (!target) throw new Error('no free period');
    const targetWeek = periods.find(
      (p) => p.weekStart <= target.periodStart && p.weekEnd >= target.periodEnd,
    );
    if (!targetWeek) throw new Error('week of the free period not found');
    await expand(page, targetWeek.formattedRange);
    const res = await page.request.post('/api/xero/stock-journal', {
      data: {
        periodStart: target.periodStart,
        periodEnd: target.periodEnd,
        netAmount: target.netTotal,
        contactId: ids.dailySales,
        stockAccountId: ids.stock,
        costAccountId: ids.cost,
        marginRate: 1.35,
        reference: getStockJournalReference(target.periodStart, target.periodEnd),
      },
      headers: { origin: APP_ORIGIN, 'idempotency-key': crypto.randomUUID() },
    });
    expect(res.status(), await res.text()).toBe(201);
    const targetCard = page.getByRole('region', { name: `Journal for ${target.formattedRange}` });
    await targetCard.getByRole('button', { name: /^Post Journal to Xero/ }).click();
    await expect(page.getByText('Journal Already Exists', { exact: true })).toBeVisible();
    await expect(
      page.getByText(
        'A journal entry already exists for this period. Check your Xero account for the existing journal.',
        { exact: true },
      ),
    ).toBeVisible();
    // The entries are read again: the period now shows its draft and cannot be posted twice.
    await expect(targetCard.getByRole('button', { name: 'Draft Journal Created' })).toBeDisabled();
    expect(
      (await journalWrites(page)).filter(
        (w) =>
          withoutMark(w.summary.narration) === getStockJournalReference(target.periodStart, target.periodEnd),
      ),
    ).toHaveLength(1);
  });

  test('fires each posting check for its case', async ({ page }) => {
    const periods = await loadPeriods(page, ids.dailySales);
    const taken = new Set((await loadEntries(page)).map((e) => `${e.periodStart}_${e.periodEnd}`));
    const week = periods.find(
      (p) =>
        isSameMonth(p.weekStart, p.weekEnd) && p.netTotal > 0 && !taken.has(`${p.weekStart}_${p.weekEnd}`),
    );
    if (!week) throw new Error('no free week');
    const before = (await journalWrites(page)).length;
    await openScreen(page);
    const post = page
      .getByRole('region', { name: `Journal for ${week.formattedRange}` })
      .getByRole('button', { name: 'Post Journal to Xero', exact: true });

    // 1. Customer must be specific.
    await page.getByRole('combobox', { name: 'Customer' }).click();
    await page.getByRole('option', { name: 'All Customers', exact: true }).click();
    await expand(page, week.formattedRange);
    await post.click();
    await expect(page.getByText('Customer Required', { exact: true })).toBeVisible();
    await expect(
      page.getByText(
        "Please select a specific customer in the settings page under 'Stock Journal Settings'.",
        { exact: true },
      ),
    ).toBeVisible();

    // 2. Stock account, cost account and margin rate all set.
    await page.getByRole('combobox', { name: 'Customer' }).click();
    await page.getByRole('option', { name: 'Daily Sales', exact: true }).click();
    await page.getByLabel('Margin Rate', { exact: true }).fill('');
    await expand(page, week.formattedRange);
    await post.click();
    await expect(page.getByText('Configuration Required', { exact: true })).toBeVisible();
    await expect(
      page.getByText('Please complete the stock journal settings first.', { exact: true }),
    ).toBeVisible();

    // 3. Margin rate a number above zero.
    await page.getByLabel('Margin Rate', { exact: true }).fill('0');
    await post.click();
    await expect(page.getByText('Invalid Margin Rate', { exact: true })).toBeVisible();
    await expect(
      page.getByText('Margin rate must be a positive number greater than zero.', { exact: true }),
    ).toBeVisible();

    // 4. Net above 0: the button itself is disabled for a period without sales (docs/product/features.md §4),
    //    so the check never needs to speak.
    const zeroHalf = periods.flatMap((p) => splitSalesPeriod(p)).find((p) => p.netTotal <= 0);
    if (zeroHalf) {
      const zeroWeek = periods.find(
        (p) => p.weekStart <= zeroHalf.periodStart && p.weekEnd >= zeroHalf.periodEnd,
      );
      if (zeroWeek) {
        await expand(page, zeroWeek.formattedRange);
        await expect(
          page
            .getByRole('region', { name: `Journal for ${zeroHalf.formattedRange}` })
            .getByRole('button', { name: /^Post Journal/ }),
        ).toBeDisabled();
      }
    }

    // Settings without a stock account: the screen says where to fix it, and the check fires.
    await saveSettings(page, { defaultStockJournalStockAccountId: null });
    await openScreen(page);
    await expect(page.getByText('Stock journal settings incomplete', { exact: true })).toBeVisible();
    await expand(page, week.formattedRange);
    await post.click();
    await expect(page.getByText('Configuration Required', { exact: true })).toBeVisible();
    expect((await journalWrites(page)).length).toBe(before);
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`looks finished: the chart, the weeks and an open week, ${theme}, ${width}px`, async ({
        page,
      }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/stock-journal');
        await setTheme(page, theme);
        await openScreen(page);
        await expect(page.getByRole('img', { name: /Net sales and cost of sales/ })).toBeVisible();
        await expect(page.locator('.recharts-bar-rectangle').first()).toBeVisible();
        await screenshot(page, `stock-journal-${theme}-${width}`);
        const periods = await loadPeriods(page, ids.dailySales);
        const week = periods.find(
          (p) => isSameMonth(p.weekStart, p.weekEnd) && p.weekEnd < getWeekEnd(addDays(today, -7)),
        );
        if (!week) throw new Error('no week');
        await expand(page, week.formattedRange);
        await screenshot(page, `stock-journal-open-${theme}-${width}`);
        // What a person sees without scrolling past the open week: the journal card at this width.
        await page
          .getByRole('region', { name: `Journal for ${week.formattedRange}` })
          .scrollIntoViewIfNeeded();
        await page.screenshot({ path: `e2e/screenshots/stock-journal-open-view-${theme}-${width}.png` });
      });
    }
  }

  // FIXME (found by the whole e2e suite at the end of the stop that added it): after a sandbox reset mid-file, the
  // weekly sales read (GET /api/xero/sales) never answers and the test times out at 3 minutes; alone it passed.
  // The wording it checks is covered by stock-journal.test.ts ("describes creation and sync") and
  // stock-journal-page.test.tsx. The hang is the open question, not the wording.
  test('an organisation that posts journals as POSTED is told the journal was posted (issue 17 item 4)', async ({
    page,
  }) => {
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    ids = await saveSettings(page, { defaultStockJournalPostingStatus: 'posted' });
    await page.request.delete(`${SANDBOX_URL}/__sandbox/ledger`);
    try {
      const periods = await loadPeriods(page, ids.dailySales);
      const seeded = seededWeekEnds();
      // Weeks this file's earlier tests posted stay posted in Ledgerlink's records after the sandbox reset.
      const taken = new Set((await loadEntries(page)).map((e) => `${e.periodStart}_${e.periodEnd}`));
      const week = periods.find(
        (p) =>
          isSameMonth(p.weekStart, p.weekEnd) &&
          p.netTotal > 0 &&
          !seeded.includes(p.weekEnd) &&
          !taken.has(`${p.weekStart}_${p.weekEnd}`) &&
          p.weekEnd < addDays(today, -21),
      );
      if (!week) throw new Error('no whole week to post');
      await openScreen(page);
      await expand(page, week.formattedRange);
      const journalCard = page.getByRole('region', { name: `Journal for ${week.formattedRange}` });
      await journalCard.getByRole('button', { name: 'Post Journal to Xero', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm Stock Journal' });
      await dialog.getByRole('button', { name: 'Post Journal to Xero' }).click();
      await expect(page.getByText('Journal Posted Successfully!', { exact: true })).toBeVisible();
      await expect(
        page.getByText(`Journal for ${week.formattedRange} has been posted in Xero.`, { exact: true }),
      ).toBeVisible();
      await expect(page.getByText(/Draft journal for/)).toHaveCount(0);
      await screenshot(page, 'stock-journal-posted-toast-light-1280');
      const [write] = await journalWrites(page);
      expect(write?.summary.status).toBe('POSTED');
    } finally {
      ids = await saveSettings(page);
    }
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`at 375 px an open week's invoices stack as cards, no sideways scroll (issue 17 item 13), ${theme}`, async ({
      page,
    }) => {
      await page.setViewportSize({ width: 375, height: 800 });
      await setTheme(page, theme);
      await openScreen(page);
      const periods = await loadPeriods(page, ids.dailySales);
      const week = periods.find(
        (p) => isSameMonth(p.weekStart, p.weekEnd) && p.netTotal > 0 && p.weekEnd < addDays(today, -7),
      );
      if (!week) throw new Error('no week');
      await expand(page, week.formattedRange);
      const list = page.getByRole('list', { name: 'Sales invoices of the period' });
      await expect(list.getByRole('listitem').first()).toBeVisible();
      await expect(page.getByRole('table', { name: 'Sales invoices of the period' })).toHaveCount(0);
      const card = list.getByRole('listitem').first();
      await card.scrollIntoViewIfNeeded();
      for (const label of ['Gross', 'VAT', 'Net'])
        await expect(card.getByText(label, { exact: true })).toBeInViewport();
      const overflow = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        inside: [...document.querySelectorAll('ul[aria-label="Sales invoices of the period"] *')].filter(
          (el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible',
        ).length,
      }));
      expect(overflow).toEqual({ page: 0, inside: 0 });
      await list.screenshot({ path: `e2e/screenshots/stock-journal-invoice-cards-${theme}-375.png` });
    });
  }

  test('exports the period list as CSV', async ({ page }) => {
    await openScreen(page);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(
      /^stock-journal-daily-sales-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const text = (await (await file.createReadStream()).toArray()).join('');
    const lines = text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"Week start","Week end","Journal period start","Journal period end","Invoices","Gross","VAT","Net","Margin rate","Journal amount","Journal status","Journal ID","Reference"',
    );
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.some((l) => l.includes('"Draft"'))).toBe(true);
  });
});
