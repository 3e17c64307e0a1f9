import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  sandbox,
  SANDBOX_URL,
  setTheme,
  test,
  animationsSettled,
} from './fixtures';
import { SCREENS } from './screens';

/**
 * The browser walk of issue 17: every screen at 1280 and 375 px in both themes, with axe serious + critical = 0
 * and no sideways scrolling of the page (a table may scroll inside its own focusable frame).
 */
async function check(page: Page, label: string): Promise<string[]> {
  // Spinners and skeletons first: axe looks at what a person would see once the screen has loaded.
  await expect(page.locator('[aria-busy="true"]'))
    .toHaveCount(0, { timeout: 15_000 })
    .catch(() => undefined);
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

test.describe('axe walk over every screen (issue 17)', () => {
  test.describe.configure({ timeout: 240_000 });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`every screen, ${theme}, ${width}px: axe serious + critical = 0, no sideways scroll`, async ({
        page,
      }) => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/auth');
        await setTheme(page, theme);
        const problems: string[] = [];
        await page.reload();
        await expect(page.getByRole('button', { name: /sign in/i }).first()).toBeVisible();
        problems.push(...(await check(page, `/auth ${theme} ${width}`)));

        const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
        for (const screen of SCREENS) {
          await page.goto(screen.path);
          await screen.ready(page);
          problems.push(...(await check(page, `${screen.path} ${theme} ${width}`)));
        }

        // Settings with every feature off for the organisation.
        const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
        if (!shop) throw new Error('Demo Shop not connected');
        const flags = ['featurePayInvoices', 'featureAddInvoices', 'featureCisBills', 'featureStockJournal'];
        const patch = (flag: string, on: boolean) =>
          page.request.patch(`/api/admin/organizations/${shop.organizationId}/features`, {
            data: { [flag]: on },
            headers: { origin: APP_ORIGIN },
          });
        try {
          for (const flag of flags) expect((await patch(flag, false)).status()).toBe(200);
          await page.goto('/settings');
          await expect(page.getByText('Feature disabled').first()).toBeVisible();
          problems.push(...(await check(page, `/settings (all features off) ${theme} ${width}`)));
          await page.goto('/organizations');
          await expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible();
          problems.push(...(await check(page, `/organizations (all features off) ${theme} ${width}`)));
        } finally {
          for (const flag of flags) await patch(flag, true);
        }
        expect(problems).toEqual([]);
      });
    }
  }

  // Issue 45: the disconnect dialog, and the screens a lost connection shows (Organizations, Connect, a feature
  // page, Settings), in both themes at both widths, for a user of its own (the revoke ends their grant only).
  test('the disconnect dialog and the reconnect-needed screens: axe serious + critical = 0', async ({
    page,
  }) => {
    const username = `e2e.axe45.${Date.now().toString(36)}`;
    const email = `${username}@example.com`;
    const res = await page.request.post('/api/register', {
      data: { username, password: 'Sturdy-Ledger-Pass-1' },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status(), await res.text()).toBe(201);
    await sandbox(page, '/__sandbox/auto-consent', { email, tenants: 'all' });
    const start = await page.request.get('/api/xero/connect');
    await page.goto((await start.json()).url);
    await expect(page).toHaveURL(/\/organizations/);
    await page.request.delete(`${SANDBOX_URL}/__sandbox/auto-consent`);
    const problems: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/organizations');
        await page.getByRole('button', { name: 'Disconnect Demo Shop Ltd' }).click();
        await expect(page.getByRole('dialog', { name: 'Disconnect Demo Shop Ltd from Xero?' })).toBeVisible();
        problems.push(...(await check(page, `disconnect dialog ${theme} ${width}`)));
        await page.keyboard.press('Escape');
      }
    }
    await sandbox(page, '/__sandbox/faults', { revokeTokens: { email } });
    await expect
      .poll(async () => (await (await page.request.get('/api/xero/connection')).json()).lostReason, {
        timeout: 30_000,
      })
      .toBe('revoked');
    const lostScreens: Array<[string, () => Promise<void>]> = [
      [
        '/organizations',
        () => expect(page.getByRole('alert').filter({ hasText: 'Xero access revoked' })).toBeVisible(),
      ],
      ['/connect', () => expect(page.getByRole('heading', { name: 'Reconnect to Xero' })).toBeVisible()],
      ['/invoices', () => expect(page.getByRole('heading', { name: 'Reconnect to Xero' })).toBeVisible()],
      ['/settings', () => expect(page.getByRole('heading', { name: 'Xero access revoked' })).toBeVisible()],
    ];
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 900 });
        for (const [path, ready] of lostScreens) {
          await page.goto(path);
          await ready();
          problems.push(...(await check(page, `${path} (access revoked) ${theme} ${width}`)));
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
