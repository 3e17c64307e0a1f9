import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  SANDBOX_URL,
  screenshot,
  setTheme,
  test,
  animationsSettled,
} from './fixtures';

interface SandboxWrite {
  kind: string;
  action: string;
  id: string;
  summary: Record<string, string | number | boolean | null>;
}

/** The bills the sandbox applied since the ledger was last cleared. */
async function billWrites(page: Page): Promise<SandboxWrite[]> {
  const res = await page.request.get(`${SANDBOX_URL}/__sandbox/ledger`);
  const ledger = (await res.json()) as { writes: SandboxWrite[] };
  return ledger.writes.filter((w) => w.kind === 'bill');
}

/**
 * Saves the default bill account (321 Subcontractors) and the CIS group through the settings API, as the
 * settings screen would, and the CIS settings of issue 42: deductions to CIS Deductions Payable (814),
 * materials on Materials (322), no reverse charge.
 */
async function saveCisSettings(page: Page) {
  const cis = await page.request.put('/api/xero/cis/settings', {
    data: {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: ['322'],
      deductionAccountCode: '814',
      reverseCharge: false,
    },
    headers: { origin: APP_ORIGIN },
  });
  expect(cis.status(), await cis.text()).toBe(200);
  const accounts = (await (await page.request.get('/api/xero/direct-costs-accounts')).json()) as Array<{
    id: string;
    code: string;
  }>;
  const groups = (await (await page.request.get('/api/xero/contact-groups')).json()) as Array<{
    id: string;
    name: string;
  }>;
  const res = await page.request.patch('/api/xero/settings', {
    data: {
      defaultBillAccountId: accounts.find((a) => a.code === '321')?.id,
      defaultCisSubcontractorsGroupId: groups.find((g) => g.name === 'CIS Subcontractors')?.id,
    },
    headers: { origin: APP_ORIGIN },
  });
  expect(res.status(), await res.text()).toBe(200);
}

async function chooseSubcontractor(page: Page, subcontractor: string) {
  await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
  await page.getByRole('textbox', { name: 'Search contractors' }).fill(subcontractor.slice(0, 6));
  const option = page
    .getByRole('option', { name: subcontractor, exact: true })
    .or(page.getByRole('option', { name: `${subcontractor} (No UTR)`, exact: true }));
  await option.click();
  // The rate is known once Xero's CIS settings for the contact are read (issue 42).
  await expect(page.getByRole('combobox', { name: /^Subcontractor/ })).not.toContainText('Checking');
}

async function addBill(page: Page, subcontractor: string, amount: string, materials = '') {
  await chooseSubcontractor(page, subcontractor);
  await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill(amount);
  await page.getByRole('spinbutton', { name: 'Materials' }).fill(materials);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(
    page
      .getByRole('table', { name: 'Bills to create' })
      .or(page.getByRole('list', { name: 'Bills to create' })),
  ).toContainText(subcontractor);
}

function draftRow(page: Page, text: string) {
  return page.getByRole('table', { name: 'Draft CIS bills' }).getByRole('row').filter({ hasText: text });
}

test.describe('CIS Bills', () => {
  test('creates three drafts and two approved bills, edits, approves and deletes; the sandbox ledger matches', async ({
    page,
  }) => {
    // A long journey on a machine shared with other test runs.
    test.setTimeout(240_000);
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    await saveCisSettings(page);
    await page.request.delete(`${SANDBOX_URL}/__sandbox/ledger`);

    await page.goto('/cis-invoices');
    await expect(page.getByRole('heading', { name: 'CIS Bills', exact: true })).toBeVisible();
    await expect(page.getByText('No bills added yet. Add a bill using the form above.')).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Account Code' })).toContainText('Subcontractors (321)');
    await expect(
      page.getByRole('checkbox', { name: 'Create as draft bills (uncheck to approve immediately)' }),
    ).toBeChecked();
    const reference = await page.getByRole('textbox', { name: 'Reference Number' }).inputValue();
    expect(reference).toMatch(/^\d{4}$/);

    // The subcontractor search, with "(No UTR)" on subcontractors without verified CIS settings.
    await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
    await expect(page.getByRole('option', { name: 'Stone & Sons Brickwork (No UTR)' })).toBeVisible();
    await expect(page.getByRole('option', { name: 'Hughes Groundworks Ltd', exact: true })).toBeVisible();
    await page.getByRole('textbox', { name: 'Search contractors' }).fill('zzz');
    await expect(page.getByText('No CIS subcontractors found')).toBeVisible();
    await page.keyboard.press('Escape');

    // Validation before anything is sent.
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.getByText('Please select a subcontractor').first()).toBeVisible();

    // Gross/net convert: 800 net is 1,000 gross.
    await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('800');
    await page.getByRole('button', { name: 'Gross: convert to net (80%)' }).click();
    await expect(page.getByText('Converted to net (80%)').first()).toBeVisible();
    await expect(page.getByRole('spinbutton', { name: 'Net Amount (80%)' })).toHaveValue('640.00');
    await page.getByRole('button', { name: 'Net: convert to gross (100%)' }).click();
    await expect(page.getByRole('spinbutton', { name: 'Gross Amount' })).toHaveValue('800.00');
    await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('');

    await addBill(page, 'Hughes Groundworks Ltd', '1111.11');
    await addBill(page, 'A. Patel Plastering', '2222.22');
    await addBill(page, 'Stone & Sons Brickwork', '333.33');
    await expect(page.getByText('Check CIS before sending')).toBeVisible();
    const added = page.getByRole('table', { name: 'Bills to create' });
    // Hughes charges 20 % VAT (£222.22) and is deducted 20 % of the labour alone (£222.22): £1,111.11 due.
    const hughes = added.getByRole('row').filter({ hasText: 'Hughes Groundworks Ltd' });
    for (const figure of ['£1,333.33', '£222.22', '£1,111.11']) await expect(hughes).toContainText(figure);
    await screenshot(page, 'cis-bills-added-light-1280');
    await page.getByRole('button', { name: 'Create 3 Bills in Xero' }).click();
    await expect(page.getByText('Created 3 of 3 bills in Xero')).toBeVisible();
    await expect(page.getByText('No bills added yet. Add a bill using the form above.')).toBeVisible();
    await screenshot(page, 'cis-bills-created-light-1280');

    await page
      .getByRole('checkbox', { name: 'Create as draft bills (uncheck to approve immediately)' })
      .click();
    await addBill(page, 'Northside Electrical Ltd', '4444.44');
    await addBill(page, 'K. Nowak Carpentry', '555.55');
    await page.getByRole('button', { name: 'Create 2 Bills in Xero' }).click();
    await expect(page.getByText('Created 2 of 2 bills in Xero')).toBeVisible();
    await expect(page.getByText('Created and approved').first()).toBeVisible();

    // The three drafts are listed; the approved ones are not.
    await expect(draftRow(page, '£1,111.11')).toHaveCount(1);
    await expect(draftRow(page, '£2,222.22')).toHaveCount(1);
    await expect(draftRow(page, '£333.33')).toHaveCount(1);
    await expect(draftRow(page, '£4,444.44')).toHaveCount(0);

    // Edit a draft's amount.
    await draftRow(page, '£2,222.22')
      .getByRole('button', { name: /^Edit amount/ })
      .click();
    await page.getByRole('spinbutton', { name: 'Gross amount for A. Patel Plastering' }).fill('2500');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(draftRow(page, '£2,500.00')).toContainText('£500.00');
    await expect(draftRow(page, '£2,500.00')).toContainText('£2,000.00');

    // Approve one.
    await draftRow(page, '£1,111.11')
      .getByRole('button', { name: /^Approve bill/ })
      .click();
    await expect(page.getByText('Bill Approved').first()).toBeVisible();
    await expect(draftRow(page, '£1,111.11')).toHaveCount(0);

    // Delete one through the dialog.
    await draftRow(page, '£333.33')
      .getByRole('button', { name: /^Delete bill/ })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Confirm Deletion' });
    await expect(dialog).toContainText('Stone & Sons Brickwork');
    await expect(dialog).toContainText('This action cannot be undone.');
    await screenshot(page, 'cis-bills-delete-dialog-light-1280');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog).toBeHidden();
    await expect(draftRow(page, '£333.33')).toHaveCount(0);

    // Exactly what the user did, nothing more.
    const writes = await billWrites(page);
    const creates = writes.filter((w) => w.action === 'create');
    // A batch goes to Xero in the order of its items' keys (one rule for every batch), not the order typed.
    // Xero holds each bill under the supplier's number exactly as typed; its write's mark is in the bill's Url,
    // Xero's "Go to Ledgerlink" link back to CIS Bills (decision 028: found by it after a restore).
    const link = /^http:\/\/localhost:\d+\/cis-invoices\?write=LL-[0-9a-f]{10}$/;
    expect(creates.map((w) => String(w.summary.url))).toEqual(creates.map(() => expect.stringMatching(link)));
    expect(new Set(creates.map((w) => w.summary.url)).size).toBe(creates.length);
    // Xero's total is what each subcontractor is paid (issue 42): the deduction is a line of the bill.
    const created = creates.map((w) => [w.summary.total, w.summary.status, w.summary.invoiceNumber] as const);
    expect([...created].sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [233.34, 'DRAFT', reference], // Stone & Sons: £333.33 less 30 % (£99.99)
      [444.44, 'AUTHORISED', reference], // K. Nowak: £555.55 less 20 % (£111.11)
      [1111.11, 'DRAFT', reference], // Hughes: £1,111.11 + £222.22 VAT less 20 % of the labour
      [1777.78, 'DRAFT', reference], // A. Patel: £2,222.22 less 20 %
      [5333.33, 'AUTHORISED', reference], // Northside: 0 %, £4,444.44 + £888.89 VAT
    ]);
    const byTotal = (total: number) => creates.find((w) => w.summary.total === total)?.id;
    expect(
      writes
        .filter((w) => w.action !== 'create')
        .map((w) => [w.action, w.id, w.summary.status, w.summary.total]),
    ).toEqual([
      ['update', byTotal(1777.78), 'DRAFT', 2000],
      ['approve', byTotal(1111.11), 'AUTHORISED', 1111.11],
      ['delete', byTotal(233.34), 'DELETED', 233.34],
    ]);
    expect(writes).toHaveLength(8);
  });

  for (const width of [1280, 375]) {
    test(`shows each subcontractor's rate, VAT, materials and net: 20 %, 30 % and 0 % (issue 42), ${width}px`, async ({
      page,
    }) => {
      test.setTimeout(180_000);
      await resetSandbox(page);
      await connectDemo(page, { active: 'Demo Builders Ltd' });
      await saveCisSettings(page);
      await page.request.delete(`${SANDBOX_URL}/__sandbox/ledger`);
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/cis-invoices');
      await expect(page.getByRole('heading', { name: 'CIS Bills', exact: true })).toBeVisible();
      await expect(page.getByRole('combobox', { name: 'Account Code' })).toContainText(
        'Subcontractors (321)',
      );
      // Nothing missing: the deductions and materials accounts are chosen.
      await expect(page.getByRole('alert', { name: 'CIS settings needed' })).toHaveCount(0);

      // Hughes Groundworks: 20 %, VAT-registered. £1,000 labour and £400 materials, 20 % VAT on both; the
      // deduction is 20 % of the labour alone.
      await chooseSubcontractor(page, 'Hughes Groundworks Ltd');
      await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('1000');
      await page.getByRole('spinbutton', { name: 'Materials' }).fill('400');
      await expect(page.getByLabel('VAT', { exact: true })).toHaveText('£280.00');
      await expect(page.getByLabel('CIS Deduction (20%)', { exact: true })).toHaveText('£200.00');
      await expect(page.getByLabel('Amount Due (80%)', { exact: true })).toHaveText('£1,480.00');
      await expect(page.getByText('of £1,680.00 total')).toBeVisible();
      await screenshot(page, `cis-bills-issue42-entry-${width}`);
      await page.getByRole('button', { name: 'Add', exact: true }).click();

      // Stone & Sons: 30 %, not verified, no VAT.
      await chooseSubcontractor(page, 'Stone & Sons Brickwork');
      await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('500');
      await expect(page.getByLabel('CIS Deduction (20%)', { exact: true })).toHaveText('£150.00');
      await expect(page.getByText('30 % — not verified').first()).toBeVisible();
      await page.getByRole('button', { name: 'Add', exact: true }).click();

      // Northside Electrical: gross payment status, VAT-registered.
      await chooseSubcontractor(page, 'Northside Electrical Ltd');
      await page.getByRole('spinbutton', { name: 'Gross Amount' }).fill('100');
      await expect(page.getByLabel('CIS Deduction (20%)', { exact: true })).toHaveText('£0.00');
      await expect(page.getByLabel('Amount Due (80%)', { exact: true })).toHaveText('£120.00');
      await expect(page.getByText('0 % — gross payment status').first()).toBeVisible();
      await page.getByRole('button', { name: 'Add', exact: true }).click();

      const added = page
        .getByRole('table', { name: 'Bills to create' })
        .or(page.getByRole('list', { name: 'Bills to create' }));
      await expect(added).toContainText('£1,480.00');
      await expect(added).toContainText('30 % — not verified');
      await expect(added).toContainText('0 % — gross payment status');
      await screenshot(page, `cis-bills-issue42-added-${width}`);
      await animationsSettled(page);
      const axe = await new AxeBuilder({ page }).analyze();
      expect(
        axe.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ).toEqual([]);
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBe(0);

      await page.getByRole('button', { name: 'Create 3 Bills in Xero' }).click();
      await expect(page.getByText('Created 3 of 3 bills in Xero')).toBeVisible();
      // Xero's totals are what each is paid: the deduction is a line of the bill, on CIS Deductions Payable.
      const totals = (await billWrites(page))
        .filter((w) => w.action === 'create')
        .map((w) => Number(w.summary.total))
        .sort((a, b) => a - b);
      expect(totals).toEqual([120, 350, 1480]);

      // The drafts say the same, with their VAT and materials.
      const drafts = page
        .getByRole('table', { name: 'Draft CIS bills' })
        .or(page.getByRole('list', { name: 'Draft CIS bills' }));
      await expect(drafts).toContainText('£1,680.00');
      await expect(drafts).toContainText('£280.00');
      await expect(drafts).toContainText('£400.00');
      await expect(drafts).toContainText('30 % — not verified');
      await expect(drafts).toContainText('0 % — gross payment status');
      await screenshot(page, `cis-bills-issue42-drafts-${width}`);
      await animationsSettled(page);
      const after = await new AxeBuilder({ page }).analyze();
      expect(
        after.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ).toEqual([]);
    });

    test(`without a CIS deductions account the screen says where to choose it, and the link leads to the field (issue 42), ${width}px`, async ({
      page,
    }) => {
      await connectDemo(page, { active: 'Demo Builders Ltd' });
      await saveCisSettings(page);
      const cleared = await page.request.put('/api/xero/cis/settings', {
        data: {
          contractorName: null,
          utr: null,
          employerReference: null,
          accountsOfficeReference: null,
          materialsAccountCodes: ['322'],
          deductionAccountCode: null,
        },
        headers: { origin: APP_ORIGIN },
      });
      expect(cleared.status()).toBe(200);
      try {
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/cis-invoices');
        const notice = page.getByRole('alert', { name: 'CIS settings needed' });
        await expect(notice).toContainText('bills with a CIS deduction cannot be created');
        await screenshot(page, `cis-bills-issue42-settings-needed-${width}`);
        await notice.getByRole('link', { name: 'Choose the CIS deductions account in Settings' }).click();
        await expect(page).toHaveURL(/\/settings\?.*field=cisDeductionAccountCode/);
        const field = page.getByRole('combobox', { name: 'CIS deductions account' });
        await expect(field).toBeFocused();
        await field.click();
        await page.getByRole('option', { name: 'CIS Deductions Payable (814)' }).click();
        await expect(page.getByRole('option', { name: /CIS Liability/ })).toHaveCount(0);
        await expect(page.getByRole('switch', { name: 'VAT domestic reverse charge' })).not.toBeChecked();
        await page.getByRole('button', { name: 'Save CIS settings' }).click();
        await expect(page.getByText('CIS settings saved').first()).toBeVisible();
        await field.scrollIntoViewIfNeeded();
        await screenshot(page, `settings-cis-month-end-${width}`);
        await animationsSettled(page);
        const axe = await new AxeBuilder({ page }).analyze();
        expect(
          axe.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        ).toEqual([]);
        await page.goto('/cis-invoices');
        await expect(page.getByRole('heading', { name: 'Create CIS Bills' })).toBeVisible();
        await expect(page.getByRole('alert', { name: 'CIS settings needed' })).toHaveCount(0);
      } finally {
        await saveCisSettings(page);
      }
    });
  }

  test('approving without a default bill account sends the user to the settings', async ({ page }) => {
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    const res = await page.request.patch('/api/xero/settings', {
      data: { defaultBillAccountId: null },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status()).toBe(200);
    await page.goto('/cis-invoices');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    const row = page.getByRole('table', { name: 'Draft CIS bills' }).getByRole('row').nth(1);
    await row.getByRole('button', { name: /^Approve bill/ }).click();
    await expect(
      page
        .getByText('Please set a default bill account in the settings page before approving bills.')
        .first(),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/settings/);
  });

  test("an approval Xero refuses is titled by what Xero said, not 'Server error (400)' (issue 33 item 6)", async ({
    page,
  }) => {
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    await saveCisSettings(page);
    // Xero's refusal as the server passes it on (XERO_REJECTED with Xero's words).
    const said =
      "A validation exception occurred: Account code '321' has been archived, or has been deleted. Each line item must reference a valid account.";
    await page.route('**/api/xero/approve-bill/**', (route) =>
      route.fulfill({ status: 400, json: { message: said, code: 'XERO_REJECTED' } }),
    );
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/cis-invoices');
      // A table at 1280 px, cards on a phone: the first draft's Approve either way.
      await page
        .getByRole('button', { name: /^Approve bill/ })
        .filter({ visible: true })
        .first()
        .click();
      const shown = page.locator('.toast-root').filter({ hasText: 'Xero Refused the Approval' });
      await expect(shown).toBeVisible();
      await expect(shown).toContainText(
        "Account code '321' has been archived, or has been deleted. Each line item must reference a valid account.",
      );
      await expect(shown).not.toContainText('A validation exception occurred');
      await expect(page.getByText(/Server error \(400\)/)).toHaveCount(0);
      await screenshot(page, `cis-bills-approve-refused-light-${width}`);
    }
    // Issue 33 item 10: the red toast's description reads at 4.5:1 or better, in both themes.
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await page.goto('/cis-invoices');
      await page
        .getByRole('button', { name: /^Approve bill/ })
        .filter({ visible: true })
        .first()
        .click();
      const shown = page.locator('.toast-root').filter({ hasText: 'Xero Refused the Approval' });
      await expect(shown).toBeVisible();
      // The 4.13:1 of the issue came from the description drawn at 90 % opacity over the red tint: full strength.
      const description = shown.locator('[data-toast-description]');
      await expect(description).toHaveCSS('opacity', '1');
      await animationsSettled(page);
      const contrast = await new AxeBuilder({ page })
        .include('.toast-root')
        .withRules(['color-contrast'])
        .analyze();
      expect(contrast.violations.flatMap((v) => v.nodes.map((n) => `${theme}: ${n.failureSummary}`))).toEqual(
        [],
      );
    }
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      test(`looks finished: CIS Bills, ${theme}, ${width}px`, async ({ page }) => {
        await connectDemo(page, { active: 'Demo Builders Ltd' });
        await saveCisSettings(page);
        await page.setViewportSize({ width, height: 900 });
        await page.goto('/cis-invoices');
        await setTheme(page, theme);
        await page.reload();
        await expect(page.getByRole('heading', { name: 'CIS Bills', exact: true })).toBeVisible();
        await expect(page.getByText('Loading draft bills...')).toBeHidden();
        await addBill(page, 'R. Singh Tiling', '1500');
        await screenshot(page, `cis-bills-${theme}-${width}`);
        await page.getByRole('combobox', { name: /^Subcontractor/ }).click();
        const listbox = page.getByRole('listbox', { name: 'Subcontractors' });
        await expect(listbox).toBeVisible();
        // The picture once the pop-up's open animation has finished (waited for, not timed; a spinner's
        // endless turn is not waited for).
        await listbox.evaluate((el) =>
          Promise.all(
            (el.parentElement?.getAnimations({ subtree: true }) ?? [])
              .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
              .map((a) => a.finished),
          ),
        );
        await page.screenshot({ path: `e2e/screenshots/cis-bills-picker-${theme}-${width}.png` });
      });
    }
  }

  test("001's own states: not connected, and the feature switched off while the page is open (issue 17 item 14)", async ({
    page,
  }) => {
    // A new person with no Xero connection sees CIS Bills' own words, not the connect page.
    const username = `cis-nc-${Date.now()}`;
    const res = await page.request.post('/api/register', {
      data: { username, password: 'a-long-e2e-password-8812' },
      headers: { origin: APP_ORIGIN },
    });
    expect(res.status(), await res.text()).toBe(201);
    await page.goto('/cis-invoices');
    await expect(page.getByRole('heading', { name: 'Not connected to Xero' })).toBeVisible();
    await expect(page.getByText('Please connect to Xero first to manage CIS bills.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Connect to Xero' })).toBeVisible();
    await screenshot(page, 'cis-bills-not-connected-light-1280');
    await page.goto('/add-invoices');
    await expect(page.getByText('You need to connect to Xero before managing draft invoices.')).toBeVisible();
    await screenshot(page, 'add-invoices-not-connected-light-1280');
    await page.request.post('/api/logout', { headers: { origin: APP_ORIGIN } });

    // The administrator switches CIS Bills off while the page is open: the notice of 001, no redirect.
    const orgs = await connectDemo(page, { active: 'Demo Builders Ltd' });
    const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
    if (!builders) throw new Error('Demo Builders not connected');
    await saveCisSettings(page);
    await page.goto('/cis-invoices');
    await expect(page.getByText('Draft CIS Bills')).toBeVisible();
    const off = await page.request.patch(`/api/admin/organizations/${builders.organizationId}/features`, {
      data: { featureCisBills: false },
      headers: { origin: APP_ORIGIN },
    });
    expect(off.status()).toBe(200);
    try {
      await expect(page.getByRole('heading', { name: 'CIS Bills is not enabled' })).toBeVisible({
        timeout: 15_000,
      });
      await expect(page.getByText('This feature is not enabled for your organization.')).toBeVisible();
      await page.waitForTimeout(1000);
      await expect(page).toHaveURL(/\/cis-invoices/);
      await screenshot(page, 'cis-bills-switched-off-light-1280');
    } finally {
      await page.request.patch(`/api/admin/organizations/${builders.organizationId}/features`, {
        data: { featureCisBills: true },
        headers: { origin: APP_ORIGIN },
      });
    }
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`at 375 px the drafts stack as cards, amounts and buttons in view, no sideways scroll (issue 17 item 13), ${theme}`, async ({
      page,
    }) => {
      await connectDemo(page, { active: 'Demo Builders Ltd' });
      await saveCisSettings(page);
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto('/cis-invoices');
      await setTheme(page, theme);
      await page.reload();
      const list = page.getByRole('list', { name: 'Draft CIS bills' });
      await expect(list.getByRole('listitem').first()).toBeVisible();
      await expect(page.getByRole('table', { name: 'Draft CIS bills' })).toHaveCount(0);
      const card = list.getByRole('listitem').first();
      await card.scrollIntoViewIfNeeded();
      for (const label of ['Gross Amount', 'CIS Deduction', 'Amount Due'])
        await expect(card.getByText(label)).toBeVisible();
      for (const name of [/^Edit amount of/, /^Approve bill/, /^Delete bill/])
        await expect(card.getByRole('button', { name })).toBeInViewport();
      const overflow = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        inside: [...document.querySelectorAll('ul[aria-label="Draft CIS bills"] *')].filter(
          (el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible',
        ).length,
      }));
      expect(overflow).toEqual({ page: 0, inside: 0 });
      await card.screenshot({ path: `e2e/screenshots/cis-bills-draft-card-${theme}-375.png` });
      await screenshot(page, `cis-bills-draft-cards-${theme}-375`);
    });
  }
});
