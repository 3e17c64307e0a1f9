import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  screenshot,
  setTheme,
  test,
  animationsSettled,
} from './fixtures';

/** Picks an option of a labelled select inside a card. */
async function choose(page: Page, card: Locator, label: string, option: string) {
  await card.getByLabel(label, { exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
  await expect(card.getByLabel(label, { exact: true })).toContainText(option);
}

/** Picks a contact through the server search of the contact selector. */
async function chooseContact(page: Page, card: Locator, label: string, search: string, option: string) {
  await card.getByLabel(label, { exact: true }).click();
  await page.getByRole('textbox', { name: 'Search contacts' }).fill(search);
  await page.getByRole('option', { name: option, exact: true }).click();
  await expect(card.getByLabel(label, { exact: true })).toContainText(option);
}

const card = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** The toast showing this text (Radix also announces it in a hidden live region). */
const toastWith = (page: Page, text: string) => page.locator('.toast-root').filter({ hasText: text });

async function patchAsAdmin(page: Page, url: string, data: unknown) {
  const res = await page.request.patch(url, { data, headers: { origin: APP_ORIGIN } });
  return { status: res.status(), body: await res.json() };
}

test.describe('settings', () => {
  let shopId = 0;

  test.beforeEach(async ({ page }) => {
    await resetSandbox(page);
    const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
    shopId = orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
  });

  test('saves every default, keeps them after a reload, and restores them', async ({ page }) => {
    // Thirty-odd choices through the real selects: slow on a busy machine.
    test.setTimeout(180_000);
    await page.goto(`/settings?org=${shopId}`);
    await expect(page.getByText('Defaults for Demo Shop Ltd')).toBeVisible();
    const pay = card(page, 'Pay Invoices');
    const add = card(page, 'Add Invoices');
    const cis = card(page, 'CIS Bills');
    const stock = card(page, 'Stock Journal');

    await choose(page, pay, 'Credit card account', 'Business Credit Card');
    await choose(page, pay, 'Cash account', 'Cash');
    await choose(page, add, 'Sales account', 'Sales (200)');
    await choose(page, add, 'VAT rate', '20% (VAT on Income)');
    await chooseContact(page, add, 'Default contact', 'daily', 'Daily Sales');
    await choose(page, add, 'Tax status', 'Tax exclusive');
    await choose(page, cis, 'Bill account', 'Cost of Goods Sold (310)');
    await choose(page, cis, 'Bill VAT rate', '20% (VAT on Expenses)');
    await choose(page, cis, 'CIS subcontractors group', 'Suppliers');
    await chooseContact(page, stock, 'Stock journal contact', 'Daily', 'Daily Sales');
    await stock.getByLabel('Margin rate').fill('1.5');
    await expect(stock.getByText('£100.00 of net sales posts £66.67.')).toBeVisible();
    await choose(page, stock, 'Stock account', 'Inventory (630)');
    await choose(page, stock, 'Cost account', 'Cost of Goods Sold (310)');
    await choose(page, stock, 'Posting status', 'Posted');
    await expect(page.getByText('You have unsaved changes.')).toBeVisible();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await expect(toastWith(page, 'Settings Saved')).toBeVisible();
    await expect(toastWith(page, 'Your settings have been updated successfully.')).toBeVisible();
    await expect(page.getByText('You have unsaved changes.')).toBeHidden();

    const saved = await (await page.request.get('/api/xero/connection')).json();
    expect(saved).toMatchObject({
      defaultTaxStatus: 'Tax exclusive',
      defaultStockJournalMarginRate: 1.5,
      defaultStockJournalPostingStatus: 'posted',
      defaultVatRateId: 'OUTPUT2',
    });
    const stored = JSON.parse(
      (await page.evaluate(() => localStorage.getItem('xero_saved_defaults'))) ?? '{}',
    );
    expect(stored).toMatchObject({
      defaultBillAccountId: saved.defaultBillAccountId,
      defaultBillVatRateId: 'INPUT2',
      defaultStockJournalMarginRate: 1.5,
    });

    await page.reload();
    await expect(pay.getByLabel('Credit card account')).toContainText('Business Credit Card');
    await expect(pay.getByLabel('Cash account')).toContainText('Cash');
    await expect(add.getByLabel('Sales account')).toContainText('Sales (200)');
    await expect(add.getByLabel('Default contact')).toContainText('Daily Sales');
    await expect(add.getByLabel('Tax status')).toContainText('Tax exclusive');
    await expect(cis.getByLabel('CIS subcontractors group')).toContainText('Suppliers');
    await expect(stock.getByLabel('Margin rate')).toHaveValue('1.5');
    await expect(stock.getByLabel('Stock account')).toContainText('Inventory (630)');
    await expect(stock.getByLabel('Posting status')).toContainText('Posted');

    // Back to how they were: "None" clears a default.
    for (const [c, label] of [
      [pay, 'Credit card account'],
      [pay, 'Cash account'],
      [add, 'Sales account'],
      [add, 'VAT rate'],
      [cis, 'Bill account'],
      [cis, 'Bill VAT rate'],
      [cis, 'CIS subcontractors group'],
      [stock, 'Stock account'],
      [stock, 'Cost account'],
    ] as const) {
      await choose(page, c, label, 'None');
    }
    await chooseContact(page, add, 'Default contact', '', 'None');
    await chooseContact(page, stock, 'Stock journal contact', '', 'None');
    await choose(page, add, 'Tax status', 'Tax inclusive');
    await stock.getByLabel('Margin rate').fill('1.35');
    await choose(page, stock, 'Posting status', 'Draft');
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await expect(toastWith(page, 'Settings Saved')).toBeVisible();
    await page.reload();
    await expect(pay.getByLabel('Cash account')).toContainText('None');
    await expect(add.getByLabel('Default contact')).toContainText('None');
    await expect(stock.getByLabel('Margin rate')).toHaveValue('1.35');
    const restored = await (await page.request.get('/api/xero/connection')).json();
    expect(restored).toMatchObject({
      defaultCashAccountId: '',
      defaultContactId: '',
      defaultTaxStatus: 'Tax inclusive',
      defaultStockJournalMarginRate: 1.35,
      defaultStockJournalPostingStatus: 'draft',
    });
  });

  test('/settings?org= opens the settings of that organisation, activating it first', async ({ page }) => {
    const orgs = (await (await page.request.get('/api/user-organizations')).json()) as Array<{
      organizationId: number;
      tenantName: string;
    }>;
    const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId;
    await page.goto(`/settings?org=${builders}`);
    await expect(toastWith(page, 'Organization Changed')).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('Defaults for Demo Builders Ltd')).toBeVisible();
    await expect(card(page, 'CIS Bills').getByLabel('CIS subcontractors group')).toBeVisible();
    await page.goto('/settings?org=99999');
    await expect(toastWith(page, 'Selection Error')).toBeVisible();
    await expect(toastWith(page, 'Organization with ID 99999 not found')).toBeVisible();
    await expect(page.getByText('Defaults for Demo Builders Ltd')).toBeVisible();
  });

  test('offers no bank account for the stock account, and the server refuses one with a clear message', async ({
    page,
  }) => {
    await page.goto('/settings');
    const stock = card(page, 'Stock Journal');
    await stock.getByLabel('Stock account').click();
    await expect(page.getByRole('option', { name: 'Inventory (630)' })).toBeVisible();
    await expect(page.getByRole('option', { name: 'Business Current Account' })).toHaveCount(0);
    await page.keyboard.press('Escape');

    const bank = (await (await page.request.get('/api/xero/settings/bank-accounts')).json()) as {
      cashAccounts: Array<{ accountId: string; name: string }>;
    };
    const current = bank.cashAccounts.find((a) => a.name === 'Business Current Account')?.accountId;
    const refused = await patchAsAdmin(page, '/api/xero/settings', {
      defaultStockJournalStockAccountId: current,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'Stock account: a bank account cannot be used in a stock journal. Choose an inventory or current asset account.',
    );
  });

  test('a card whose feature is off is dimmed, says so, and cannot be changed', async ({ page }) => {
    expect(
      (await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: false }))
        .status,
    ).toBe(200);
    await page.goto('/settings');
    const cis = card(page, 'CIS Bills');
    await expect(cis.getByText('Feature disabled')).toBeVisible();
    // The viewer is an administrator: pointed at the switch instead of told to contact one (issue 22).
    await expect(cis.getByText('This feature is currently disabled for this organization.')).toBeVisible();
    await expect(cis.getByRole('link', { name: 'Switch it on in Admin' })).toBeVisible();
    await expect(cis.getByRole('button', { name: 'Refresh CIS Settings' })).toBeDisabled();
    await expect(cis.getByLabel('Bill account')).toBeDisabled();
    await expect(card(page, 'Pay Invoices').getByRole('button', { name: 'Refresh Accounts' })).toBeEnabled();
    expect(
      (await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: true }))
        .status,
    ).toBe(200);
  });

  test('refresh buttons reload a card from Xero', async ({ page }) => {
    await page.goto('/settings');
    await card(page, 'Pay Invoices').getByRole('button', { name: 'Refresh Accounts' }).click();
    await expect(toastWith(page, 'Bank Accounts Refreshed')).toBeVisible();
    await expect(toastWith(page, '1 card and 2 cash accounts loaded from Xero.')).toBeVisible();
    await card(page, 'CIS Bills').getByRole('button', { name: 'Refresh CIS Settings' }).click();
    await expect(toastWith(page, 'Cache Refreshed')).toBeVisible();
  });

  test('the clean-ups ask first and report what they removed', async ({ page }) => {
    await page.goto('/settings');
    const maintenance = card(page, 'Database Maintenance');
    await maintenance.getByRole('button', { name: 'Clean Up Bank Accounts' }).click();
    await expect(page.getByRole('dialog')).toContainText('Nothing is changed in Xero.');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog')).toBeHidden();
    await maintenance.getByRole('button', { name: 'Clean Up Bank Accounts' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clean Up Bank Accounts' }).click();
    await expect(toastWith(page, 'Duplicate Accounts Cleaned Up')).toBeVisible();
    await maintenance.getByRole('button', { name: 'Clean Up Old Data' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clean Up Old Data' }).click();
    await expect(toastWith(page, 'Data Cleaned Up')).toBeVisible();
    await expect(
      page
        .locator('.toast-root')
        .getByText(/^Removed \d+ invoices? and \d+ payments? older than 3 months\.$/),
    ).toBeVisible();
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`settings with every feature off: axe serious 0, no sideways scroll, ${theme}, ${width}px`, async ({
        page,
      }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/settings');
        await setTheme(page, theme);
        await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: false });
        // Issue 17 item 17: with every feature off, no serious or critical axe finding (the disabled-feature
        // text was at 2.4–2.6:1 under the dimmed card), and no sideways scrolling.
        const flags = ['featurePayInvoices', 'featureAddInvoices', 'featureStockJournal'] as const;
        // The admin endpoint takes one flag per call.
        for (const flag of flags)
          await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { [flag]: false });
        await page.reload();
        await expect(card(page, 'Stock Journal').getByText('Feature disabled')).toBeVisible();
        await screenshot(page, `settings-all-off-${theme}-${width}`);
        await animationsSettled(page);
        const results = await new AxeBuilder({ page }).analyze();
        const serious = results.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        expect(serious).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
          true,
        );
        for (const flag of flags)
          await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { [flag]: true });
        await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: true });
      });

      test(`looks finished: settings, ${theme}, ${width}px`, async ({ page }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/settings');
        await setTheme(page, theme);
        await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: false });
        await page.reload();
        await expect(card(page, 'CIS Bills').getByText('Feature disabled')).toBeVisible();
        await expect(card(page, 'Stock Journal').getByLabel('Stock account')).not.toContainText('Loading');
        await screenshot(page, `settings-general-${theme}-${width}`);
        await card(page, 'Add Invoices').getByLabel('Default contact').click();
        await page.getByRole('textbox', { name: 'Search contacts' }).fill('Da');
        await expect(page.getByRole('option', { name: 'Daily Sales' })).toBeVisible();
        await page.screenshot({ path: `e2e/screenshots/settings-contact-search-${theme}-${width}.png` });
        await page.keyboard.press('Escape');
        await card(page, 'Database Maintenance').getByRole('button', { name: 'Clean Up Old Data' }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await page.screenshot({ path: `e2e/screenshots/settings-cleanup-dialog-${theme}-${width}.png` });
        await patchAsAdmin(page, `/api/admin/organizations/${shopId}/features`, { featureCisBills: true });
      });
    }
  }
});

test.describe('settings without a connection', () => {
  test('says no connection was found and offers Select Organization', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.request.post('/api/register', {
      data: { username: `no-xero-${Date.now()}`, password: 'Sturdy-Ledger-Pass-1' },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status(), await res.text()).toBe(201);
    await page.goto('/settings');
    await expect(page.getByText('No active Xero connection found')).toBeVisible();
    await screenshot(page, 'settings-no-connection');
    await page.getByRole('link', { name: 'Select Organization' }).click();
    await expect(page).toHaveURL(/\/organizations$/);
    await context.close();
  });
});
