/**
 * Issue 33 item 12: a subcontractor whose CIS settings Ledgerlink has not read yet is not "(No UTR)". The
 * list the screen receives says hasValidUTR null for it (not false), the picker shows it as being checked,
 * and once Xero's CIS settings are read it shows what Xero says.
 */
import type { Page } from '@playwright/test';
import { APP_ORIGIN, connectDemo, expect, resetSandbox, sandbox, screenshot, test } from './fixtures';

interface CisContact {
  id: string;
  name: string;
  hasValidUTR: boolean | null;
  cisChecked?: boolean;
}

async function saveCisSettings(page: Page, organizationId: number) {
  const get = async <T>(path: string) =>
    (await (await page.request.get(`${path}?org=${organizationId}`)).json()) as T;
  const accounts = await get<Array<{ id: string; code: string }>>('/api/xero/bill-accounts');
  const groups = await get<Array<{ id: string; name: string }>>('/api/xero/contact-groups');
  const res = await page.request.patch(`/api/xero/settings?org=${organizationId}`, {
    data: {
      defaultBillAccountId: accounts.find((a) => a.code === '321')?.id,
      defaultCisSubcontractorsGroupId: groups.find((g) => g.name === 'CIS Subcontractors')?.id,
    },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
}

test('a subcontractor whose CIS settings are not read yet is "checking", never "(No UTR)"', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await resetSandbox(page);
  const orgs = await connectDemo(page, { active: 'Demo Builders Ltd' });
  const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
  if (!builders) throw new Error('Demo Builders not connected');
  await saveCisSettings(page, builders.organizationId);

  // Stone & Sons changes in Xero, so whatever Ledgerlink read of its CIS settings no longer holds.
  const before = (await (await page.request.get('/api/xero/cis-contacts')).json()) as CisContact[];
  const stone = before.find((c) => c.name === 'Stone & Sons Brickwork');
  if (!stone) throw new Error('Stone & Sons not listed');
  await sandbox(page, `/__sandbox/contacts/${stone.id}/edit`, { email: 'office@stone-sons.example' });
  await page.request.get('/api/xero/cis-contacts?refresh=true');

  const listed = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/xero/cis-contacts' && r.request().method() === 'GET',
  );
  await page.goto('/cis-invoices');
  const onScreen = ((await (await listed).json()) as CisContact[]).find((c) => c.id === stone.id);
  // What the browser was told before anything was checked: not known, and not false.
  expect(onScreen).toMatchObject({ cisChecked: false, hasValidUTR: null });

  await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
  await page.getByRole('textbox', { name: 'Search contractors' }).fill('Stone');
  // Checked when shown: Xero's 30 % rate means HMRC could not verify them, so now it is "(No UTR)".
  await expect(page.getByRole('option', { name: 'Stone & Sons Brickwork (No UTR)' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Search contractors' }).fill('Hughes');
  await expect(page.getByRole('option', { name: 'Hughes Groundworks Ltd', exact: true })).toBeVisible();
  await screenshot(page, 'cis-unknown-utr-picker-1280');
});
