import type { Page } from '@playwright/test';
import { getPeriodOf, type CisReturn } from '../src/shared/cis-returns';
import { getUkToday } from '../src/shared/dates';
import { formatPounds } from '../src/shared/money';
import { readPdfText } from '../src/server/test/pdf-text';
import { APP_ORIGIN, connectDemo, expect, resetSandbox, sandbox, screenshot, test } from './fixtures';

// Issue 29: the CIS month-end screen in Chromium. A person enters a CIS bill in Xero (labour and materials) and
// pays it there; the open return shows it without a reload (Xero's webhooks), the subcontractor's UTR and
// verification number are typed in on the screen, the statement PDF downloaded from the screen carries the
// same figures as the return, and the month is marked filed and unmarked by the administrator.

const SUBCONTRACTOR = 'R. Singh Tiling'; // 30 %: HMRC could not verify them, so a verification number applies.

async function readReturn(page: Page, period: string): Promise<CisReturn> {
  const res = await page.request.get(`/api/xero/cis/returns?period=${period}`);
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

test.describe('CIS Returns', () => {
  test('shows a bill paid in Xero on the open return, takes the references, and the statement PDF says the same', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await resetSandbox(page);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
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

    // The open screen shows it without a reload.
    const gross = (before?.grossAmount ?? 0) + 500;
    const deducted = (before?.deductionAmount ?? 0) + 120;
    await expect(row(page, SUBCONTRACTOR)).toContainText(formatPounds(gross), { timeout: 20_000 });
    await expect(row(page, SUBCONTRACTOR)).toContainText(formatPounds(deducted));

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

    // The statement, downloaded from the screen, read back.
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
        SUBCONTRACTOR,
        '2345678901',
        'V0987654321RS',
        formatPounds(shown?.grossAmount ?? 0),
        formatPounds(shown?.materialsAmount ?? 0),
        formatPounds(shown?.deductionAmount ?? 0),
      ]),
    );

    // The CSV download carries the same row.
    const csv = await page.request.get(`/api/xero/cis/returns?period=${period}&format=csv`);
    expect(await csv.text()).toContain(
      `"${SUBCONTRACTOR}","2345678901","V0987654321RS","30","${gross.toFixed(2)}"`,
    );

    await page.setViewportSize({ width: 375, height: 800 });
    await expect(row(page, SUBCONTRACTOR)).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'cis-returns-375');
  });

  test('marks the last month filed, shows who and when, and the administrator undoes it', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await connectDemo(page, { active: 'Demo Builders Ltd' });
    const months = (await (await page.request.get('/api/xero/cis/months')).json()) as {
      months: Array<{ period: string; state: string }>;
    };
    const last = months.months.find((m) => m.state !== 'current');
    expect(last).toBeDefined();
    // Start from a month not marked (an earlier run may have left it marked).
    await page.request.delete(`/api/xero/cis/returns/${last?.period}/filing`, {
      headers: { origin: APP_ORIGIN },
    });
    await page.goto('/cis-returns');
    await page.locator(`[data-period="${last?.period}"]`).click();
    await page.getByRole('button', { name: /^Mark (nil return )?as filed$/ }).click();
    await expect(page.getByText(/Marked as filed with HMRC on .* by /)).toBeVisible();
    await expect(page.locator(`[data-period="${last?.period}"]`)).toContainText('Filed');
    await page.getByRole('button', { name: 'Undo filed' }).click();
    await expect(page.getByRole('button', { name: /^Mark (nil return )?as filed$/ })).toBeVisible();
    const audit = await page.request.get('/api/admin/audit?limit=20');
    if (audit.ok()) expect(await audit.text()).toContain('cis-returns.unfiled');
  });
});
