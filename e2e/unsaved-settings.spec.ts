/**
 * Issue 33 item 2: unsaved Settings changes are not lost through any way out. The page's Back, each
 * user-menu item, the browser's Back and Logout ask; keeping the changes keeps the page and what was typed,
 * leaving goes where the user asked.
 */
import type { Page } from '@playwright/test';
import { ADMIN, connectDemo, expect, screenshot, test } from './fixtures';

const QUESTION = 'You have unsaved changes. Leave without saving them?';

/** Runs `action`, answers the question it must raise, and returns what the question said. */
async function answering(page: Page, answer: 'stay' | 'leave', action: () => Promise<unknown>) {
  const asked = page.waitForEvent('dialog').then(async (dialog) => {
    const message = dialog.message();
    if (answer === 'leave') await dialog.accept();
    else await dialog.dismiss();
    return message;
  });
  await action();
  return asked;
}

test('every way out of Settings with unsaved changes asks, and staying keeps them', async ({ page }) => {
  test.setTimeout(120_000);
  const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
  const shop = orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
  if (!shop) throw new Error('Demo Shop not connected');
  // Into Settings the way a user goes, inside the app, so the browser's Back stays in it.
  await page.goto('/organizations');
  await page
    .getByRole('group', { name: 'Demo Shop Ltd' })
    .getByRole('button', { name: /Settings/ })
    .click();
  await expect(page).toHaveURL(`/settings?org=${shop.organizationId}`);
  const margin = page.getByLabel('Margin rate');
  await expect(margin).toBeEnabled();
  await margin.fill('1.77');
  await expect(page.getByText('You have unsaved changes.')).toBeVisible();
  const settingsUrl = page.url();
  const stillHere = async () => {
    await expect(page).toHaveURL(settingsUrl);
    await expect(margin).toHaveValue('1.77');
  };
  const userMenu = page.getByRole('button', { name: `User menu for ${ADMIN.username}` });

  expect(await answering(page, 'stay', () => page.getByRole('button', { name: 'Back' }).click())).toBe(
    QUESTION,
  );
  await stillHere();

  for (const item of ['Organizations', 'Pay Invoices', 'Two-step sign-in', 'Logout']) {
    await userMenu.click();
    expect(await answering(page, 'stay', () => page.getByRole('menuitem', { name: item }).click())).toBe(
      QUESTION,
    );
    await stillHere();
  }
  // Still signed in after refusing Logout.
  expect((await page.request.get('/api/user')).status()).toBe(200);

  expect(await answering(page, 'stay', () => page.evaluate(() => window.history.back()))).toBe(QUESTION);
  await stillHere();
  await expect(page.getByText('You have unsaved changes.')).toBeVisible();
  await screenshot(page, 'unsaved-settings-kept-1280');

  // Leaving is one question, and goes back.
  await answering(page, 'leave', () => page.evaluate(() => window.history.back()));
  await expect(page).toHaveURL(/\/organizations$/);
  await expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible();
});
