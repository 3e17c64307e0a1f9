import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  sandbox,
  SANDBOX_URL,
  screenshot,
  setTheme,
  test,
  animationsSettled,
} from './fixtures';

const PASSWORD = 'Sturdy-Ledger-Pass-1';
const SHOP = 'Demo Shop Ltd';
const BUILDERS = 'Demo Builders Ltd';

function uniqueName(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

function toast(page: Page) {
  return page.locator('.toast-root');
}

/** A fresh Ledgerlink account, signed in (specs share one server, so nobody else's connection gets in the way). */
async function signUp(page: Page): Promise<string> {
  const username = uniqueName('e2e.org.');
  const res = await page.request.post('/api/register', {
    data: { username, password: PASSWORD },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(201);
  return username;
}

/**
 * The sandbox's login and consent pages, as a person uses them: a sandbox user (or any email, which makes a
 * new sandbox user with the demo organisations), the organisations to tick, Allow access.
 */
async function consentInSandbox(
  page: Page,
  who: { user: RegExp } | { email: string },
  tenants: string[] = [SHOP, BUILDERS],
) {
  await expect(page.getByRole('heading', { name: 'Log in to Xero' })).toBeVisible();
  if ('user' in who) await page.getByRole('radio', { name: who.user }).check();
  else await page.getByLabel('Email address').fill(who.email);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: /wants to access your Xero data/ })).toBeVisible();
  for (const tenant of tenants) await page.getByRole('checkbox', { name: tenant }).check();
  await page.getByRole('button', { name: 'Allow access' }).click();
}

async function connectBothThroughConsent(
  page: Page,
  who: { user: RegExp } | { email: string } = { user: /Olivia Owner/ },
) {
  await page.goto('/organizations');
  await page.getByRole('button', { name: 'Connect New Organization' }).click();
  await consentInSandbox(page, who);
  await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
  await expect(page).toHaveURL(/\/organizations$/);
  await expect(page.getByRole('group', { name: SHOP })).toBeVisible();
  await expect(page.getByRole('group', { name: BUILDERS })).toBeVisible();
}

function indicator(page: Page) {
  return page
    .getByRole('banner')
    .getByRole('status')
    .filter({
      hasText:
        /Connected to Xero|Token expires in <5 min|Connection needs refresh|Xero access revoked|Xero connection expired|Xero connection lost/,
    })
    .first();
}

async function activeCard(page: Page): Promise<string> {
  for (const name of [SHOP, BUILDERS]) {
    if (await page.getByRole('group', { name }).getByText('Active', { exact: true }).isVisible()) return name;
  }
  throw new Error('no active organisation card');
}

async function expectActive(page: Page, name: string) {
  await expect(page.getByRole('group', { name }).getByText('Active', { exact: true })).toBeVisible();
  const other = name === SHOP ? BUILDERS : SHOP;
  await expect(page.getByRole('button', { name: `Activate ${other}` })).toBeVisible();
  const connection = await (await page.request.get('/api/xero/connection')).json();
  expect(connection.tenantName).toBe(name);
}

async function noSeriousViolations(page: Page, label: string, disableRules: string[] = []) {
  await animationsSettled(page);
  const results = await new AxeBuilder({ page }).disableRules(disableRules).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${label}: ${v.id} (${v.impact}) ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(serious).toEqual([]);
}

test.describe('organisations', () => {
  let defaultTtl = 1800;
  test.beforeAll(async ({ request }) => {
    const settings = await (await request.get(`${SANDBOX_URL}/__sandbox/config`)).json();
    defaultTtl = settings.accessTokenTtlSeconds;
  });
  test.afterEach(async ({ page }) => {
    await sandbox(page, '/__sandbox/config', { accessTokenTtlSeconds: defaultTtl });
  });

  test('connect both demo organisations, then switch from the header and from the cards', async ({
    page,
  }) => {
    await signUp(page);
    await page.goto('/organizations');
    await expect(page.getByRole('heading', { name: 'No Organizations Connected' })).toBeVisible();
    // Issue 33 item 5: nothing was ever connected, so nothing says "Reconnect".
    await expect(page.getByRole('banner').getByRole('button', { name: 'Connect to Xero' })).toBeVisible();
    await expect(page.getByRole('button', { name: /Reconnect/ })).toHaveCount(0);
    await screenshot(page, 'organizations-never-connected-light-1280');
    await page.getByRole('banner').getByRole('button', { name: 'Connect to Xero' }).click();
    await expect(page).toHaveURL(/\/connect$/);
    // Nor on the connect page: Connect only, no Force Reconnect for a connection that never was.
    await expect(page.getByRole('heading', { name: 'Connect to Xero' })).toBeVisible();
    await expect(page.getByRole('main').getByRole('button', { name: 'Connect', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: /Reconnect/ })).toHaveCount(0);
    await expect(page.getByText(/Force Reconnect/)).toHaveCount(0);
    await screenshot(page, 'connect-never-connected-light-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'connect-never-connected-light-375');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/organizations');
    await connectBothThroughConsent(page);

    // Cards sorted by name, each with Last connected and the token expiry.
    const names = await page
      .getByRole('group')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')));
    expect(names.filter((n) => n === SHOP || n === BUILDERS)).toEqual([BUILDERS, SHOP]);
    await expect(page.getByRole('group', { name: SHOP }).getByText('Last connected')).toBeVisible();
    await expect(page.getByRole('group', { name: SHOP }).getByText(/^Expires in /)).toBeVisible();
    await expect(indicator(page)).toHaveText('Connected to Xero');
    await expect(indicator(page)).toHaveAttribute('data-status', 'valid');
    await screenshot(page, 'organizations-connected-light-1280');

    // From the header switcher.
    const first = await activeCard(page);
    const second = first === SHOP ? BUILDERS : SHOP;
    await page.getByRole('combobox', { name: 'Organization' }).click();
    await page.getByRole('option', { name: second }).click();
    const changed = toast(page).filter({ hasText: 'Organization Changed' });
    await expect(changed).toBeVisible({ timeout: 15_000 });
    await expect(changed).toContainText(`Now working with: ${second}`);
    await expectActive(page, second);
    await expect(page.getByRole('combobox', { name: 'Organization' })).toContainText(second);

    // From the cards.
    await page.getByRole('button', { name: `Activate ${first}` }).click();
    await expect(toast(page).filter({ hasText: `Now working with: ${first}` })).toBeVisible({
      timeout: 15_000,
    });
    await expectActive(page, first);
    await expect(page.getByRole('combobox', { name: 'Organization' })).toContainText(first);
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`feature buttons on and off look different on the cards (issue 17 item 7), ${theme}`, async ({
      page,
    }) => {
      await page.goto('/auth');
      await setTheme(page, theme);
      const orgs = await connectDemo(page, { active: 'Demo Shop Ltd' });
      const shop = orgs.find((o) => o.tenantName === SHOP);
      if (!shop) throw new Error('Demo Shop not connected');
      const res = await page.request.patch(`/api/admin/organizations/${shop.organizationId}/features`, {
        data: { featureCisBills: false },
        headers: { origin: APP_ORIGIN },
      });
      expect(res.status()).toBe(200);
      try {
        await page.goto('/organizations');
        const card = page.getByRole('group', { name: SHOP });
        await expect(card.getByRole('button', { name: 'Pay Invoices' })).toHaveAttribute(
          'data-feature-state',
          'on',
        );
        await expect(card.getByRole('button', { name: 'CIS Bills' })).toHaveAttribute(
          'data-feature-state',
          'off',
        );
        await expect(card.getByRole('button', { name: 'CIS Bills' })).toBeDisabled();
        const look = (name: string) =>
          card.getByRole('button', { name }).evaluate((el) => {
            const style = getComputedStyle(el);
            return {
              opacity: style.opacity,
              border: style.borderStyle,
              color: style.color,
              cursor: getComputedStyle(el.parentElement as Element).cursor,
            };
          });
        const on = await look('Pay Invoices');
        const off = await look('CIS Bills');
        expect(off.opacity).toBe('1');
        expect(off.border).toBe('dashed');
        expect(on.border).toBe('solid');
        expect(off.color).not.toBe(on.color);
        expect(off.cursor).toBe('not-allowed');
        await card.screenshot({ path: `e2e/screenshots/organizations-card-features-${theme}-1280.png` });
        await noSeriousViolations(page, `/organizations (a feature off, ${theme})`);
      } finally {
        await page.request.patch(`/api/admin/organizations/${shop.organizationId}/features`, {
          data: { featureCisBills: true },
          headers: { origin: APP_ORIGIN },
        });
      }
    });
  }

  test('the indicator turns yellow under 5 minutes and red once the token has expired', async ({ page }) => {
    await signUp(page);
    // The browser's clock runs normally until fast-forwarded below; the server's is real time throughout.
    await page.clock.install();
    const email = `${uniqueName('ttl')}@example.com`;
    await connectBothThroughConsent(page, { email });
    await expect(indicator(page)).toHaveAttribute('data-status', 'valid');

    // Tokens that live 4 minutes: after a reconnect the expiry is under 5 minutes away, and stays so however
    // often the server renews it ahead (issue 17 item 6).
    await sandbox(page, '/__sandbox/config', { accessTokenTtlSeconds: 240 });
    await page.getByRole('button', { name: 'Reconnect', exact: true }).click();
    await consentInSandbox(page, { email });
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(indicator(page)).toHaveText('Token expires in <5 min');
    await expect(indicator(page)).toHaveAttribute('data-status', 'expiring');
    await expect(
      page.getByRole('group', { name: SHOP }).getByText(/^Expires in [1-4] minutes?$/),
    ).toBeVisible();
    await screenshot(page, 'organizations-token-expiring-light-1280');

    // Five minutes later in the browser, the token is past its expiry.
    await page.clock.fastForward('05:30');
    await expect(indicator(page)).toHaveText('Connection needs refresh');
    await expect(indicator(page)).toHaveAttribute('data-status', 'expired');
  });

  test('after the sandbox revokes the token, the header offers Reconnect and reconnecting brings it back', async ({
    page,
  }) => {
    await signUp(page);
    const email = `${uniqueName('revoke')}@example.com`;
    // 100-second tokens: every connection check refreshes, so a revoked grant shows at once.
    await sandbox(page, '/__sandbox/config', { accessTokenTtlSeconds: 100 });
    await connectBothThroughConsent(page, { email });
    await expect(indicator(page)).toBeVisible();

    await sandbox(page, '/__sandbox/faults', { revokeTokens: { email } });
    await page.reload();
    const reconnect = page.getByRole('banner').getByRole('button', { name: 'Reconnect' });
    await expect(reconnect).toBeVisible();
    // Issue 33 item 3: red beside Reconnect; issue 45 item 2: saying what happened, in one wording.
    await expect(indicator(page)).toHaveText('Xero access revoked');
    await expect(indicator(page)).toHaveAttribute('data-status', 'lost');
    await expect(page.getByRole('alert').filter({ hasText: 'Xero access revoked' })).toBeVisible();
    await expect(page.getByRole('group', { name: SHOP }).getByText('Xero access revoked')).toBeVisible();
    // Issue 17 item 7: nothing on the card opens until the organisation is reconnected.
    for (const name of ['Pay Invoices', 'Add Invoices', 'CIS Bills', 'Stock Journal']) {
      await expect(page.getByRole('group', { name: SHOP }).getByRole('button', { name })).toBeDisabled();
    }
    // Issue 33 item 3: nor can another organisation be activated, or its Settings opened, and the card says why.
    const inactive = page
      .getByRole('group')
      .filter({ has: page.getByRole('button', { name: /^Activate / }) });
    await expect(inactive).toHaveCount(1);
    await expect(inactive.getByRole('button', { name: /^Activate / })).toBeDisabled();
    for (const name of [SHOP, BUILDERS]) {
      const card = page.getByRole('group', { name });
      await expect(card.getByRole('button', { name: 'Settings', exact: true })).toBeDisabled();
      await expect(
        card.getByText('Xero needs you to reconnect before this organization can be activated or opened.'),
      ).toBeVisible();
    }
    await inactive.getByRole('button', { name: /^Activate / }).hover({ force: true });
    await expect(page.getByRole('tooltip', { name: 'Reconnect to Xero first' })).toBeVisible();
    await inactive.screenshot({ path: 'e2e/screenshots/organizations-card-reconnect-other-light-1280.png' });
    await page
      .getByRole('group', { name: SHOP })
      .screenshot({ path: 'e2e/screenshots/organizations-card-reconnect-light-1280.png' });
    await screenshot(page, 'organizations-revoked-light-1280');

    // Issue 33 item 3: Settings of another organisation by its link says why and offers Reconnect, no spinner.
    const listed = (await (await page.request.get('/api/user-organizations')).json()) as Array<{
      organizationId: number;
      isActive: boolean;
    }>;
    const other = listed.find((o) => !o.isActive);
    await page.goto(`/settings?org=${other?.organizationId}`);
    const general = page.getByRole('tabpanel', { name: 'General' });
    await expect(general.getByRole('heading', { name: 'Xero access revoked' })).toBeVisible();
    await expect(general).toContainText('Ledgerlink’s access was revoked in Xero');
    await expect(general.getByRole('button', { name: 'Reconnect' })).toBeEnabled();
    await expect(
      page.getByRole('status', { name: /Selecting the organization|Loading settings/ }),
    ).toHaveCount(0);
    // Nothing was switched behind the user's back.
    const after = (await (await page.request.get('/api/user-organizations')).json()) as typeof listed;
    expect(after.find((o) => o.isActive)?.organizationId).not.toBe(other?.organizationId);
    await screenshot(page, 'settings-reconnect-needed-light-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await expect(indicator(page)).toHaveAttribute('data-status', 'lost');
    await expect(page.getByRole('banner').getByRole('button', { name: 'Reconnect' })).toBeInViewport();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'settings-reconnect-needed-light-375');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/organizations');

    await reconnect.click();
    await expect(page).toHaveURL(/\/connect$/);
    await expect(page.getByRole('heading', { name: 'Reconnect to Xero' })).toBeVisible();
    // Issue 45 item 2: one Reconnect, no Force Reconnect doing the same beside it.
    await expect(page.getByRole('main').getByText('Xero access revoked')).toBeVisible();
    await expect(page.getByRole('main').getByRole('button', { name: /Force Reconnect/ })).toHaveCount(0);
    await noSeriousViolations(page, '/connect (reconnect)');
    await screenshot(page, 'connect-reconnect-light-1280');
    await sandbox(page, '/__sandbox/config', { accessTokenTtlSeconds: defaultTtl });
    await page.getByRole('main').getByRole('button', { name: 'Reconnect', exact: true }).click();
    await consentInSandbox(page, { email });
    await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
    await expect(indicator(page)).toHaveText('Connected to Xero');
    await expect(page.getByRole('banner').getByRole('button', { name: 'Reconnect' })).toHaveCount(0);
  });

  test('Disconnect on a card asks first and keeps the history; a disconnect made in Xero shows too, and Connect brings both back (issue 33 item 4)', async ({
    page,
  }) => {
    await signUp(page);
    const email = `${uniqueName('leave')}@example.com`;
    await connectBothThroughConsent(page, { email });

    // Disconnect from Ledgerlink: the confirmation says what happens; Cancel changes nothing.
    const builders = page.getByRole('group', { name: BUILDERS });
    await builders.getByRole('button', { name: `Disconnect ${BUILDERS}` }).click();
    const dialog = page.getByRole('dialog', { name: `Disconnect ${BUILDERS} from Xero?` });
    await expect(dialog).toContainText(`Ledgerlink’s connection to ${BUILDERS} is removed in Xero`);
    await expect(dialog).toContainText('Its history here is kept');
    await expect(dialog).toContainText('are off for it until you connect it again');
    await screenshot(page, 'organizations-disconnect-confirm-light-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, 'organizations-disconnect-confirm-light-375');
    await page.setViewportSize({ width: 1280, height: 800 });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(builders.getByText('Not connected')).toHaveCount(0);

    await builders.getByRole('button', { name: `Disconnect ${BUILDERS}` }).click();
    await dialog.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await expect(toast(page).filter({ hasText: 'Disconnected from Xero' })).toBeVisible();
    await expect(builders.getByText('Not connected')).toBeVisible();
    await expect(builders.getByRole('button', { name: `Connect ${BUILDERS}` })).toBeEnabled();
    for (const name of ['Pay Invoices', 'Add Invoices', 'CIS Bills', 'Stock Journal', 'Settings']) {
      await expect(builders.getByRole('button', { name, exact: true })).toBeDisabled();
    }
    await expect(page.getByRole('button', { name: `Activate ${BUILDERS}` })).toBeDisabled();
    const listed = (await (await page.request.get('/api/user-organizations')).json()) as Array<{
      tenantName: string;
      tenantId: string;
      connected: boolean;
    }>;
    expect(listed.map((o) => [o.tenantName, o.connected])).toEqual([
      [BUILDERS, false],
      [SHOP, true],
    ]);
    await screenshot(page, 'organizations-disconnected-light-1280');

    // Connect again, ticking only Demo Builders at Xero's consent.
    await builders.getByRole('button', { name: `Connect ${BUILDERS}` }).click();
    await consentInSandbox(page, { email }, [BUILDERS]);
    await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
    await expect(builders.getByText('Not connected')).toHaveCount(0);
    await expect(builders.getByRole('button', { name: `Disconnect ${BUILDERS}` })).toBeVisible();

    // A person disconnects Ledgerlink from Demo Shop in Xero's own web app: the next visit of the page says so.
    const shopId = listed.find((o) => o.tenantName === SHOP)?.tenantId ?? '';
    expect(await sandbox(page, '/__sandbox/connections/disconnect', { tenantId: shopId, email })).toEqual({
      disconnected: 1,
    });
    await page.goto('/organizations');
    const said = toast(page).filter({ hasText: 'Disconnected in Xero' });
    await expect(said).toBeVisible();
    await expect(said).toContainText(`${SHOP} was disconnected from Ledgerlink in Xero`);
    const shop = page.getByRole('group', { name: SHOP });
    await expect(shop.getByText('Not connected')).toBeVisible();
    await expect(shop.getByRole('button', { name: `Connect ${SHOP}` })).toBeEnabled();
    await expect(
      page.getByRole('group', { name: BUILDERS }).getByText('Active', { exact: true }),
    ).toBeVisible();
    await expect(indicator(page)).toHaveText('Connected to Xero');
    await screenshot(page, 'organizations-disconnected-in-xero-light-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, 'organizations-disconnected-in-xero-light-375');
    await noSeriousViolations(page, '/organizations (one disconnected, 375 px)');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  const ERRORS: Array<{ query: string; title: string; text: string }> = [
    {
      query: 'authentication_cancelled',
      title: 'Authentication Cancelled',
      text: "The Xero authentication process was cancelled. You can try connecting again when you're ready.",
    },
    { query: 'unauthorized', title: 'Connection Error', text: 'You need to be logged in to connect to Xero' },
    { query: 'missing_code', title: 'Connection Error', text: 'Authorization code is missing' },
    { query: 'no_tenants', title: 'Connection Error', text: 'No organizations found in your Xero account' },
    {
      query: 'xero_connection_failed',
      title: 'Connection Error',
      text: 'Failed to establish connection with Xero',
    },
    { query: 'oauth_error&reason=access_denied', title: 'Connection Error', text: 'access_denied' },
    { query: 'oauth_error', title: 'Connection Error', text: 'unknown' },
    {
      query: 'invalid_token',
      title: 'Connection Error',
      text: 'The authentication tokens were invalid. Please try connecting again.',
    },
    {
      query: 'token_expired',
      title: 'Connection Error',
      text: 'Your authentication with Xero has expired. Please try connecting again.',
    },
    {
      query: 'invalid_grant',
      title: 'Connection Error',
      text: 'The authorization was invalid or has expired. Please try connecting again.',
    },
    { query: 'token_exchange_failed', title: 'Connection Error', text: 'exchanging the authorization code' },
    {
      query: 'invalid_client',
      title: 'Connection Error',
      text: 'The client credentials (Client ID and Client Secret) are invalid. Please check API keys.',
    },
    {
      query: 'invalid_request',
      title: 'Connection Error',
      text: 'The authorization request to Xero was invalid. Please try connecting again.',
    },
    {
      query: 'token_read_failed',
      title: 'Connection Error',
      text: 'The tokens received from Xero could not be read. Please try connecting again.',
    },
    {
      query: 'missing_token_set',
      title: 'Connection Error',
      text: 'Xero did not return any tokens. Please try connecting again.',
    },
    {
      query: 'missing_access_token',
      title: 'Connection Error',
      text: 'Xero did not return an access token. Please try connecting again.',
    },
    {
      query: 'missing_refresh_token',
      title: 'Connection Error',
      text: 'Xero did not return a refresh token. Please try connecting again.',
    },
    {
      query: 'missing_expiry',
      title: 'Connection Error',
      text: 'Xero did not say when the tokens expire. Please try connecting again.',
    },
    {
      query: 'tenant_update_failed&message=Database%20busy',
      title: 'Connection Error',
      text: 'Database busy',
    },
    {
      query: 'unexpected_error',
      title: 'Connection Error',
      text: 'An unexpected error occurred. Please try again later.',
    },
    { query: 'something_else', title: 'Connection Error', text: 'Failed to connect to Xero' },
  ];

  test('each query-string error code shows its toast on /organizations, once, and leaves the address clean', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await signUp(page);
    for (const { query, title, text } of ERRORS) {
      await page.goto(`/organizations?error=${query}`);
      const shown = toast(page).filter({ hasText: title });
      await expect(shown, query).toBeVisible();
      await expect(shown, query).toContainText(text);
      await expect(shown).toHaveAttribute('data-variant', 'destructive');
      await expect(page, query).toHaveURL(/\/organizations$/);
    }
    // connected=true gives its own toast.
    await page.goto('/organizations?connected=true');
    await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
    await expect(page).toHaveURL(/\/organizations$/);
  });

  test('no serious or critical accessibility problems on /organizations and the connect page', async ({
    page,
  }) => {
    await signUp(page);
    await page.goto('/connect');
    await expect(page.getByRole('heading', { name: 'Connect to Xero' })).toBeVisible();
    await noSeriousViolations(page, '/connect');
    await page.goto('/organizations');
    await expect(page.getByRole('heading', { name: 'No Organizations Connected' })).toBeVisible();
    await noSeriousViolations(page, '/organizations (empty)');
    await connectBothThroughConsent(page);
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await page.reload();
      await expect(page.getByRole('group', { name: SHOP })).toBeVisible();
      await noSeriousViolations(page, `/organizations (${theme})`);
    }
    await page.getByRole('combobox', { name: 'Organization' }).click();
    await expect(page.getByRole('listbox')).toBeVisible();
    // While a Radix listbox is open the page behind it is aria-hidden and focus stays trapped in the list;
    // axe reads only the static DOM, cannot see the trap and exempts role=dialog alone, so its
    // aria-hidden-focus finding here is a known false positive of Radix overlays. Everything else counts.
    await noSeriousViolations(page, '/organizations (switcher open)', ['aria-hidden-focus']);
  });
});
