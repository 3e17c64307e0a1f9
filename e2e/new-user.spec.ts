/**
 * What a new user still hit (issue 45), in Chromium at 1280 and 375 px: a revoke noticed with nobody acting and
 * said in one wording; a consent that leaves an organisation out; the activity log in words; the tab titles;
 * toasts that keep off the form on a phone.
 */
import type { Page } from '@playwright/test';
import { APP_ORIGIN, connectDemo, expect, sandbox, screenshot, test } from './fixtures';

const PASSWORD = 'Sturdy-Ledger-Pass-1';
const SHOP = 'Demo Shop Ltd';
const BUILDERS = 'Demo Builders Ltd';

const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
const toast = (page: Page) => page.locator('.toast-root');

/** The wordings issue 45 found side by side for one revoked connection: none may show once it is lost. */
const OLD_WORDINGS = [
  'Connection needs refresh',
  'Your Xero connection has expired',
  'Xero Connection Needs Refreshing',
  'Reconnect needed',
  'Reconnect now',
  'Force Reconnect',
];

async function signUp(page: Page): Promise<string> {
  const username = unique('e2e.i45.');
  const res = await page.request.post('/api/register', {
    data: { username, password: PASSWORD },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(201);
  return username;
}

/** The sandbox's Xero login and consent, as a person uses them: exactly `tenants` ticked, then Allow access. */
async function consent(page: Page, email: string, tenants: string[]) {
  await expect(page.getByRole('heading', { name: 'Log in to Xero' })).toBeVisible();
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('heading', { name: /wants to access your Xero data/ })).toBeVisible();
  for (const name of [SHOP, BUILDERS]) {
    const box = page.getByRole('checkbox', { name });
    if (tenants.includes(name)) await box.check();
    else await box.uncheck();
  }
  await page.getByRole('button', { name: 'Allow access' }).click();
}

async function connectBoth(page: Page, email: string) {
  await page.goto('/organizations');
  await page.getByRole('button', { name: 'Connect New Organization' }).click();
  await consent(page, email, [SHOP, BUILDERS]);
  await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
  await expect(page.getByRole('group', { name: BUILDERS })).toBeVisible();
}

/** The header's connection pill that shows at this width. */
const pill = (page: Page) => page.getByRole('banner').getByRole('status').first();

/** Waits until the server itself knows the connection is lost (a read that asks nothing of Xero). */
async function serverKnowsLost(page: Page, reason: string) {
  await expect
    .poll(async () => (await (await page.request.get('/api/xero/connection')).json()).lostReason, {
      timeout: 30_000,
    })
    .toBe(reason);
}

async function bothWidths(page: Page, name: string) {
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await screenshot(page, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe('what a new user still hit (issue 45)', () => {
  test('a revoke made in Xero is noticed with nobody acting, and every screen says it in one wording', async ({
    page,
  }) => {
    await signUp(page);
    const email = `${unique('revoked')}@example.com`;
    // The browser's clock runs on its own until fast-forwarded: the header's two-minute re-read comes at once.
    await page.clock.install();
    await connectBoth(page, email);
    await expect(pill(page)).toHaveText('Connected to Xero');

    // Someone revokes Ledgerlink's access in Xero. Nobody touches the app.
    await sandbox(page, '/__sandbox/faults', { revokeTokens: { email } });
    await serverKnowsLost(page, 'revoked');
    await page.clock.fastForward('02:05');
    await expect(pill(page)).toHaveText('Xero access revoked');
    await expect(pill(page)).toHaveAttribute('data-status', 'lost');

    // The Organizations page: the same words above the cards and on each, Live updates off, one Reconnect.
    await page.reload();
    const main = page.getByRole('main');
    await expect(main.getByRole('alert').filter({ hasText: 'Xero access revoked' })).toBeVisible();
    for (const name of [SHOP, BUILDERS]) {
      const card = page.getByRole('group', { name });
      await expect(card.getByText('Xero access revoked')).toBeVisible();
      await expect(card.getByText(/^Off until Xero is reconnected/)).toBeVisible();
    }
    await expect(main.getByRole('button', { name: /Reconnect/ })).toHaveCount(1);
    for (const old of OLD_WORDINGS) await expect(page.getByText(old)).toHaveCount(0);
    await bothWidths(page, 'i45-organizations-revoked');

    // A feature page and Settings say the same.
    await page.goto('/invoices');
    await expect(page.getByRole('heading', { name: 'Reconnect to Xero' })).toBeVisible();
    await expect(main.getByText('Xero access revoked')).toBeVisible();
    await expect(main.getByRole('button', { name: /Reconnect/ })).toHaveCount(1);
    for (const old of OLD_WORDINGS) await expect(page.getByText(old)).toHaveCount(0);
    await bothWidths(page, 'i45-invoices-revoked');
    await page.goto('/settings');
    await expect(page.getByRole('heading', { name: 'Xero access revoked' })).toBeVisible();
    for (const old of OLD_WORDINGS) await expect(page.getByText(old)).toHaveCount(0);
    await bothWidths(page, 'i45-settings-revoked');
  });

  test('a reconnect whose consent leaves Demo Builders out says so and offers to connect it; Last connected moves', async ({
    page,
  }) => {
    await signUp(page);
    const email = `${unique('ticks')}@example.com`;
    await connectBoth(page, email);
    const before = (await (await page.request.get('/api/user-organizations')).json()) as Array<{
      tenantName: string;
      lastAccessed: string;
    }>;
    await sandbox(page, '/__sandbox/faults', { revokeTokens: { email } });
    await serverKnowsLost(page, 'revoked');

    // Reconnect, allowing access with the ticks as offered: only Demo Shop.
    await page.goto('/organizations');
    await page.getByRole('main').getByRole('button', { name: 'Reconnect', exact: true }).click();
    await consent(page, email, [SHOP]);
    await expect(page).toHaveURL(/\/organizations$/);
    const said = toast(page).filter({ hasText: 'Connected to Xero' });
    await expect(said).toContainText(`${BUILDERS} was not included in what you allowed in Xero.`);
    const alert = page
      .getByRole('alert')
      .filter({ hasText: `${BUILDERS} was not included in what you allowed in Xero` });
    await expect(alert).toBeVisible();
    const builders = page.getByRole('group', { name: BUILDERS });
    await expect(builders.getByText('Not connected')).toBeVisible();
    await expect(builders).toContainText(`${BUILDERS} was not included in what you allowed in Xero`);
    await expect(builders).not.toContainText('Disconnected from Xero');
    await expect(page.getByRole('group', { name: SHOP }).getByText('Active', { exact: true })).toBeVisible();
    const after = (await (await page.request.get('/api/user-organizations')).json()) as typeof before;
    const shopBefore = before.find((o) => o.tenantName === SHOP)?.lastAccessed ?? '';
    const shopAfter = after.find((o) => o.tenantName === SHOP)?.lastAccessed ?? '';
    expect(Date.parse(shopAfter)).toBeGreaterThan(Date.parse(shopBefore));
    await bothWidths(page, 'i45-organizations-not-included');

    // Connect it from the card, and leave it unticked again: nothing says "Connected to Xero".
    await builders.getByRole('button', { name: `Connect ${BUILDERS}` }).click();
    await consent(page, email, [SHOP]);
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(toast(page).filter({ hasText: 'Not connected' })).toContainText(
      `${BUILDERS} was not included in what you allowed in Xero`,
    );
    await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toHaveCount(0);

    // The offer at the top, ticking it this time: connected.
    await page
      .getByRole('alert')
      .getByRole('button', { name: `Connect ${BUILDERS}` })
      .click();
    await consent(page, email, [BUILDERS]);
    await expect(toast(page).filter({ hasText: 'Connected to Xero' })).toBeVisible();
    await expect(builders.getByText('Not connected')).toHaveCount(0);
    await expect(page.getByRole('alert').filter({ hasText: 'was not included' })).toHaveCount(0);
  });

  test('the activity log says each line in words, at 1280 and 375 px', async ({ page }) => {
    await connectDemo(page, { active: SHOP });
    await page.goto('/settings?tab=admin');
    await page.getByRole('tab', { name: 'Activity' }).click();
    const table = page.getByRole('table');
    await expect(table.getByRole('columnheader', { name: 'What happened' })).toBeVisible();
    await expect(table.getByRole('cell', { name: 'Signed in with a password' }).first()).toBeVisible();
    await expect(
      table
        .getByRole('cell', {
          name: /^Connected Demo (Shop|Builders) Ltd and Demo (Shop|Builders) Ltd to Xero$/,
        })
        .first(),
    ).toBeVisible();
    await expect(
      table
        .getByRole('cell', { name: /^Switched on (Pay Invoices|Add Invoices|CIS Bills|Stock Journal) for / })
        .first(),
    ).toBeVisible();
    // No action codes, JSON, pence, ids or "(s)" anywhere in the list.
    const text = await table.innerText();
    expect(text).not.toMatch(/\b(user|xero|admin|settings|payment|bill)\.[a-z]/);
    expect(text).not.toMatch(/[{}[\]]|Pence|\(s\)/);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    await bothWidths(page, 'i45-activity');
    // The CSV keeps the raw columns at its end.
    const csv = await (await page.request.get('/api/admin/audit.csv')).text();
    expect(csv.split('\r\n')[0]).toBe(
      '"When (UTC)","User","Organization","What happened","Result","Action","Target","Detail","IP address","Organization ID","Target ID"',
    );
  });

  test('each tab names its screen, and the organisation where there is one', async ({ page }) => {
    await page.goto('/auth');
    await expect(page).toHaveTitle('Sign in · Ledgerlink');
    // Before anyone has signed in, the footer offers no Settings.
    await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Settings' })).toHaveCount(0);
    await connectDemo(page, { active: SHOP });
    const titles: Array<[string, string]> = [
      ['/organizations', 'Your Xero Organizations · Ledgerlink'],
      ['/invoices', `Pay Invoices · ${SHOP} · Ledgerlink`],
      ['/add-invoices', `Add Invoices · ${SHOP} · Ledgerlink`],
      ['/cis-invoices', `CIS Bills · ${SHOP} · Ledgerlink`],
      ['/cis-returns', `CIS Returns · ${SHOP} · Ledgerlink`],
      ['/stock-journal', `Stock Journal · ${SHOP} · Ledgerlink`],
      ['/settings', `Settings · ${SHOP} · Ledgerlink`],
      ['/account/security', 'Two-step sign-in · Ledgerlink'],
      ['/no-such-page', 'Page not found · Ledgerlink'],
    ];
    for (const [path, title] of titles) {
      await page.goto(path);
      await expect(page, path).toHaveTitle(title);
    }
    await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Settings' })).toBeVisible();
  });

  test('at 375 px the "Organization Changed" toast keeps off the CIS Bills entry form', async ({ page }) => {
    await connectDemo(page, { active: SHOP });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto('/cis-invoices');
    await expect(page.getByRole('heading', { name: 'CIS Bills', level: 1 })).toBeVisible();
    await page.getByRole('combobox', { name: 'Organization' }).click();
    await page.getByRole('option', { name: BUILDERS }).click();
    const changed = toast(page).filter({ hasText: 'Organization Changed' });
    await expect(changed).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('Create CIS Bills')).toBeVisible();
    const box = await changed.boundingBox();
    expect(box).toBeTruthy();
    // Nothing the user types into or presses on the form lies under the toast.
    const controls = page
      .getByRole('main')
      .locator('input, button, [role="combobox"], select, textarea')
      .filter({ visible: true });
    const boxes = await controls.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return {
          top: r.top,
          bottom: r.bottom,
          left: r.left,
          right: r.right,
          label: el.getAttribute('aria-label') ?? el.textContent,
        };
      }),
    );
    const covered = boxes.filter(
      (b) =>
        box &&
        b.bottom > box.y &&
        b.top < box.y + box.height &&
        b.right > box.x &&
        b.left < box.x + box.width,
    );
    expect(covered.map((b) => b.label)).toEqual([]);
    await screenshot(page, 'i45-cis-bills-toast-375');
  });
});
