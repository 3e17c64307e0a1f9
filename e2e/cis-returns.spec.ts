import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { getPeriodOf, getTaxMonth, type CisMonthsResponse, type CisReturn } from '../src/shared/cis-returns';
import { getUkToday } from '../src/shared/dates';
import { formatPounds } from '../src/shared/money';
import { readPdfText } from '../src/server/test/pdf-text';
import {
  APP_ORIGIN,
  connectDemo,
  expect,
  resetSandbox,
  sandbox,
  screenshot,
  test,
  animationsSettled,
} from './fixtures';

// Issues 29 and 42: the CIS month-end screen in Chromium. A person enters a CIS bill in Xero (labour and
// materials) and pays it there; the open return shows it without a reload (Xero's webhooks), at the
// subcontractor's rate; the references are typed in on the screen, the statement PDF downloaded from the screen
// carries every field HMRC asks for and the same figures as the return; the month is marked filed once its
// checklist is complete, a payment added to it afterwards shows as a change since filing, and the administrator
// undoes the filing.

const SUBCONTRACTOR = 'R. Singh Tiling'; // 30 %: HMRC could not verify them, so a verification number applies.
const CONTRACTOR = {
  contractorName: null,
  utr: '9876543210',
  employerReference: '123/AB45678',
  accountsOfficeReference: '123PA00012345',
  materialsAccountCodes: [] as string[],
};

async function readReturn(page: Page, period: string): Promise<CisReturn> {
  const res = await page.request.get(`/api/xero/cis/returns?period=${period}&refresh=true`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as CisReturn;
}

/** The subcontractor's row: a table row, or on a phone a card of the list. */
function row(page: Page, name: string) {
  return page
    .getByRole('table', { name: /^Payments to subcontractors/ })
    .getByRole('row')
    .or(page.getByRole('list', { name: /^Payments to subcontractors/ }).getByRole('listitem'))
    .filter({ hasText: name });
}

/** axe serious + critical = 0 on what the screen shows now, and no sideways scroll. */
async function expectAccessible(page: Page) {
  await animationsSettled(page);
  const results = await new AxeBuilder({ page }).analyze();
  const problems = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) → ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(problems).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test.describe('CIS Returns', () => {
  test('shows a bill paid in Xero on the open return, takes the references, and the statement PDF says the same', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    const saved = await page.request.put('/api/xero/cis/settings', {
      data: CONTRACTOR,
      headers: { origin: APP_ORIGIN },
    });
    expect(saved.status(), await saved.text()).toBe(200);
    const period = getPeriodOf(getUkToday());
    const contacts = (await (await page.request.get('/api/xero/cis-contacts')).json()) as Array<{
      id: string;
      name: string;
    }>;
    const singh = contacts.find((c) => c.name === SUBCONTRACTOR)?.id ?? '';
    expect(singh).not.toBe('');

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/cis-returns');
    await expect(page.getByRole('heading', { name: 'CIS Returns', exact: true })).toBeVisible();
    await page.locator(`[data-period="${period}"]`).click();
    await expect(page.getByText(/Monthly return \(CIS300\)/)).toBeVisible();
    const before = (await readReturn(page, period)).lines.find((l) => l.contactId === singh);

    // A person enters a CIS bill in Xero: £400 labour, £100 materials; Xero deducts 30 % of the labour (£120),
    // and the person pays the £380 due.
    const bill = (await sandbox(page, '/__sandbox/bills', {
      contactId: singh,
      reference: 'RS-29',
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Tiling labour', unitAmount: 400, accountCode: '327' },
        { description: 'Tiles and adhesive', unitAmount: 100, accountCode: '328' },
      ],
    })) as { invoiceId: string; amountDue: number };
    expect(bill.amountDue).toBe(380);
    await sandbox(page, `/__sandbox/invoices/${bill.invoiceId}/pay`, { amount: 380 });
    await sandbox(page, '/__sandbox/webhooks/flush');

    // The open screen shows it without a reload, at Singh's rate.
    const gross = (before?.grossAmount ?? 0) + 500;
    const deducted = (before?.deductionAmount ?? 0) + 120;
    await expect(row(page, SUBCONTRACTOR)).toContainText(formatPounds(gross), { timeout: 20_000 });
    await expect(row(page, SUBCONTRACTOR)).toContainText(formatPounds(deducted));
    await expect(row(page, SUBCONTRACTOR)).toContainText('30 % — not verified');

    // The references, typed in where the subcontractor is shown; a bad one is refused with the rule.
    await page.getByRole('button', { name: `Edit UTR and verification number of ${SUBCONTRACTOR}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'UTR' }).fill('12345');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByText('UTR must be 10 digits')).toBeVisible();
    await dialog.getByRole('textbox', { name: 'UTR' }).fill('2345678901');
    await dialog.getByRole('textbox', { name: 'Verification number' }).fill('V0987654321RS');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(row(page, SUBCONTRACTOR)).toContainText('2345678901');
    await expect(row(page, SUBCONTRACTOR)).toContainText('V0987654321RS');

    const shown = (await readReturn(page, period)).lines.find((l) => l.contactId === singh);
    expect(shown).toMatchObject({ grossAmount: gross, deductionAmount: deducted, rate: 30 });

    await screenshot(page, 'cis-returns-1280');
    await expectAccessible(page);

    // The statement, downloaded from the screen, read back: every field CISR12160 lists.
    const download = page.waitForEvent('download');
    await row(page, SUBCONTRACTOR)
      .getByRole('link', { name: `Statement for ${SUBCONTRACTOR} (PDF)` })
      .click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`cis-statement-${period}-r-singh-tiling.pdf`);
    const pdf = Buffer.concat((await (await file.createReadStream()).toArray()) as Buffer[]);
    const text = readPdfText(pdf);
    expect(text).toEqual(
      expect.arrayContaining([
        'Payment and deduction statement',
        'Demo Builders Ltd',
        '123/AB45678',
        SUBCONTRACTOR,
        '2345678901',
        'V0987654321RS',
        formatPounds(shown?.grossAmount ?? 0),
        formatPounds(shown?.materialsAmount ?? 0),
        formatPounds(shown?.deductionAmount ?? 0),
      ]),
    );
    expect(text.join(' ')).toContain('Tax month ending');

    // The CSV download carries the same row.
    const csv = await page.request.get(`/api/xero/cis/returns?period=${period}&format=csv`);
    expect(await csv.text()).toContain(
      `"${SUBCONTRACTOR}","2345678901","V0987654321RS","30","${gross.toFixed(2)}"`,
    );

    await page.setViewportSize({ width: 375, height: 800 });
    await expect(row(page, SUBCONTRACTOR)).toBeVisible();
    await screenshot(page, 'cis-returns-375');
    await expectAccessible(page);
  });

  test('files the last month once its checklist is complete, shows a later payment as a change, and the administrator undoes it', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    const { months } = (await (await page.request.get('/api/xero/cis/months')).json()) as CisMonthsResponse;
    const last = months.find((m) => m.state !== 'current');
    expect(last).toBeDefined();
    const period = last?.period ?? '';
    // Start from a month not marked (an earlier run may have left it marked).
    await page.request.delete(`/api/xero/cis/returns/${period}/filing`, { headers: { origin: APP_ORIGIN } });
    await page.request.delete(`/api/xero/cis/returns/${period}/nil-mark`, {
      headers: { origin: APP_ORIGIN },
    });

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/cis-returns');
    await page.locator(`[data-period="${period}"]`).click();
    await expect(page.getByText(/Monthly return \(CIS300\)/)).toBeVisible();

    // Whatever the checklist still misses is typed in: each subcontractor's references through the screen's
    // "Add it", so the month can be filed.
    const ret = await readReturn(page, period);
    const checklist = page.getByRole('list', { name: 'Before filing', exact: true });
    for (const check of ret.checks.filter((c) => !c.ok && c.contactId)) {
      const item = checklist.getByRole('listitem').filter({ hasText: check.label });
      await item.getByRole('button', { name: 'Add it' }).click();
      const dialog = page.getByRole('dialog');
      const utr = dialog.getByRole('textbox', { name: 'UTR' });
      if ((await utr.inputValue()) === '') await utr.fill(String(1_000_000_000 + ret.checks.indexOf(check)));
      const verification = dialog.getByRole('textbox', { name: 'Verification number' });
      if ((await verification.count()) > 0 && (await verification.inputValue()) === '')
        await verification.fill('V1234567890AB');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toBeHidden();
    }
    await expect(checklist).not.toContainText(': missing');
    await screenshot(page, 'cis-returns-checklist-1280');

    await page.getByRole('button', { name: /^Mark (nil return )?as filed$/ }).click();
    await expect(page.getByText(/Marked as filed with HMRC on .* by /)).toBeVisible();
    await expect(page.locator(`[data-period="${period}"]`)).toContainText('Filed');

    // A person pays a subcontractor in Xero with a payment dated in the filed month: the open screen says the
    // return changed since it was filed, what changed and how HMRC is told.
    const contacts = (await (await page.request.get('/api/xero/cis-contacts')).json()) as Array<{
      id: string;
      name: string;
    }>;
    const singh = contacts.find((c) => c.name === SUBCONTRACTOR)?.id ?? '';
    const day = getTaxMonth(period).end;
    const bill = (await sandbox(page, '/__sandbox/bills', {
      contactId: singh,
      date: day,
      reference: 'RS-LATE',
      lineAmountTypes: 'NoTax',
      lines: [{ description: 'Tiling labour', unitAmount: 100, accountCode: '327' }],
    })) as { invoiceId: string };
    await sandbox(page, `/__sandbox/invoices/${bill.invoiceId}/pay`, { amount: 70, date: day });
    await sandbox(page, '/__sandbox/webhooks/flush');
    await expect(page.getByText(/^Changed since it was filed on /)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('table', { name: 'Changes since the return was filed' })).toContainText(
      SUBCONTRACTOR,
    );
    await expect(page.getByText(/CISR66010/)).toBeVisible();
    await expect(page.locator(`[data-period="${period}"]`)).toContainText('Changed since filing');
    await screenshot(page, 'cis-returns-changed-1280');
    await expectAccessible(page);
    await page.setViewportSize({ width: 375, height: 800 });
    await screenshot(page, 'cis-returns-changed-375');
    await expectAccessible(page);

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Undo filed' }).click();
    await expect(page.getByRole('button', { name: /^Mark (nil return )?as filed$/ })).toBeVisible();
    const audit = await page.request.get('/api/admin/audit?limit=20');
    if (audit.ok()) expect(await audit.text()).toContain('cis-returns.unfiled');
  });
});
