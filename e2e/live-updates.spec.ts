import type { Browser, Page } from '@playwright/test';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  sandbox,
  screenshot,
  signInByApi,
  test,
} from './fixtures';
import { payInOneBrowserAndInXero } from './paid-elsewhere';

async function api<T>(
  page: Page,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  data?: unknown,
): Promise<T> {
  const res = await page.request.fetch(path, { method, data, headers: { origin: APP_ORIGIN } });
  expect(res.ok(), `${method} ${path}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

async function openBrowser(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

// Issue 18: two browsers on Pay Invoices of one organisation; what one pays, and what a person pays in Xero
// itself, reaches the other within 2 s through Xero's webhooks (the sandbox's, in demo mode) and the live
// stream, and the other cannot send a payment against the balance it showed before.
test('a payment made in another browser, and one made in Xero, reach an open Pay Invoices without a reload', async ({
  browser,
}) => {
  const first = await openBrowser(browser);
  const second = await openBrowser(browser);
  try {
    await resetSandbox(first.page);
    await connectDemo(first.page, { active: 'Demo Shop Ltd' });
    await signInByApi(second.page);
    await payInOneBrowserAndInXero({
      first: first.page,
      second: second.page,
      api: (method, path, data) => api(first.page, method, path, data),
      payInXero: async (invoiceId, body) => {
        await sandbox(second.page, `/__sandbox/invoices/${invoiceId}/pay`, body);
      },
      whenPaidInXero: (page) => screenshot(page, 'pay-invoices-paid-elsewhere-light-1280'),
    });
  } finally {
    await first.context.close();
    await second.context.close();
  }
});
