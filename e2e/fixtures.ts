import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Cookie, type Page } from '@playwright/test';
import { E2E_ADMIN } from '../playwright.config';

export { expect };
export const ADMIN = E2E_ADMIN;
const SHOTS = path.resolve('e2e/screenshots');

export const APP_ORIGIN = `http://localhost:${process.env.E2E_PORT ?? 5100}`;

/** The sandbox's control port for this run (set by playwright.config.ts). */
export const SANDBOX_URL = `http://127.0.0.1:${process.env.E2E_SANDBOX_PORT ?? 5155}`;

/** Saves a full-page screenshot under e2e/screenshots (git-ignored) for a person to look at. */
export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * Waits until every finite animation on the page has finished (a toast sliding in or fading out, a dialog opening);
 * a spinner's endless turn is not waited for. axe reads colours as drawn, so a toast caught half-faded reads as low
 * contrast although it is not (CI, stop 49: the Outbox's "Statement emailed" toasts mid-animation).
 */
export async function animationsSettled(page: Page) {
  for (let round = 0; round < 5; round += 1) {
    const waited = await page.evaluate(async () => {
      const running = document
        .getAnimations()
        .filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity);
      await Promise.all(running.map((a) => a.finished.catch(() => undefined)));
      return running.length;
    });
    if (waited === 0) return;
  }
}

/**
 * Each account's device cookie from its first sign-in of the run (ll_device, login-limiter.ts). Later sign-ins
 * present it, as a person's own browser does: only that browser's failures then count against the account. Without
 * it every test's fresh browser was an unknown one, and past the hundredth sign-in as the administrator within the
 * hour (the account's limit for unknown browsers) the rest of the run was refused with 429.
 */
const devices = new Map<string, Cookie>();

/** Signs in through the API (the sign-in journeys themselves go through the form). */
export async function signInByApi(page: Page, username = ADMIN.username, password = ADMIN.password) {
  const known = devices.get(username);
  if (known) await page.context().addCookies([known]);
  const res = await page.request.post('/api/login', {
    data: { username, password },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
  const device = (await page.context().cookies(`${APP_ORIGIN}/api/login`)).find(
    (c) => c.name === 'll_device',
  );
  if (device) devices.set(username, device);
}

export async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.evaluate((t) => localStorage.setItem('theme', t), theme);
}

/** POST to the sandbox's loopback control API. */
export async function sandbox(page: Page, pathName: string, body: unknown = {}) {
  const res = await page.request.post(`${SANDBOX_URL}${pathName}`, { data: body });
  expect(res.ok(), await res.text()).toBe(true);
  return res.json();
}

export const test = base;

/**
 * Signs in as the e2e administrator, connects the demo organisations through the sandbox (auto-consent,
 * so no consent page), switches every feature on, and makes `active` the active organisation.
 * Returns the organisations as GET /api/user-organizations lists them.
 */
export async function connectDemo(
  page: Page,
  options: { active?: 'Demo Shop Ltd' | 'Demo Builders Ltd'; email?: string; features?: boolean } = {},
) {
  await signInByApi(page);
  await sandbox(page, '/__sandbox/auto-consent', {
    email: options.email ?? 'owner@demoshop.example',
    tenants: 'all',
  });
  const start = await page.request.get('/api/xero/connect');
  expect(start.status(), await start.text()).toBe(200);
  await page.goto((await start.json()).url);
  await expect(page).toHaveURL(/\/organizations/);
  await page.request.delete(`${SANDBOX_URL}/__sandbox/auto-consent`);
  const orgs = (await (await page.request.get('/api/user-organizations')).json()) as Array<{
    organizationId: number;
    tenantName: string;
  }>;
  if (options.features !== false) {
    for (const org of orgs) {
      for (const flag of [
        'featurePayInvoices',
        'featureAddInvoices',
        'featureCisBills',
        'featureStockJournal',
      ]) {
        const res = await page.request.patch(`/api/admin/organizations/${org.organizationId}/features`, {
          data: { [flag]: true },
          headers: { origin: APP_ORIGIN },
        });
        expect(res.status()).toBe(200);
      }
    }
  }
  const active = orgs.find((o) => o.tenantName === (options.active ?? 'Demo Shop Ltd'));
  if (active) {
    const res = await page.request.post('/api/xero/set-active-organization', {
      data: { organizationId: active.organizationId },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status()).toBe(200);
  }
  return orgs;
}

/** Back to the seeded sandbox data (call at the start of a spec that writes to Xero). */
export async function resetSandbox(page: Page) {
  await sandbox(page, '/__sandbox/reset');
}
