import AxeBuilder from '@axe-core/playwright';
import { generate } from 'otplib';
import type { Page } from '@playwright/test';
import { APP_ORIGIN, expect, screenshot, setTheme, test, animationsSettled } from './fixtures';

const PASSWORD = 'Sturdy-Ledger-Pass-1';

/** A username no earlier run of this server has used (specs share one server and its database). */
function uniqueName(prefix: string): string {
  return `${prefix}.${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

function toast(page: Page) {
  return page.locator('.toast-root');
}

async function registerByApi(page: Page, username: string) {
  const res = await page.request.post('/api/register', {
    data: { username, password: PASSWORD },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(201);
}

async function signInWithPassword(page: Page, username: string, password = PASSWORD) {
  await page.goto('/auth');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function logOut(page: Page, username: string) {
  await page.getByRole('button', { name: `User menu for ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(toast(page).filter({ hasText: 'Logged out' })).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);
}

/**
 * A code one time step ahead: the server accepts one step either side of now and refuses any step at or
 * before the last one used, so each sign-in in a test takes the next step's code.
 */
function nextCode(secret: string, stepsAhead = 1): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });
}

async function noSeriousViolations(page: Page, label: string) {
  await animationsSettled(page);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${label}: ${v.id} (${v.impact}) ${v.help} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(serious).toEqual([]);
}

test.describe('Sign in with Xero', () => {
  test('through the sandbox consent page lands on /organizations signed in', async ({ page }) => {
    await page.goto('/auth');
    await page.getByRole('button', { name: 'Sign in with Xero' }).click();

    // The sandbox's own pages, as a person sees them.
    await expect(page.getByRole('heading', { name: 'Log in to Xero' })).toBeVisible();
    await page.getByRole('radio', { name: /Olivia Owner/ }).check();
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { name: /wants to access your Xero data/ })).toBeVisible();
    await page.getByRole('checkbox', { name: /Demo Shop Ltd/ }).check();
    await page.getByRole('checkbox', { name: /Demo Builders Ltd/ }).check();
    await page.getByRole('button', { name: 'Allow access' }).click();

    await expect(page.getByText('Signed in with Xero. Taking you to your organisations…')).toBeVisible();
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible();
    await expect(page.getByRole('group', { name: 'Demo Shop Ltd' })).toBeVisible();
    await expect(page.getByRole('group', { name: 'Demo Builders Ltd' })).toBeVisible();
    await expect(page.getByRole('button', { name: /User menu for / })).toBeVisible();
    const me = await (await page.request.get('/api/auth/current-user')).json();
    expect(me).toMatchObject({ isXeroUser: true });
  });

  test('Cancel on the consent page lands on /xero-cancel and then /auth', async ({ page }) => {
    // The interstitial shows for 1.5 s of the page's clock (docs/product/shell.md §2). On a busy machine that is
    // less than the time an assertion takes (issue 46), so the page's clock is held while the interstitial is
    // checked and then moved on by the 1.5 s the spec says: the test waits on the page, not on the machine.
    await page.clock.install();
    await page.goto('/auth');
    await page.getByRole('button', { name: 'Sign in with Xero' }).click();
    await page.getByRole('radio', { name: /Sam Staff/ }).check();
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.clock.pauseAt(Date.now() + 1000);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await expect(page).toHaveURL(/\/xero-cancel$/);
    await expect(page.getByRole('heading', { name: 'Xero Authentication Process' })).toBeVisible();
    await expect(page.getByText('Returning to application...')).toBeVisible();
    // The sign-in check has answered (signed out): the page offers the way back while it waits.
    await expect(page.getByRole('button', { name: 'Go to Login' })).toBeVisible();
    await expect(page).toHaveURL(/\/xero-cancel$/);
    await page.clock.runFor(1400);
    await expect(page).toHaveURL(/\/xero-cancel$/);
    await page.clock.runFor(100);
    await page.clock.resume();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeVisible();
  });
});

test.describe('Ledgerlink accounts', () => {
  test('register, sign out, and sign in with the password', async ({ page }) => {
    const username = uniqueName('e2e.reg');
    await page.goto('/auth');
    await page.getByRole('tab', { name: 'Create account' }).click();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Email (optional)').fill('bookkeeper@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(page.getByRole('heading', { name: 'No Organizations Connected' })).toBeVisible();

    await logOut(page, username);
    await signInWithPassword(page, username);
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(page.getByRole('button', { name: `User menu for ${username}` })).toBeVisible();
  });

  test('a wrong password shows the "Login failed" toast', async ({ page }) => {
    const username = uniqueName('e2e.wrong');
    await registerByApi(page, username);
    await page.request.post('/api/logout', { headers: { origin: APP_ORIGIN } });
    await signInWithPassword(page, username, 'Not-The-Right-Password-7');
    const shown = toast(page);
    await expect(shown).toContainText('Login failed');
    await expect(shown).toContainText('Invalid username or password');
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByLabel('Password')).toHaveValue('');
  });

  test('two-step sign-in: turned on, then used with a code and with a recovery code', async ({ page }) => {
    const username = uniqueName('e2e.mfa');
    await registerByApi(page, username);
    await page.goto('/organizations');
    await page.getByRole('button', { name: `User menu for ${username}` }).click();
    await page.getByRole('menuitem', { name: 'Two-step sign-in' }).click();
    await expect(page).toHaveURL(/\/account\/security$/);
    await expect(page.getByText('Off', { exact: true })).toBeVisible();

    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
    const secret = ((await page.getByLabel('Set-up key').textContent()) ?? '').replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const code = await nextCode(secret, 0);
    await page.getByLabel('Code from the app').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await expect(
      page.getByText('That code is not right. Check your authenticator app and try again.'),
    ).toBeVisible();
    await page.getByLabel('Code from the app').fill(code);
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    const codesList = page.getByRole('list', { name: 'Recovery codes' });
    await expect(codesList).toBeVisible();
    const recoveryCodes = await codesList.getByRole('listitem').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await expect(page.getByRole('button', { name: 'Download' })).toBeVisible();
    await screenshot(page, 'mfa-recovery-codes-light-1280');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText('On', { exact: true })).toBeVisible();
    await expect(page.getByText('10 of 10 recovery codes left.')).toBeVisible();

    // Password, then the code.
    await logOut(page, username);
    await signInWithPassword(page, username);
    await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
    // Nothing else works on the half-signed-in session.
    expect((await page.request.get('/api/user-organizations')).status()).toBe(401);
    await page.getByLabel('Authentication code').fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/organizations$/);
    await expect(page.getByRole('button', { name: `User menu for ${username}` })).toBeVisible();

    // Password, then a recovery code; the same recovery code is refused the next time.
    await logOut(page, username);
    await signInWithPassword(page, username);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/organizations$/);
    await logOut(page, username);
    await signInWithPassword(page, username);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(
      page.getByText('That code is not right. Check your authenticator app and try again.'),
    ).toBeVisible();
    await page.getByRole('button', { name: 'Back to sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeVisible();
  });

  test('two-step screens look finished at 1280 and 375 px, light and dark', async ({ page }) => {
    test.setTimeout(240_000);
    const username = uniqueName('e2e.look');
    await registerByApi(page, username);
    const setup = await (
      await page.request.post('/api/auth/mfa/setup', { headers: { origin: APP_ORIGIN } })
    ).json();
    const enabled = await page.request.post('/api/auth/mfa/enable', {
      data: { code: await nextCode(setup.secret, 0) },
      headers: { origin: APP_ORIGIN },
    });
    expect(enabled.status()).toBe(200);
    const recoveryCodes = ((await enabled.json()) as { recoveryCodes: string[] }).recoveryCodes;
    let round = 0;

    for (const theme of ['light', 'dark'] as const) {
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto('/account/security');
        await setTheme(page, theme);
        await page.reload();
        await expect(page.getByText(/of 10 recovery codes left\./)).toBeVisible();
        await screenshot(page, `mfa-settings-on-${theme}-${width}`);
        await page.getByRole('button', { name: 'Turn off' }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await screenshot(page, `mfa-turn-off-dialog-${theme}-${width}`);
        await page.keyboard.press('Escape');

        await page.request.post('/api/logout', { headers: { origin: APP_ORIGIN } });
        await signInWithPassword(page, username);
        await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
        await screenshot(page, `mfa-second-step-${theme}-${width}`);
        await page.getByRole('button', { name: 'Use a recovery code' }).click();
        await page.getByRole('button', { name: 'Verify' }).click();
        await expect(page.getByText('Enter the code', { exact: true })).toBeVisible();
        await screenshot(page, `mfa-second-step-recovery-${theme}-${width}`);
        await page.getByRole('button', { name: 'Back to sign in' }).click();
        await expect(page.getByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeVisible();
        await signInWithRecoveryCode(page, username, recoveryCodes[round] ?? '');
        round += 1;
      }
    }

    // The set-up screen (a fresh account, QR code on screen).
    const other = uniqueName('e2e.look2');
    await page.request.post('/api/logout', { headers: { origin: APP_ORIGIN } });
    await registerByApi(page, other);
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto('/account/security');
        await setTheme(page, theme);
        await page.reload();
        await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
        await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
        await screenshot(page, `mfa-setup-${theme}-${width}`);
      }
    }
  });

  test('the compulsory set-up for administrators looks finished (REQUIRE_MFA_FOR_ADMINS answer simulated)', async ({
    page,
  }) => {
    // The e2e server runs without REQUIRE_MFA_FOR_ADMINS; the integration tests cover the server side. Here
    // the sign-in answer is replaced so the screen can be seen, and the set-up itself is the real one.
    await registerByApi(page, uniqueName('e2e.forced'));
    await page.route('**/api/auth/current-user', (route) =>
      route.fulfill({ status: 401, json: { message: 'Not authenticated' } }),
    );
    await page.route('**/api/login', (route) =>
      route.fulfill({ status: 200, json: { mfaSetupRequired: true } }),
    );
    for (const [theme, width] of [
      ['light', 1280],
      ['dark', 375],
    ] as const) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto('/auth');
      await setTheme(page, theme);
      await signInWithPassword(page, 'admin.example', 'any-password-1');
      await expect(page.getByRole('heading', { name: 'Set up two-step sign-in' })).toBeVisible();
      await page.getByRole('button', { name: 'Set up now' }).click();
      await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
      await screenshot(page, `mfa-compulsory-setup-${theme}-${width}`);
    }
  });

  test('no serious or critical accessibility problems on /auth and its second step', async ({ page }) => {
    await page.goto('/auth');
    await expect(page.getByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeVisible();
    await noSeriousViolations(page, '/auth');
    await page.getByRole('tab', { name: 'Create account' }).click();
    await noSeriousViolations(page, '/auth (create account)');

    const username = uniqueName('e2e.axe');
    await registerByApi(page, username);
    const setup = await (
      await page.request.post('/api/auth/mfa/setup', { headers: { origin: APP_ORIGIN } })
    ).json();
    await page.goto('/account/security');
    await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
    await page.request.post('/api/auth/mfa/enable', {
      data: { code: await nextCode(setup.secret, 0) },
      headers: { origin: APP_ORIGIN },
    });
    await page.request.post('/api/logout', { headers: { origin: APP_ORIGIN } });
    await signInWithPassword(page, username);
    await expect(page.getByRole('heading', { name: 'Two-step sign-in' })).toBeVisible();
    await noSeriousViolations(page, '/auth (two-step)');
  });
});

/** Signs back in through the API with the password and a recovery code (the page shares the cookies). */
async function signInWithRecoveryCode(page: Page, username: string, code: string) {
  const res = await page.request.post('/api/login', {
    data: { username, password: PASSWORD },
    headers: { origin: APP_ORIGIN },
  });
  expect(await res.json()).toEqual({ mfaRequired: true });
  const verified = await page.request.post('/api/auth/mfa/verify', {
    data: { code },
    headers: { origin: APP_ORIGIN },
  });
  expect(verified.status(), await verified.text()).toBe(200);
}
