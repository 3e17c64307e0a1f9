import type { Browser, Page } from '@playwright/test';
import {
  APP_ORIGIN,
  SANDBOX_URL,
  connectDemo,
  expect,
  sandbox,
  screenshot,
  setTheme,
  test,
} from './fixtures';

const PASSWORD = 'Sturdy-Ledger-Pass-1';
const unique = (name: string) => `${name}-${Date.now().toString(36)}`;
const toastWith = (page: Page, text: string) => page.locator('.toast-root').filter({ hasText: text });

/** A second person in their own browser: a local account, optionally with Xero connected through the sandbox. */
async function signUp(browser: Browser, username: string, xero?: { email: string; tenants: string[] }) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const res = await page.request.post('/api/register', {
    data: { username, password: PASSWORD },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(201);
  const me = (await (await page.request.get('/api/auth/current-user')).json()) as {
    id: number;
    username: string;
  };
  if (xero) {
    await sandbox(page, '/__sandbox/auto-consent', xero);
    const start = await page.request.get('/api/xero/connect');
    expect(start.status(), await start.text()).toBe(200);
    await page.goto((await start.json()).url);
    await expect(page).toHaveURL(/\/organizations/);
    await page.request.delete(`${SANDBOX_URL}/__sandbox/auto-consent`);
  }
  return { context, page, id: me.id, username };
}

async function call(page: Page, method: 'GET' | 'PATCH', url: string, data?: unknown) {
  const res = await page.request.fetch(url, {
    method,
    headers: { origin: APP_ORIGIN },
    ...(data === undefined ? {} : { data }),
  });
  return res.status();
}

async function openAdmin(page: Page, tab: 'Organizations' | 'Users' | 'Activity' = 'Organizations') {
  await page.goto('/settings?tab=admin');
  await expect(page.getByRole('tab', { name: 'Organizations' })).toBeVisible();
  if (tab !== 'Organizations') await page.getByRole('tab', { name: tab }).click();
}

test.describe('admin panel', () => {
  let shopId = 0;

  test.beforeEach(async ({ page }) => {
    const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
    shopId = orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
  });

  test('a non-admin sees the refusal text and every admin endpoint answers 403', async ({ browser }) => {
    const other = await signUp(browser, unique('clerk'));
    await other.page.goto('/settings');
    await other.page.getByRole('tab', { name: 'Admin' }).click();
    await expect(other.page.getByText('You do not have administrator access.')).toBeVisible();
    await expect(other.page.getByText('Organization Feature Management')).toHaveCount(0);
    await screenshot(other.page, 'admin-refused');
    expect(await (await other.page.request.get('/api/admin/check')).json()).toEqual({ isAdmin: false });
    const endpoints: Array<['GET' | 'PATCH', string, unknown?]> = [
      ['GET', '/api/admin/organizations'],
      ['PATCH', `/api/admin/organizations/${shopId}/features`, { featurePayInvoices: false }],
      ['GET', '/api/admin/users'],
      ['PATCH', `/api/admin/users/${other.id}`, { email: 'me@example.com' }],
      ['PATCH', `/api/admin/users/${other.id}/admin`, { isAdmin: true }],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/audit.csv'],
    ];
    for (const [method, url, data] of endpoints)
      expect(await call(other.page, method, url, data), `${method} ${url}`).toBe(403);
    await other.context.close();
  });

  test('switching a feature off reaches another signed-in admin within the poll, and its API answers 403', async ({
    page,
    browser,
  }) => {
    test.setTimeout(120_000);
    const other = await signUp(browser, unique('manager'), {
      email: 'staff@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    expect(await call(page, 'PATCH', `/api/admin/users/${other.id}/admin`, { isAdmin: true })).toBe(200);
    // The other administrator is at work on the settings screen; their menu shows Stock Journal on.
    await other.page.goto('/settings');
    const theirCard = other.page.getByRole('region', { name: 'Stock Journal', exact: true });
    await expect(theirCard.getByRole('button', { name: 'Refresh Accounts' })).toBeVisible();
    await expect(theirCard.getByText('Feature disabled')).toHaveCount(0);
    expect((await other.page.request.get('/api/xero/stock-journal/entries')).status()).toBe(200);

    await openAdmin(page);
    const toggle = page.getByRole('switch', { name: 'Stock Journal for Demo Shop Ltd' });
    await expect(toggle).toBeChecked();
    await toggle.click();
    await expect(toggle).not.toBeChecked();
    await expect(toastWith(page, 'Features updated')).toBeVisible();
    const switchedAt = Date.now();

    // Within the 4 s poll (and a little for the answer): their card, menu, organisation card and page follow.
    await expect(theirCard.getByText('Feature disabled')).toBeVisible({ timeout: 7_000 });
    expect(Date.now() - switchedAt).toBeLessThan(8_000);
    await other.page.getByRole('button', { name: /^User menu for/ }).click();
    await expect(other.page.getByRole('menuitem', { name: 'Stock Journal' })).toBeDisabled();
    await other.page.getByRole('menuitem', { name: 'Organizations' }).click();
    const orgCard = other.page.getByRole('group', { name: 'Demo Shop Ltd' });
    await expect(orgCard.getByRole('button', { name: 'Stock Journal' })).toBeDisabled();
    await expect(orgCard.getByRole('button', { name: 'Pay Invoices' })).toBeEnabled();
    // The page refuses: "Feature not available", then back to the organisations after 500 ms
    // (docs/product/shell.md §4).
    await other.page.goto('/stock-journal');
    await expect(toastWith(other.page, 'Feature not available')).toBeVisible();
    await expect(other.page).toHaveURL(/\/organizations$/);
    const refused = await other.page.request.get('/api/xero/stock-journal/entries');
    expect(refused.status()).toBe(403);
    expect((await refused.json()).message).toBe(
      'Stock Journal is disabled for this organization. Please contact an administrator to enable it.',
    );

    await toggle.click();
    await expect(toggle).toBeChecked();
    await expect
      .poll(async () => (await other.page.request.get('/api/xero/stock-journal/entries')).status())
      .toBe(200);
    await other.context.close();
  });

  test("an ordinary user's menu, card buttons and page follow a switch within the poll too", async ({
    page,
    browser,
  }) => {
    test.setTimeout(120_000);
    const other = await signUp(browser, unique('cashier'), {
      email: 'staff@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    await other.page.goto('/organizations');
    const orgCard = other.page.getByRole('group', { name: 'Demo Shop Ltd' });
    await expect(orgCard.getByRole('button', { name: 'Pay Invoices' })).toBeEnabled();

    await openAdmin(page);
    const toggle = page.getByRole('switch', { name: 'Pay Invoices for Demo Shop Ltd' });
    await expect(toggle).toBeChecked();
    await toggle.click();
    await expect(toastWith(page, 'Features updated')).toBeVisible();
    const switchedAt = Date.now();

    await expect(orgCard.getByRole('button', { name: 'Pay Invoices' })).toBeDisabled({ timeout: 7_000 });
    expect(Date.now() - switchedAt).toBeLessThan(8_000);
    await other.page.getByRole('button', { name: /^User menu for/ }).click();
    await expect(other.page.getByRole('menuitem', { name: 'Pay Invoices' })).toBeDisabled();
    await other.page.keyboard.press('Escape');
    expect((await other.page.request.get('/api/xero/invoices')).status()).toBe(403);

    await toggle.click();
    await expect(toggle).toBeChecked();
    await expect(orgCard.getByRole('button', { name: 'Pay Invoices' })).toBeEnabled({ timeout: 7_000 });
    await other.context.close();
  });

  test('editing a user: an invalid email and an unchanged edit show the spec toasts; only the change is saved', async ({
    page,
    browser,
  }) => {
    const other = await signUp(browser, unique('clerk'));
    await other.context.close();
    await openAdmin(page, 'Users');
    await expect(page.getByText('User Management')).toBeVisible();
    await page.getByPlaceholder('Search users...').fill(other.username);
    const row = page.getByRole('row').filter({ hasText: other.username });
    await expect(row).toHaveCount(1);
    await expect(row.getByText('Local')).toBeVisible();

    await row.getByRole('button', { name: `Edit ${other.username}` }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toastWith(page, 'No changes to save')).toBeVisible();

    await page.getByRole('textbox', { name: `Email of ${other.username}` }).fill('clerk@shop');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toastWith(page, 'Invalid email format')).toBeVisible();
    await expect(toastWith(page, 'Please enter a valid email address')).toBeVisible();

    await page.getByRole('textbox', { name: `Email of ${other.username}` }).fill('clerk@demoshop.example');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toastWith(page, 'User updated successfully')).toBeVisible();
    await page.reload();
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.getByPlaceholder('Search users...').fill(other.username);
    await expect(page.getByRole('row').filter({ hasText: other.username })).toContainText(
      'clerk@demoshop.example',
    );
  });

  test('grants and removes admin rights through the confirm dialog', async ({ page, browser }) => {
    const other = await signUp(browser, unique('deputy'));
    await other.context.close();
    await openAdmin(page, 'Users');
    await page.getByPlaceholder('Search users...').fill(other.username);
    await page.getByRole('button', { name: `Grant admin privileges to ${other.username}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'Grant Admin Privileges' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(
      page.getByRole('button', { name: `Grant admin privileges to ${other.username}` }),
    ).toBeVisible();
    await page.getByRole('button', { name: `Grant admin privileges to ${other.username}` }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(toastWith(page, 'Admin status updated successfully')).toBeVisible();
    await page.getByRole('button', { name: `Remove admin privileges from ${other.username}` }).click();
    await expect(dialog.getByRole('heading', { name: 'Remove Admin Privileges' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(
      page.getByRole('button', { name: `Grant admin privileges to ${other.username}` }),
    ).toBeVisible();
  });

  test('the activity log lists what happened, filters it and exports it as CSV', async ({ page }) => {
    await openAdmin(page, 'Activity');
    // Each line in words (issue 45 item 3): "Switched on CIS Bills for Demo Shop Ltd", not "admin.features".
    await expect(page.getByRole('cell', { name: /^Switched (on|off) .+ for / }).first()).toBeVisible();
    await page.getByLabel('Action').click();
    await page.getByRole('option', { name: 'Administration' }).click();
    await expect(page.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/admin/audit.csv?action=admin.',
    );
    await expect(page.getByRole('cell', { name: /^Signed in/ })).toHaveCount(0);
    const csv = await page.request.get('/api/admin/audit.csv?action=admin.');
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect(await csv.text()).toContain('"admin.features"');
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`looks finished: admin tabs, ${theme}, ${width}px`, async ({ page }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/settings');
        await setTheme(page, theme);
        await openAdmin(page);
        await expect(page.getByRole('switch').first()).toBeVisible();
        await screenshot(page, `admin-organizations-${theme}-${width}`);
        await page.getByRole('tab', { name: 'Users' }).click();
        await expect(page.getByRole('button', { name: /^Edit / }).first()).toBeVisible();
        await screenshot(page, `admin-users-${theme}-${width}`);
        await page
          .getByRole('button', { name: /^(Grant|Remove) admin privileges/ })
          .first()
          .click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await page.screenshot({ path: `e2e/screenshots/admin-dialog-${theme}-${width}.png` });
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('tab', { name: 'Activity' }).click();
        await expect(page.getByRole('cell', { name: /^Switched (on|off) .+ for / }).first()).toBeVisible();
        await screenshot(page, `admin-activity-${theme}-${width}`);
      });
    }
  }
});
