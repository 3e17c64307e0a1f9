import { expect, screenshot, setTheme, signInByApi, test } from './fixtures';

test.describe('the application shell', () => {
  test('a signed-out visitor to / reaches the sign-in page through the redirects', async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByRole('button', { name: 'Sign in with Xero' })).toBeVisible();
    await expect(page.getByRole('link', { name: /ledgerlink/i }).first()).toHaveAttribute('href', '/auth');
  });

  test('a protected route sends a signed-out visitor to /auth', async ({ page }) => {
    for (const route of ['/organizations', '/invoices', '/settings?org=1']) {
      await page.goto(route);
      await expect(page).toHaveURL(/\/auth$/);
    }
  });

  test('an unknown path shows the 404 page', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.getByText('404')).toBeVisible();
  });

  test('when the app script cannot load, the Critical Error screen shows instead of a blank page', async ({
    page,
  }) => {
    await page.route('**/assets/*.js', (route) => route.abort('failed'));
    await page.goto('/auth');
    await expect(page.getByRole('heading', { name: 'Critical Error' })).toBeVisible();
    await expect(
      page.getByText('Ledgerlink could not load. Check your internet connection, then refresh the page.'),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Refresh Page' })).toBeVisible();
    await screenshot(page, 'critical-error-1280');
  });

  test('an unknown API path answers JSON, not the app', async ({ request }) => {
    const res = await request.get('/api/no-such-endpoint');
    expect(res.status()).toBe(404);
    expect((await res.json()).message).toContain('Not found');
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`looks finished: sign-in and organisations, ${theme}, ${width}px`, async ({ page }) => {
        await page.setViewportSize({ width, height: 800 });
        await page.goto('/auth');
        await setTheme(page, theme);
        await page.reload();
        await expect(page.locator('html')).toHaveClass(theme === 'dark' ? /dark/ : /^(?!.*dark)/);
        await expect(page.getByRole('button', { name: 'Sign in with Xero' })).toBeVisible();
        await screenshot(page, `auth-${theme}-${width}`);
        await signInByApi(page);
        await page.goto('/organizations');
        await expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible();
        await screenshot(page, `organizations-${theme}-${width}`);
      });
    }
  }

  test('the theme toggle switches and remembers the theme', async ({ page }) => {
    await page.goto('/auth');
    await setTheme(page, 'light');
    await page.reload();
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await expect(page.locator('html')).toHaveClass(/dark/);
    await page.reload();
    await expect(page.locator('html')).toHaveClass(/dark/);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
  });
});
