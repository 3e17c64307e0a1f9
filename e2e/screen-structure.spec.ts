/**
 * Issue 33 items 9 and 10: one h1 per page and no skipped heading levels on every screen; the CIS create
 * card fits a phone (its empty text not cut off); the subcontractor picker's pop-up has a name; on the
 * Organizations cards at 1280 px, Settings and Disconnect stay together on one line.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { connectDemo, expect, screenshot, test, animationsSettled } from './fixtures';
import { SCREENS } from './screens';

/** What is wrong with the page's outline: not exactly one h1, or a level skipped on the way down. */
async function headingProblems(page: Page, label: string): Promise<string[]> {
  await expect(page.locator('[aria-busy="true"]'))
    .toHaveCount(0, { timeout: 15_000 })
    .catch(() => undefined);
  const headings = await page.evaluate(() =>
    [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')]
      .filter((el) => (el as HTMLElement).offsetParent !== null || el.getClientRects().length > 0)
      .map((el) => ({
        level: Number(el.getAttribute('aria-level') ?? el.tagName.slice(1)),
        text: (el.textContent ?? '').trim().slice(0, 40),
      })),
  );
  const problems: string[] = [];
  const ones = headings.filter((h) => h.level === 1);
  if (ones.length !== 1)
    problems.push(`${label}: ${ones.length} h1 (${ones.map((h) => h.text).join(' | ')})`);
  let previous = 0;
  for (const h of headings) {
    if (h.level > previous + 1) problems.push(`${label}: h${h.level} "${h.text}" after h${previous}`);
    previous = h.level;
  }
  return problems;
}

test.describe('screen structure (issue 33 items 9 and 10)', () => {
  test.describe.configure({ timeout: 240_000 });

  test('every screen has one h1 and skips no heading level', async ({ page }) => {
    await page.goto('/auth');
    await expect(page.getByRole('button', { name: /sign in/i }).first()).toBeVisible();
    const problems = await headingProblems(page, '/auth');
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    for (const screen of SCREENS) {
      await page.goto(screen.path);
      await screen.ready(page);
      problems.push(...(await headingProblems(page, screen.path)));
    }
    expect(problems).toEqual([]);
  });

  test('Organizations at 1280 px: Settings and Disconnect share one line on every card', async ({ page }) => {
    await connectDemo(page, { active: 'Demo Shop Ltd' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/organizations');
    for (const name of ['Demo Builders Ltd', 'Demo Shop Ltd']) {
      const card = page.getByRole('group', { name });
      const settingsButton = card.getByRole('button', { name: 'Settings', exact: true });
      const disconnectButton = card.getByRole('button', { name: /^Disconnect/ });
      await expect(settingsButton).toBeVisible();
      await expect(disconnectButton).toBeVisible();
      // Both boxes from one frame: read one after the other, a card still filling in (its CIS deadline,
      // live-updates row) moved the footer down between the two reads and the test saw two lines.
      const [settings, disconnect] = await card.evaluate((el) =>
        [
          [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Settings'),
          [...el.querySelectorAll('button')].find((b) =>
            b.getAttribute('aria-label')?.startsWith('Disconnect'),
          ),
        ].map((b) => {
          const r = b?.getBoundingClientRect();
          return r ? { y: r.y, height: r.height } : null;
        }),
      );
      expect(
        settings && disconnect,
        `${name}: Settings ${JSON.stringify(settings)}, Disconnect ${JSON.stringify(disconnect)}`,
      ).toBeTruthy();
      if (!settings || !disconnect) return;
      expect(Math.abs(settings.y - disconnect.y), `${name}: Disconnect on another line`).toBeLessThan(2);
      expect(disconnect.height, `${name}: Disconnect's label wraps`).toBeLessThan(40);
    }
    await screenshot(page, 'organizations-card-footer-1280');
  });

  test('CIS Bills at 375 px: the create card fits, and the picker pop-up has a name', async ({ page }) => {
    const orgs = await connectDemo(page, { active: 'Demo Builders Ltd' });
    expect(orgs.length).toBeGreaterThan(0);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto('/cis-invoices');
    const empty = page.getByText('No bills added yet. Add a bill using the form above.');
    await expect(empty).toBeVisible();
    const box = await empty.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375, `empty text at ${JSON.stringify(box)}`).toBe(true);
    expect(await empty.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    ).toBe(0);
    await screenshot(page, 'cis-bills-create-375');

    await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
    await expect(page.getByRole('dialog', { name: 'Choose a subcontractor' })).toBeVisible();
    await expect(page.getByRole('listbox', { name: 'Subcontractors' })).toBeVisible();
    await animationsSettled(page);
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(serious).toEqual([]);
    await page.keyboard.press('Escape');
  });
});
