import { APP_ORIGIN, expect, signInByApi, test } from './fixtures';

/**
 * Issue 28 item 6, as it was found: another site's form posting to a percent-encoded /api path signed the user
 * out in Chromium. The other site is served by Playwright (no server of ours), so Chromium sends its real
 * Origin, cookies and SameSite rules exactly as for a page on the internet.
 */
const OTHER_SITE = 'http://evil.example';

/** A form that sends itself as text/plain, a body Fastify parses, so the request reaches the route. */
function autoSubmittingForm(action: string): string {
  return `<!doctype html><html><body>
<form id="f" method="post" enctype="text/plain" action="${action}"><input type="hidden" name="a" value="1"></form>
<script>document.getElementById('f').submit();</script>
</body></html>`;
}

test.describe('a form on another site', () => {
  for (const path of ['/%61pi/logout', '/%61%70%69/%6c%6f%67%6f%75%74', '/api/logout']) {
    test(`posting to ${path} is refused and the user stays signed in`, async ({ page }) => {
      await signInByApi(page);
      await page.goto('/organizations');
      await expect(page).toHaveURL(/\/organizations/);

      await page.route(`${OTHER_SITE}/**`, (route) =>
        route.fulfill({ contentType: 'text/html', body: autoSubmittingForm(`${APP_ORIGIN}${path}`) }),
      );
      // The form's POST (every path here decodes to /api/logout), not another POST the page left makes meanwhile.
      const answer = page.waitForResponse(
        (res) =>
          res.request().method() === 'POST' &&
          decodeURIComponent(new URL(res.url()).pathname) === '/api/logout',
      );
      await page.goto(`${OTHER_SITE}/prize`);
      const refused = await answer;
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('Cross-origin request refused');
      expect(refused.headers()['set-cookie']).toBeUndefined();

      // Back on Ledgerlink: still signed in, the organisations page and not the sign-in page.
      expect((await page.request.get('/api/user')).status()).toBe(200);
      await page.goto('/organizations');
      await expect(page).toHaveURL(/\/organizations/);
      await expect(page.getByRole('button', { name: /^User menu for / })).toBeVisible();
    });
  }
});
