/**
 * Issue 33 items 6 and the replay's `undone` (issue 28): what Pay Invoices says after a payment. The success
 * banner shows its whole message at 1280 and 375 px; toasts offer the next step as a button (Undo after a
 * payment, Retry after Xero or the network did not answer, Open Settings when a default is missing); a resend
 * of a payment that was undone since says so instead of "Payment Successful!" with an Undo.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page, Request } from '@playwright/test';
import { formatMoney } from '../src/shared/money';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  SANDBOX_URL,
  screenshot,
  test,
  animationsSettled,
} from './fixtures';

interface Invoice {
  invoiceId: string;
  invoiceNumber: string;
  status: string;
  amountDue: number;
}
interface BankAccounts {
  creditCardAccounts: { accountId: string; name: string }[];
  cashAccounts: { accountId: string; name: string }[];
}
interface LedgerWrite {
  tenantName: string;
  kind: string;
  action: string;
  summary: Record<string, string | number | boolean | null>;
}

const money = (value: number) => formatMoney(value, 'GBP');
const pence = (pounds: number) => Math.round(pounds * 100);
const PAYMENTS = /\/api\/xero\/payments(\?|$)/;

async function api<T>(page: Page, method: 'GET' | 'POST' | 'PATCH', path: string, data?: unknown) {
  const res = await page.request.fetch(path, { method, data, headers: { origin: APP_ORIGIN } });
  expect(res.ok(), `${method} ${path}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

async function shopPayments(page: Page): Promise<LedgerWrite[]> {
  const ledger = (await (await page.request.get(`${SANDBOX_URL}/__sandbox/ledger`)).json()) as {
    writes: LedgerWrite[];
  };
  return ledger.writes.filter((w) => w.kind === 'payment' && w.tenantName === 'Demo Shop Ltd');
}

async function openShop(page: Page) {
  const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
  const accounts = await api<BankAccounts>(page, 'GET', '/api/xero/bank-accounts');
  await api(page, 'PATCH', '/api/xero/settings', {
    defaultCreditCardAccountId: accounts.creditCardAccounts.find((a) => a.name === 'Business Credit Card')
      ?.accountId,
    defaultCashAccountId: accounts.cashAccounts.find((a) => a.name === 'Cash')?.accountId,
  });
  await api(page, 'POST', '/api/xero/invoices/refresh');
  const invoices = await api<Invoice[]>(page, 'GET', '/api/xero/invoices');
  return { orgs, invoices: invoices.filter((i) => i.status !== 'PARTIAL' && i.amountDue > 50) };
}

async function showInvoice(page: Page, invoice: Invoice) {
  await page.getByRole('searchbox', { name: 'Search invoices' }).fill(invoice.invoiceNumber);
  await expect(page.getByRole('heading', { name: invoice.invoiceNumber, exact: true })).toBeVisible();
  await expect(page.getByText('1 of 1')).toBeVisible();
}

/** Types a card amount and leaves the cash empty: a part payment, whose banner carries the longest text. */
async function payByCard(page: Page, amount: string) {
  await page.getByRole('textbox', { name: 'Card amount' }).fill(amount);
  await page.getByRole('textbox', { name: 'Cash amount' }).fill('');
  await page.getByRole('button', { name: 'Process Payments' }).first().click();
}

const toastOf = (page: Page, title: string) => page.locator('.toast-root').filter({ hasText: title });

async function noSeriousViolations(page: Page, label: string) {
  await animationsSettled(page);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
}

test.describe('Pay Invoices: what the screen says after a payment (issue 33)', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });

  for (const width of [1280, 375]) {
    test(`the success banner shows its whole message and the toast offers Undo, ${width}px`, async ({
      page,
    }) => {
      // The banner shows for 1.5 s of the page's clock (docs/product/features.md), less than these checks take on a
      // busy machine (issue 46: at load 14 the banner had gone before the hover reached it). So the page's clock is
      // held from the press of Process Payments and moved on by the test alone: in small steps until the banner
      // shows, then by a third of its time. The checks read a banner that cannot leave, and the clock runs again once
      // the pointer holds it. Checked with the banner's time cut to 30 ms: this passes; hovering after
      // `toBeVisible`, as before, timed out on the hover.
      await page.clock.install();
      await resetSandbox(page);
      const { invoices } = await openShop(page);
      const target = invoices[width === 1280 ? 0 : 1] as Invoice;
      await page.setViewportSize({ width, height: 800 });
      await page.goto('/invoices');
      await showInvoice(page, target);
      const before = (await shopPayments(page)).length;
      await page.clock.pauseAt(Date.now() + 1000);
      await payByCard(page, '10');

      const banner = page.getByRole('status').filter({ hasText: 'Payment Successful!' });
      const detail = banner.getByText(`${target.invoiceNumber} · Remaining balance: `);
      const success = toastOf(page, 'Payments Processed Successfully');
      // 20 ms of the page's time a look: the payment's answer comes on the machine's time, the banner's 1.5 s does not.
      await expect
        .poll(async () => {
          if (await banner.isVisible()) return true;
          await page.clock.runFor(20);
          return false;
        })
        .toBe(true);
      // Then half a second of the page's time, a third of the banner's: the screen's own steps after the payment
      // (the toast's entrance, the invoice shown anew) run on the page's timers, so they are let finish.
      await page.clock.runFor(500);
      // The banner and the payment's toast come together, and neither covers the other: on a phone the toasts
      // come down over the header (issue 45), the banner sits at the foot of the screen.
      await expect(success).toBeVisible();
      const [bannerBox, toastBox] = [await banner.boundingBox(), await success.boundingBox()];
      expect(
        !!bannerBox &&
          !!toastBox &&
          (bannerBox.y + bannerBox.height <= toastBox.y ||
            toastBox.y + toastBox.height <= bannerBox.y ||
            bannerBox.x + bannerBox.width <= toastBox.x ||
            toastBox.x + toastBox.width <= bannerBox.x),
        `banner ${JSON.stringify(bannerBox)} and toast ${JSON.stringify(toastBox)} overlap`,
      ).toBe(true);
      await expect(detail).toHaveText(
        `${target.invoiceNumber} · Remaining balance: ${money(pence(target.amountDue) - 1000)}`,
      );
      // Not cut off: the text fits its box and the box fits the screen.
      expect(await detail.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      const box = await banner.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= width).toBe(true);
      await expect(banner.getByRole('button', { name: 'Undo' })).toBeVisible();
      await expect(banner.getByText('PARTIAL')).toBeVisible();
      await animationsSettled(page);
      await screenshot(page, `pay-invoices-success-banner-${width}`);
      // The pointer holds the banner, and the page's time runs again for the toast's Undo below.
      await banner.hover();
      await page.clock.resume();

      // The toast says one payment, and offers Undo as a button.
      await expect(success).toContainText(`Processed 1 payment for invoice ${target.invoiceNumber}`);
      // Focus on the toast's button holds the toast (and reaches it by keyboard) while axe reads the screen.
      const undo = success.getByRole('button', { name: 'Undo' });
      await undo.focus();
      await noSeriousViolations(page, `success banner and toast ${width}px`);
      await page.keyboard.press('Enter');
      await expect(toastOf(page, 'Payment Undone')).toContainText(
        `The payment for invoice ${target.invoiceNumber} was removed from Xero.`,
      );
      await expect(page.getByRole('button', { name: /^Undo/ })).toHaveCount(0);
      const writes = (await shopPayments(page)).slice(before);
      expect(writes.map((w) => [w.action, w.summary.amount])).toEqual([
        ['create', 10],
        ['delete', 10],
      ]);
    });
  }

  test('Retry after the network failed sends the same payment under the same key, once', async ({ page }) => {
    const { invoices } = await openShop(page);
    const target = invoices[2] as Invoice;
    await page.goto('/invoices');
    await showInvoice(page, target);
    const before = (await shopPayments(page)).length;
    const keys: string[] = [];
    const seen = (request: Request) => {
      if (request.method() === 'POST' && PAYMENTS.test(request.url()))
        keys.push(request.headers()['idempotency-key'] ?? '');
    };
    page.on('request', seen);
    await page.route(PAYMENTS, (route) => route.abort('connectionfailed'));
    await payByCard(page, '10');
    const failed = toastOf(page, 'Payment Failed');
    await expect(failed).toBeVisible({ timeout: 15_000 });
    expect((await shopPayments(page)).length).toBe(before);
    await screenshot(page, 'pay-invoices-retry-toast-1280');
    await page.unroute(PAYMENTS);

    // The keyboard reaches the Retry: F8 is the toast area's hotkey.
    await page.keyboard.press('F8');
    await page.keyboard.press('Tab');
    const retry = failed.getByRole('button', { name: 'Retry' });
    for (let i = 0; i < 4 && !(await retry.evaluate((el) => el === document.activeElement)); i += 1)
      await page.keyboard.press('Tab');
    await expect(retry).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'Payment Successful!' })).toBeVisible();
    page.off('request', seen);
    // Every attempt, the Retry included, carried the one key made when Process Payments was pressed.
    expect(new Set(keys).size).toBe(1);
    expect(keys.length).toBeGreaterThan(1);
    const writes = (await shopPayments(page)).slice(before);
    expect(writes.map((w) => [w.action, w.summary.invoiceNumber, w.summary.amount])).toEqual([
      ['create', target.invoiceNumber, 10],
    ]);
  });

  test('a resend of a payment undone since says so: not "Payment Successful!", no Undo', async ({ page }) => {
    const { invoices } = await openShop(page);
    const target = invoices[3] as Invoice;
    await page.goto('/invoices');
    await showInvoice(page, target);
    const before = (await shopPayments(page)).length;
    // The first attempt reaches the server and Xero records the payment, but its answer is lost on the way;
    // before the screen's own retry (same key) arrives, the payment is undone (another tab of this user).
    let lost = false;
    await page.route(PAYMENTS, async (route) => {
      if (lost) return route.continue();
      lost = true;
      const answer = await route.fetch();
      const body = (await answer.json()) as { paymentId: string };
      await api(page, 'POST', `/api/xero/payments/${body.paymentId}/undo`);
      await route.abort('connectionfailed');
    });
    await payByCard(page, '10');
    const undone = toastOf(page, 'Payment Was Undone');
    await expect(undone).toBeVisible({ timeout: 15_000 });
    await expect(undone).toContainText(`This payment (card £10.00) was recorded and then undone at `);
    await expect(undone).toContainText(
      `nothing was paid now. ${money(pence(target.amountDue))} is still due on ${target.invoiceNumber}.`,
    );
    await expect(page.getByText('Payment Successful!')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Undo/ })).toHaveCount(0);
    await expect(page.getByText('Amount due').locator('..')).toContainText(money(pence(target.amountDue)));
    await screenshot(page, 'pay-invoices-undone-replay-1280');
    await page.unroute(PAYMENTS);
    const writes = (await shopPayments(page)).slice(before);
    expect(writes.map((w) => [w.action, w.summary.amount])).toEqual([
      ['create', 10],
      ['delete', 10],
    ]);
  });

  test('Add Invoices: a refusal for a missing default offers Open Settings at that field', async ({
    page,
  }) => {
    const { orgs } = await openShop(page);
    const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('Demo Shop not connected');
    await api(page, 'PATCH', '/api/xero/settings', { defaultCashAccountId: null });
    await page.goto('/add-invoices');
    const row = page.locator('tbody tr[data-invoice-id]').first();
    await expect(row).toBeVisible();
    const cash = row.getByLabel(/^Cash amount for /);
    await cash.fill('5');
    await row.getByRole('button', { name: /^Process / }).click();
    const refused = toastOf(page, 'Error processing invoice');
    await expect(refused).toContainText('No default cash account is set for this organization.');
    await screenshot(page, 'add-invoices-open-settings-toast-1280');
    await refused.getByRole('button', { name: 'Open Settings' }).click();
    await page.waitForURL(/\/settings\?/);
    const target = new URL(page.url()).searchParams;
    expect([target.get('org'), target.get('field')]).toEqual([
      String(shop.organizationId),
      'defaultCashAccountId',
    ]);
    await expect(page.getByRole('combobox', { name: 'Cash account', exact: true })).toBeFocused();
  });
  test('the keyboard hint is true where the cursor is (issue 33 item 7)', async ({ page }) => {
    await openShop(page);
    await page.goto('/invoices');
    await expect(page.getByText(/^1 of \d+$/)).toBeVisible();
    const hint = page.getByLabel('Keyboard shortcuts');
    await page.getByRole('heading', { name: 'Pay Invoices' }).click();
    await expect(hint).toContainText('← → or PgUp PgDn previous / next');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByText(/^2 of \d+$/)).toBeVisible();
    // The invoice changed: the cursor is in the card amount, where ← → and digits are the amount's.
    const card = page.getByRole('textbox', { name: 'Card amount' });
    await expect(card).toBeFocused();
    await expect(hint).toContainText('Esc leave the amount for ← → 1 2');
    await expect(hint).not.toContainText('1 card amount');
    await screenshot(page, 'pay-invoices-keyboard-hint-amount-1280');
    // '/' from the amount goes to the search, as the hint says.
    await page.keyboard.press('/');
    const search = page.getByRole('searchbox', { name: 'Search invoices' });
    await expect(search).toBeFocused();
    await expect(search).toHaveValue('');
    await expect(hint).not.toContainText('/ search');
    // Esc in the amount gives the arrows back.
    await card.click();
    await page.keyboard.press('Escape');
    await expect(card).not.toBeFocused();
    await expect(hint).toContainText('1 card amount');
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByText(/^1 of \d+$/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
  });
});
