import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { TodayRow } from '../src/shared/practice';
import {
  connectDemo,
  expect,
  resetSandbox,
  sandbox,
  screenshot,
  setTheme,
  test,
  animationsSettled,
} from './fixtures';

// Issue 47: a bookkeeper's morning. Someone who keeps more than one organisation lands on Today: one row per
// organisation, most urgent first, each figure opening its screen on that organisation; a change made in Xero
// reaches the row without a reload.

const SHOP = 'Demo Shop Ltd';
const BUILDERS = 'Demo Builders Ltd';

async function axeProblems(page: Page, label: string): Promise<string[]> {
  await animationsSettled(page);
  const results = await new AxeBuilder({ page }).analyze();
  const problems = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.impact}) → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  if (overflow > 0) problems.push(`${label}: the page scrolls sideways by ${overflow}px`);
  return problems;
}

/** The rows as the server has them, once every organisation has been read. */
async function readyRows(page: Page): Promise<TodayRow[]> {
  let rows: TodayRow[] = [];
  await expect
    .poll(
      async () => {
        rows = (await (await page.request.get('/api/practice/today')).json()) as TodayRow[];
        return rows.length > 0 && rows.every((r) => r.status === 'ready');
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return rows;
}

/** An organisation's row on screen: a table row at 1280 px, a card on a phone. */
function rowOf(page: Page, name: string) {
  return page
    .getByRole('table', { name: 'Organisations, most urgent first' })
    .getByRole('row')
    .or(page.getByRole('list', { name: 'Organisations, most urgent first' }).getByRole('listitem'))
    .filter({ hasText: name });
}

test.describe('Today', () => {
  test('is the landing page for two organisations, and each figure opens its screen on that organisation', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await resetSandbox(page);
    await connectDemo(page, { active: BUILDERS });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/');
    await expect(page).toHaveURL(/\/today$/);
    await expect(page.getByRole('heading', { name: 'Today', level: 1 })).toBeVisible();
    const rows = await readyRows(page);
    await expect(page.getByRole('progressbar')).toHaveCount(0, { timeout: 30_000 });
    const shopRow = rows.find((r) => r.tenantName === SHOP)!;
    const builderRow = rows.find((r) => r.tenantName === BUILDERS)!;

    // The rows on screen, in the server's order (most urgent first), with the figures it holds.
    const names = await page
      .getByRole('table', { name: 'Organisations, most urgent first' })
      .getByRole('row')
      .evaluateAll((trs) => trs.slice(1).map((tr) => tr.querySelector('td span')?.textContent ?? ''));
    expect(names).toEqual(rows.map((r) => r.tenantName));
    const shop = rowOf(page, SHOP);
    await expect(
      shop.getByRole('link', { name: new RegExp(`^${SHOP}: ${shopRow.draftInvoices} drafts? to approve$`) }),
    ).toHaveAttribute('href', `/add-invoices?org=${shopRow.organizationId}`);
    await expect(
      rowOf(page, BUILDERS).getByRole('link', { name: /CIS return for the tax month/ }),
    ).toHaveAttribute(
      'href',
      `/cis-returns?org=${builderRow.organizationId}&period=${builderRow.cis?.period}`,
    );
    expect(await axeProblems(page, '/today 1280')).toEqual([]);
    await screenshot(page, 'today-1280');

    // Demo Builders is the active organisation: the shop's drafts open Add Invoices on the shop.
    await shop.getByRole('link', { name: /drafts? to approve$/ }).click();
    await expect(page).toHaveURL(new RegExp(`/add-invoices\\?org=${shopRow.organizationId}$`));
    await expect(page.getByRole('heading', { name: /^Add Invoices/, level: 1 })).toBeVisible({
      timeout: 20_000,
    });
    await expect(page.getByText('Now working with: Demo Shop Ltd').first()).toBeVisible();
    const connection = (await (await page.request.get('/api/xero/connection')).json()) as {
      organizationId: number;
    };
    expect(connection.organizationId).toBe(shopRow.organizationId);

    // The Organizations page keeps its texts and is one click away.
    await page.goto('/today');
    await page.getByRole('link', { name: 'Your Xero Organizations' }).click();
    await expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible();
    await page.getByRole('link', { name: 'Today' }).click();
    await expect(page).toHaveURL(/\/today$/);
  });

  test('a payment made in Xero reaches the open row without a reload', async ({ page }) => {
    test.setTimeout(120_000);
    await resetSandbox(page);
    const orgs = await connectDemo(page, { active: SHOP });
    const shopId = orgs.find((o) => o.tenantName === SHOP)!.organizationId;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/today');
    const before = (await readyRows(page)).find((r) => r.organizationId === shopId)!;
    const link = rowOf(page, SHOP).getByRole('link', { name: /invoices? awaiting payment/ });
    await expect(link).toHaveText(
      `${before.invoicesAwaiting!.count.toLocaleString('en-GB')} · ${formatGbp(before.invoicesAwaiting!.amount)}`,
    );
    const invoices = (await (await page.request.get(`/api/xero/invoices?org=${shopId}`)).json()) as Array<{
      invoiceId: string;
      amountDue: number;
      status: string;
    }>;
    const target = invoices.find((i) => i.status === 'AUTHORISED' && i.amountDue > 1)!;
    // As a person in Xero's own web app: the invoice is paid in full.
    await sandbox(page, `/__sandbox/invoices/${target.invoiceId}/pay`, { amount: target.amountDue });
    await expect(link).toHaveText(
      new RegExp(`^${(before.invoicesAwaiting!.count - 1).toLocaleString('en-GB')} · `),
      {
        timeout: 20_000,
      },
    );
  });

  test('at 375 px each organisation is a card, nothing scrolls sideways, and axe finds nothing serious', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await connectDemo(page, { active: SHOP });
    await page.setViewportSize({ width: 375, height: 900 });
    for (const theme of ['light', 'dark'] as const) {
      await page.goto('/today');
      await setTheme(page, theme);
      await page.reload();
      await readyRows(page);
      const cards = page
        .getByRole('list', { name: 'Organisations, most urgent first' })
        .getByRole('listitem');
      await expect(cards).toHaveCount(2);
      await expect(cards.filter({ hasText: SHOP }).getByText('Drafts to approve')).toBeVisible();
      expect(await axeProblems(page, `/today 375 ${theme}`)).toEqual([]);
      await screenshot(page, `today-375-${theme}`);
    }
    await setTheme(page, 'light');
  });
});

function formatGbp(amount: number): string {
  return `£${amount.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
