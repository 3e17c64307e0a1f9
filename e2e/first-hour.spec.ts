/**
 * A new user's first hour: `npm start` on an empty data folder, then "Try the demo". This spec starts its own
 * server as `npm start` does (demo mode, no ADMIN_* variables, its own DATA_DIR and ports) instead of the
 * shared e2e server, whose administrator is created from ADMIN_USERNAME/ADMIN_PASSWORD: the server bundle
 * scripts/e2e.mjs has just built, with the Node flags of `npm run start:only` (what `npm start` runs once it has
 * built), rather than the TypeScript sources through tsx, which cost half a minute of compiling on a busy machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startCommandFlags } from '../src/server/test/start-command';
import { expect, screenshot, test } from './fixtures';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let server: ChildProcess | undefined;
let dataDir = '';
let origin = '';
let stdout = '';

test.describe('a fresh demo', () => {
  test.describe.configure({ timeout: 240_000 });

  test.beforeAll(async () => {
    // A first start creates and migrates a new embedded database and prepares the demo: slow on a busy machine.
    test.setTimeout(240_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-first-hour-'));
    const [port, sandboxPort] = [await freePort(), await freePort()];
    origin = `http://localhost:${port}`;
    server = spawn(process.execPath, [...startCommandFlags(), 'dist/server/server.mjs'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        SANDBOX_PORT: String(sandboxPort),
        DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    // The password line comes last, once the server listens and the demo is prepared.
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (/^Demo administrator: .*password/m.test(stdout)) resolve();
        else if (server?.exitCode !== null) reject(new Error(`the server stopped: ${stderr}`));
        else setTimeout(check, 200);
      };
      check();
    });
  });

  test.afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('"Try the demo" reaches an invoice to pay and the CIS Bills form with no other step', async ({
    page,
  }) => {
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^Ledgerlink ready on http:\/\/localhost:\d+ · database: PGlite \(embedded\) .* · Xero: demo/,
      ),
      'Demo ready: Demo Builders Ltd and Demo Shop Ltd connected, every feature switched on, Settings defaults chosen',
      expect.stringMatching(/^Demo administrator: username "admin", password "[^"]+"/),
    ]);

    await page.goto(`${origin}/`);
    await expect(page).toHaveURL(/\/auth/);
    await screenshot(page, 'first-hour-1-sign-in');
    await page.getByRole('button', { name: 'Try the demo' }).click();

    // Two organisations: the landing page is Today (issue 47), the Organizations page one click away.
    await expect(page).toHaveURL(/\/today/);
    await expect(page.getByRole('heading', { name: 'Today', level: 1 })).toBeVisible();
    await page.getByRole('link', { name: 'Your Xero Organizations' }).click();
    await expect(page).toHaveURL(/\/organizations/);
    const shop = page.getByRole('group', { name: 'Demo Shop Ltd' });
    const builders = page.getByRole('group', { name: 'Demo Builders Ltd' });
    await expect(shop.getByText('Active')).toBeVisible();
    await expect(builders.getByRole('button', { name: 'Activate Demo Builders Ltd' })).toBeVisible();
    for (const card of [shop, builders]) {
      for (const feature of ['Pay Invoices', 'Add Invoices', 'CIS Bills', 'Stock Journal']) {
        await expect(card.getByRole('button', { name: feature, exact: true })).toBeEnabled();
      }
    }
    await expect(page.getByText('No Organizations Connected')).toHaveCount(0);
    await screenshot(page, 'first-hour-2-organizations');

    await shop.getByRole('button', { name: 'Pay Invoices', exact: true }).click();
    await expect(page).toHaveURL(/\/invoices$/);
    await expect(page.getByRole('heading', { name: 'Pay Invoices', exact: true })).toBeVisible();
    await expect(page.getByText(/^INV-\d+$/).first()).toBeVisible();
    await screenshot(page, 'first-hour-3-pay-invoices');

    await page.goBack();
    await page
      .getByRole('group', { name: 'Demo Shop Ltd' })
      .getByRole('button', { name: 'CIS Bills', exact: true })
      .click();
    await expect(page).toHaveURL(/\/cis-invoices$/);
    await expect(page.getByRole('heading', { name: 'CIS Bills', exact: true })).toBeVisible();
    await expect(page.getByRole('combobox', { name: /^Subcontractor/ })).toBeVisible();
    await expect(page.getByRole('spinbutton', { name: 'Gross Amount' })).toBeVisible();
    await screenshot(page, 'first-hour-4-cis-bills');

    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, 'first-hour-4-cis-bills-375');
  });

  test('the demo is ready for work: a cash sale, a new invoice, a CIS bill and a stock journal on the first click', async ({
    page,
  }) => {
    await page.goto(`${origin}/auth`);
    await page.getByRole('button', { name: 'Try the demo' }).click();
    await expect(page).toHaveURL(/\/today/);
    await page.goto(`${origin}/organizations`);

    await test.step('Settings: the defaults a person would choose, none left at "None"', async () => {
      await page
        .getByRole('group', { name: 'Demo Shop Ltd' })
        .getByRole('button', { name: /Settings/ })
        .click();
      await expect(page).toHaveURL(/\/settings/);
      await expect(page.getByRole('combobox', { name: 'Cash account' })).toContainText('Cash');
      await expect(page.getByRole('combobox', { name: 'Sales account' })).toContainText('Sales');
      await expect(page.getByRole('combobox', { name: 'Default contact' })).toContainText('Daily Sales');
      await expect(page.getByRole('combobox', { name: 'Stock account' })).toContainText('Inventory');
      await screenshot(page, 'first-hour-5-settings');
    });

    await test.step('Add Invoices: a cash sale on a draft and a new invoice, each on the first Process', async () => {
      await page.goto(`${origin}/add-invoices`);
      const first = page.locator('tbody tr[data-invoice-id]').first();
      await expect(first).toBeVisible();
      const number = (await first.locator('td').first().innerText()).trim();
      await page.getByLabel(`Cash amount for ${number}`).fill('12.34');
      await page.getByRole('button', { name: `Process ${number}` }).click();
      await expect(first).toContainText('£12.34 cash pending');
      await expect(page.getByText(/No default cash account/)).toHaveCount(0);

      await expect(page.locator('tr[data-new-invoice-row]')).toContainText('Daily Sales');
      await page.getByLabel('New invoice total').fill('48');
      await page.getByLabel('New invoice cash amount').fill('48');
      await page.getByRole('checkbox', { name: 'Approve new invoice' }).click();
      await page.getByRole('button', { name: 'Process new invoice' }).click();
      await expect(page.getByText(/^Invoice INV-\d+ was created in Xero and approved\.$/)).toBeVisible();
      await screenshot(page, 'first-hour-6-add-invoices');
    });

    await test.step('Stock Journal: the settings are complete', async () => {
      await page.goto(`${origin}/stock-journal`);
      await expect(page.getByRole('heading', { name: /^Stock Journal/ }).first()).toBeVisible();
      await expect(page.getByText(/^INV-|^\d[\d,]* invoices?$/).first()).toBeVisible();
      await expect(page.getByText('Stock journal settings incomplete')).toHaveCount(0);
    });

    await test.step('CIS Bills on Demo Builders: its bill account and CIS group, and a bill created', async () => {
      await page.goto(`${origin}/organizations`);
      await page.getByRole('button', { name: 'Activate Demo Builders Ltd' }).click();
      await expect(
        page.getByRole('group', { name: 'Demo Builders Ltd' }).getByText('Active', { exact: true }),
      ).toBeVisible();
      await page
        .getByRole('group', { name: 'Demo Builders Ltd' })
        .getByRole('button', { name: 'CIS Bills', exact: true })
        .click();
      await expect(page).toHaveURL(/\/cis-invoices$/);
      await expect(page.getByRole('combobox', { name: 'Account Code' })).toContainText(
        'Subcontractors (321)',
      );
      await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
      // The CIS group only: its subcontractors, not the builder's merchants.
      await expect(page.getByRole('option', { name: /^Hughes Groundworks Ltd/ })).toBeVisible();
      await page.getByRole('textbox', { name: 'Search contractors' }).fill('Timber');
      await expect(page.getByText('No CIS subcontractors found')).toBeVisible();
      await page.getByRole('textbox', { name: 'Search contractors' }).fill('Hughes');
      await page.getByRole('option', { name: /^Hughes Groundworks Ltd/ }).click();
      await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('500');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('button', { name: 'Create 1 Bill in Xero' }).click();
      await expect(page.getByText('Created 1 of 1 bill in Xero')).toBeVisible();
      // Issue 33 item 6: one bill is "1 bill".
      await expect(page.getByText('Successfully created 1 bill', { exact: true }).first()).toBeVisible();
      await screenshot(page, 'first-hour-7-cis-bills-created');
    });

    await test.step('CIS Returns on Demo Builders: a careful contractor’s history (issue 42 item 7)', async () => {
      await page.goto(`${origin}/cis-returns`);
      const months = page.getByRole('list', { name: 'Tax months' });
      await expect(months.getByText('In progress')).toBeVisible();
      // Every month due before today filed; one a few days late, keeping its £100; nothing overdue.
      await expect(months.getByText(/Filed \d{1,2} \w{3} \d{4}/).first()).toBeVisible();
      await expect(months.getByText('Late · £100.00 penalty')).toHaveCount(1);
      await expect(months.getByText(/Overdue/)).toHaveCount(0);
      // The return shown (or its checklist, while the month is open) misses no reference.
      await expect(page.getByText(/· \d+ missing/)).toHaveCount(0);
      await screenshot(page, 'first-hour-8-cis-returns');
    });
  });
});
