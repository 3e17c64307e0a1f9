/**
 * Issue 33 item 1, live mode: nothing is prepared, so a feature whose Settings defaults are missing says so
 * on its screen before the user types anything, with a link that opens the Settings field itself. The
 * shared e2e server is not a prepared demo (its administrator comes from ADMIN_USERNAME), so its
 * organisations start with no defaults, as in live mode.
 */
import type { Page } from '@playwright/test';
import { APP_ORIGIN, connectDemo, expect, resetSandbox, screenshot, test } from './fixtures';

const NO_DEFAULTS = {
  defaultCashAccountId: null,
  defaultSalesAccountId: null,
  defaultContactId: null,
  defaultBillAccountId: null,
  defaultStockJournalStockAccountId: null,
  defaultStockJournalCostAccountId: null,
};

async function clearDefaults(page: Page, organizationId: number) {
  const res = await page.request.patch(`/api/xero/settings?org=${organizationId}`, {
    data: NO_DEFAULTS,
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
}

test.describe('settings a feature needs', () => {
  test('Add Invoices and CIS Bills name their missing defaults up front and link to each Settings field', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await resetSandbox(page);
    const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
    for (const org of orgs) await clearDefaults(page, org.organizationId);
    const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('Demo Shop not connected');

    await page.goto('/add-invoices');
    const notice = page.getByRole('alert', { name: 'Settings needed', exact: true });
    await expect(notice).toContainText('3 settings are missing');
    await expect(notice).toContainText('Without a cash account, cash amounts cannot be recorded.');
    await expect(notice).toContainText('Without a sales account, new invoices cannot be created.');
    await expect(notice).toContainText('Without a default contact, new invoices cannot be created.');
    // Said before anything is typed: no amount entered, nothing processed.
    await expect(page.locator('tbody tr[data-invoice-id]').first()).toBeVisible();
    await screenshot(page, 'settings-needed-add-invoices-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, 'settings-needed-add-invoices-375');
    await page.setViewportSize({ width: 1280, height: 800 });

    await notice.getByRole('link', { name: 'Choose the Cash account in Settings' }).click();
    await page.waitForURL(/\/settings\?/);
    const target = new URL(page.url()).searchParams;
    expect([target.get('org'), target.get('field')]).toEqual([
      String(shop.organizationId),
      'defaultCashAccountId',
    ]);
    const cash = page.getByRole('combobox', { name: 'Cash account', exact: true });
    await expect(cash).toBeFocused();
    await expect(page.locator('[data-field="defaultCashAccountId"]')).toHaveClass(/ring-2/);
    await screenshot(page, 'settings-needed-settings-field-1280');
    await cash.click();
    await page.getByRole('option', { name: 'Cash', exact: true }).click();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await expect(page.locator('.toast-root').filter({ hasText: 'Settings Saved' })).toBeVisible();

    await page.goto('/add-invoices');
    await expect(notice).toContainText('2 settings are missing');
    await expect(notice).not.toContainText('cash account');

    // CIS Bills on the builder: approving needs a bill account.
    const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
    if (!builders) throw new Error('Demo Builders not connected');
    const res = await page.request.post('/api/xero/set-active-organization', {
      data: { organizationId: builders.organizationId },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status()).toBe(200);
    await page.goto('/cis-invoices');
    const cisNotice = page.getByRole('alert', { name: 'Settings needed', exact: true });
    await expect(cisNotice).toContainText('One setting is missing');
    await expect(cisNotice).toContainText('Without a bill account, bills cannot be approved.');
    await screenshot(page, 'settings-needed-cis-bills-1280');
    await cisNotice.getByRole('link', { name: 'Choose the Bill account in Settings' }).click();
    await expect(page.getByRole('combobox', { name: 'Bill account', exact: true })).toBeFocused();
  });
});
