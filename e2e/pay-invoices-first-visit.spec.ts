import type { Route } from '@playwright/test';
import { connectDemo, expect, resetSandbox, screenshot, test } from './fixtures';

interface Invoice {
  invoiceId: string;
  invoiceNumber: string;
}

/**
 * Issue 19, first open without the wait, in Chromium against the real server. The demo seed's Demo Shop fits
 * in one page of Xero's, so the server's answers are passed through with the list cut to its first half and the
 * sync header saying "1,000 of 5,048" until the test lets the whole answer through: what a browser sees while a
 * large organisation's later pages are still being read. (The server's side, pages read in the background under
 * the lease, is src/server/modules/pay-invoices/pay-invoices.first-visit.test.ts.)
 */
test.describe('Pay Invoices, first visit', () => {
  test('shows the first invoices with a progress bar and partial counts, then the whole list', async ({
    page,
  }) => {
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    const whole = await page.request.get('/api/xero/invoices');
    expect(whole.status()).toBe(200);
    // The real server says how complete its answer is.
    expect(JSON.parse(whole.headers()['x-invoices-sync'] ?? 'null')).toMatchObject({ complete: true });
    const all = (await whole.json()) as Invoice[];
    expect(all.length).toBeGreaterThan(20);
    const firstPage = Math.ceil(all.length / 2);

    let isPartial = true;
    let asked = 0;
    await page.route(
      (url) => url.pathname === '/api/xero/invoices',
      async (route: Route) => {
        asked += 1;
        const response = await route.fetch();
        if (!isPartial) return route.fulfill({ response });
        const list = ((await response.json()) as Invoice[]).slice(0, firstPage);
        return route.fulfill({
          response,
          body: JSON.stringify(list),
          headers: {
            ...response.headers(),
            'content-type': 'application/json; charset=utf-8',
            'x-invoices-sync': JSON.stringify({ complete: false, fetched: 1000, total: 5048 }),
            etag: `"partial-${asked}"`,
          },
        });
      },
    );

    await page.goto('/invoices');
    const bar = page.getByRole('progressbar', { name: 'Loading invoices from Xero' });
    await expect(bar).toBeVisible();
    await expect(bar).toHaveAttribute('aria-valuenow', '1000');
    await expect(bar).toHaveAttribute('aria-valuemax', '5048');
    await expect(page.getByText('Loading invoices from Xero: 1,000 of 5,048')).toBeVisible();
    await expect(
      page.getByText('Search, sort and counts cover only the invoices loaded so far.'),
    ).toBeVisible();
    await expect(page.getByText(/^\d+ invoices awaiting payment \(so far\)$/)).toBeVisible();
    await expect(page.getByLabel(/^Invoice 1 of \d+ so far$/)).toBeVisible();
    // The screen asks again by itself while the list is partial.
    const askedBefore = asked;
    await expect.poll(() => asked).toBeGreaterThan(askedBefore);
    await screenshot(page, 'pay-invoices-first-visit-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await expect(bar).toBeVisible();
    await screenshot(page, 'pay-invoices-first-visit-375');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The server has read the rest: the next answer is whole, and the bar and the marks go.
    isPartial = false;
    await expect(bar).toBeHidden();
    await expect(page.getByText(`${all.length} invoices awaiting payment`, { exact: true })).toBeVisible();
    await expect(page.getByText('(so far)')).toHaveCount(0);
    await expect(page.getByLabel(`Invoice 1 of ${all.length}`, { exact: true })).toBeVisible();
  });
});
