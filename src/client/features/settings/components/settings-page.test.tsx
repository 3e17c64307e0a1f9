import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { UNSAVED_CHANGES_QUESTION } from '@/client/lib/unsaved-changes';
import { makeConnection, makeOrganization } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const contacts = [
  { id: 'c-daily', name: 'Daily Sales' },
  { id: 'c-acme', name: 'Acme Catering' },
];

/** The settings endpoints, answering for organisation 1; returns what the server was sent. */
function useSettingsServer(
  options: { patch?: (body: Record<string, unknown>) => Response | undefined } = {},
) {
  const sent = {
    patches: [] as Array<Record<string, unknown>>,
    contactSearches: [] as string[],
    urls: [] as string[],
  };
  server.use(
    http.get('*/api/xero/settings/bank-accounts', ({ request }) => {
      sent.urls.push(request.url);
      return HttpResponse.json({
        creditCardAccounts: [{ accountId: 'acc-card', name: 'Business Credit Card', bankAccountNumber: '' }],
        cashAccounts: [{ accountId: 'acc-cash', name: 'Cash', bankAccountNumber: '' }],
      });
    }),
    http.get('*/api/xero/sales-accounts', () =>
      HttpResponse.json([{ id: 'acc-sales', name: 'Sales', code: '200' }]),
    ),
    http.get('*/api/xero/bill-accounts', () =>
      HttpResponse.json([{ id: 'acc-cogs', name: 'Cost of Goods Sold', code: '310' }]),
    ),
    http.get('*/api/xero/asset-accounts', () =>
      HttpResponse.json([{ id: 'acc-stock', name: 'Inventory', code: '630' }]),
    ),
    http.get('*/api/xero/cost-accounts', () =>
      HttpResponse.json([{ id: 'acc-cogs', name: 'Cost of Goods Sold', code: '310' }]),
    ),
    http.get('*/api/xero/vat-rates', () =>
      HttpResponse.json([
        {
          id: 'OUTPUT2',
          name: '20% (VAT on Income)',
          rate: 20,
          canApplyToRevenue: true,
          canApplyToExpenses: false,
        },
        {
          id: 'INPUT2',
          name: '20% (VAT on Expenses)',
          rate: 20,
          canApplyToRevenue: false,
          canApplyToExpenses: true,
        },
        { id: 'NONE', name: 'No VAT', rate: 0, canApplyToRevenue: true, canApplyToExpenses: true },
      ]),
    ),
    http.get('*/api/xero/contact-groups', () =>
      HttpResponse.json([{ id: 'g-cis', name: 'CIS Subcontractors' }]),
    ),
    // The CIS month-end card, shown with CIS Bills on (issue 29): its references and the materials accounts.
    http.get('*/api/xero/direct-costs-accounts', () =>
      HttpResponse.json([{ id: 'acc-materials', name: 'Materials', code: '322' }]),
    ),
    http.get('*/api/xero/cis/settings', () =>
      HttpResponse.json({
        contractorName: null,
        defaultContractorName: 'Demo Builders Ltd',
        utr: null,
        employerReference: null,
        accountsOfficeReference: null,
        materialsAccountCodes: [],
        deductionAccountCode: null,
        reverseCharge: false,
      }),
    ),
    // Issue 42: the liability accounts a CIS deduction can be booked to.
    http.get('*/api/xero/cis-deduction-accounts', () =>
      HttpResponse.json([{ id: 'acc-814', name: 'CIS Deductions Payable', code: '814' }]),
    ),
    http.get('*/api/xero/contacts', ({ request }) => {
      const url = new URL(request.url);
      const search = (url.searchParams.get('search') ?? '').toLowerCase();
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      sent.contactSearches.push(search);
      return HttpResponse.json(
        contacts.filter((c) => c.name.toLowerCase().includes(search) || ids.includes(c.id)),
      );
    }),
    http.patch('*/api/xero/settings', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      sent.patches.push(body);
      const custom = options.patch?.(body);
      if (custom) return custom;
      // As the server answers: ids cleared with null come back as "".
      const saved = Object.fromEntries(
        Object.entries(body).map(([key, value]) => [key, value === null ? '' : value]),
      );
      return HttpResponse.json({ ...saved, organizationId: 1 });
    }),
  );
  return sent;
}

/** The first render loads the lazy settings route: give it time. */
const findCard = (name: string) => screen.findByRole('region', { name });

describe('Settings page, General tab (000 §2)', () => {
  it('shows the four feature cards and Database Maintenance, with each saved default selected', async () => {
    useSettingsServer();
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({
            defaultCashAccountId: 'acc-cash',
            defaultSalesAccountId: 'acc-sales',
            defaultVatRateId: 'OUTPUT2',
            defaultContactId: 'c-daily',
          }),
        ),
      ),
    );
    renderApp('/settings?org=1');
    expect(await findCard('Pay Invoices')).toBeInTheDocument();
    for (const name of ['Add Invoices', 'CIS Bills', 'Stock Journal', 'Database Maintenance'])
      expect(screen.getByRole('region', { name })).toBeInTheDocument();
    const pay = screen.getByRole('region', { name: 'Pay Invoices' });
    await waitFor(() => expect(within(pay).getByLabelText('Cash account')).toHaveTextContent('Cash'));
    expect(within(pay).getByLabelText('Credit card account')).toHaveTextContent('None');
    const add = screen.getByRole('region', { name: 'Add Invoices' });
    await waitFor(() => expect(within(add).getByLabelText('Sales account')).toHaveTextContent('Sales (200)'));
    await waitFor(() =>
      expect(within(add).getByLabelText('Default contact')).toHaveTextContent('Daily Sales'),
    );
    expect(within(add).getByLabelText('Tax status')).toHaveTextContent('Tax inclusive');
    // Issue 42: a CIS bill's VAT follows the subcontractor; the bill VAT rate is only its fallback.
    expect(
      within(screen.getByRole('region', { name: 'CIS Bills' })).getByLabelText('Bill VAT rate'),
    ).toHaveAccessibleDescription(
      /VAT-registered subcontractors whose Xero contact names no purchases VAT rate/,
    );
    expect(within(pay).getByRole('button', { name: 'Refresh Accounts' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Save Settings' })).toBeEnabled();
  });

  it('dims a card whose feature is off, says why, and disables its controls and refresh button', async () => {
    useSettingsServer();
    renderApp('/settings');
    const cis = await findCard('CIS Bills');
    expect(within(cis).getByText('Feature disabled')).toBeInTheDocument();
    expect(
      within(cis).getByText(
        'This feature is currently disabled for this organization. Please contact an administrator to enable it.',
      ),
    ).toBeInTheDocument();
    expect(within(cis).getByRole('button', { name: 'Refresh CIS Settings' })).toBeDisabled();
    expect(within(cis).getByLabelText('Bill account')).toBeDisabled();
    expect(cis.className).toContain('border-dashed');
    const add = screen.getByRole('region', { name: 'Add Invoices' });
    expect(within(add).queryByText('Feature disabled')).not.toBeInTheDocument();
  });

  it('follows the active organisation flag over the connection flag', async () => {
    useSettingsServer();
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ featureCisBills: true, featurePayInvoices: false })]),
      ),
    );
    renderApp('/settings');
    const cis = await findCard('CIS Bills');
    await waitFor(() => expect(within(cis).queryByText('Feature disabled')).not.toBeInTheDocument());
    expect(
      within(screen.getByRole('region', { name: 'Pay Invoices' })).getByText('Feature disabled'),
    ).toBeInTheDocument();
  });

  it('saves every default with "none" as null and an unparsable margin as 1.35, then refreshes the connection', async () => {
    const user = userEvent.setup();
    const sent = useSettingsServer();
    let connectionReads = 0;
    server.use(
      http.get('*/api/xero/connection', () => {
        connectionReads += 1;
        const saved = sent.patches.at(-1) ?? { defaultCashAccountId: 'acc-cash' };
        return HttpResponse.json(
          makeConnection(Object.fromEntries(Object.entries(saved).map(([k, v]) => [k, v ?? '']))),
        );
      }),
    );
    renderApp('/settings');
    const pay = await findCard('Pay Invoices');
    await waitFor(() => expect(within(pay).getByLabelText('Cash account')).toHaveTextContent('Cash'));
    await user.click(within(pay).getByLabelText('Cash account'));
    await user.click(await screen.findByRole('option', { name: 'None' }));
    await user.click(within(pay).getByLabelText('Credit card account'));
    await user.click(await screen.findByRole('option', { name: 'Business Credit Card' }));
    const stock = screen.getByRole('region', { name: 'Stock Journal' });
    const margin = within(stock).getByLabelText('Margin rate');
    await user.clear(margin);
    expect(within(stock).getByText(/£100.00 of net sales posts £100.00/)).toBeInTheDocument();
    await user.type(margin, '1.5');
    expect(within(stock).getByText(/£100.00 of net sales posts £66.67/)).toBeInTheDocument();
    expect(screen.getByText('You have unsaved changes.')).toBeInTheDocument();
    const readsBefore = connectionReads;
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('Settings Saved')).toBeInTheDocument();
    expect(screen.getByText('Your settings have been updated successfully.')).toBeInTheDocument();
    expect(sent.patches).toHaveLength(1);
    expect(sent.patches[0]).toMatchObject({
      defaultCashAccountId: null,
      defaultCreditCardAccountId: 'acc-card',
      defaultSalesAccountId: null,
      defaultTaxStatus: 'Tax inclusive',
      defaultStockJournalMarginRate: 1.5,
      defaultStockJournalPostingStatus: 'draft',
    });
    await waitFor(() => expect(connectionReads).toBeGreaterThan(readsBefore));
    expect(JSON.parse(window.localStorage.getItem('xero_saved_defaults') ?? '{}')).toMatchObject({
      defaultStockJournalMarginRate: 1.5,
    });

    await user.clear(margin);
    await user.type(margin, 'abc');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    await waitFor(() => expect(sent.patches).toHaveLength(2));
    expect(sent.patches[1]?.defaultStockJournalMarginRate).toBe(1.35);
  });

  it('refuses a margin rate below 1 with the rule instead of saving 1 without a word', async () => {
    const user = userEvent.setup();
    const sent = useSettingsServer();
    renderApp('/settings');
    const stock = await findCard('Stock Journal');
    const margin = within(stock).getByLabelText('Margin rate');
    await user.clear(margin);
    await user.type(margin, '0.5');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await within(stock).findByText('Margin rate must be at least 1')).toBeInTheDocument();
    expect(screen.queryByText('Settings Saved')).not.toBeInTheDocument();
    expect(sent.patches).toHaveLength(0);
  });

  it('asks before unsaved changes are left behind by a link or an organisation switch', async () => {
    const user = userEvent.setup();
    useSettingsServer();
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false);
    renderApp('/settings');
    const stock = await findCard('Stock Journal');
    await user.clear(within(stock).getByLabelText('Margin rate'));
    await user.type(within(stock).getByLabelText('Margin rate'), '1.6');
    expect(screen.getByText('You have unsaved changes.')).toBeInTheDocument();
    const link = screen.getAllByRole('link').find((a) => a.getAttribute('href') === '/organizations');
    expect(link).toBeDefined();
    await user.click(link as HTMLElement);
    expect(confirm).toHaveBeenCalledWith(UNSAVED_CHANGES_QUESTION);
    expect(window.location.pathname).toBe('/settings');
    expect(within(stock).getByLabelText('Margin rate')).toHaveValue(1.6);
    const beforeUnload = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(beforeUnload);
    expect(beforeUnload.defaultPrevented).toBe(true);
    confirm.mockReturnValue(true);
    await user.click(link as HTMLElement);
    await waitFor(() => expect(window.location.pathname).toBe('/organizations'));
    confirm.mockRestore();
  });

  it('shows the server refusal in an "Error" toast and under the field it names', async () => {
    const user = userEvent.setup();
    useSettingsServer({
      patch: () =>
        HttpResponse.json(
          {
            message:
              'Stock account: a bank account cannot be used in a stock journal. Choose an inventory or current asset account.',
            code: 'VALIDATION_ERROR',
          },
          { status: 400 },
        ),
    });
    renderApp('/settings');
    await findCard('Stock Journal');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('Error')).toBeInTheDocument();
    expect(screen.getByText(/^Failed to save settings\. Stock account: a bank account/)).toBeInTheDocument();
    const stock = screen.getByRole('region', { name: 'Stock Journal' });
    expect(within(stock).getByLabelText('Stock account')).toHaveAttribute('aria-invalid', 'true');
  });

  it('searches contacts on the server 0.5 s after typing stops', async () => {
    const user = userEvent.setup();
    const sent = useSettingsServer();
    renderApp('/settings');
    const add = await findCard('Add Invoices');
    await user.click(within(add).getByLabelText('Default contact'));
    const search = await screen.findByRole('textbox', { name: 'Search contacts' });
    const before = sent.contactSearches.length;
    await user.type(search, 'acm');
    // Nothing sent for "a" or "ac": only the last text, once the typing has paused.
    await waitFor(() => expect(sent.contactSearches).toContain('acm'), { timeout: 2000 });
    expect(sent.contactSearches.slice(before)).not.toContain('a');
    expect(sent.contactSearches.slice(before)).not.toContain('ac');
    await user.click(await screen.findByRole('option', { name: 'Acme Catering' }));
    await waitFor(() =>
      expect(within(add).getByLabelText('Default contact')).toHaveTextContent('Acme Catering'),
    );
  });

  it('refreshes a card from Xero with its button and says so', async () => {
    const user = userEvent.setup();
    const sent = useSettingsServer();
    renderApp('/settings');
    const pay = await findCard('Pay Invoices');
    const button = within(pay).getByRole('button', { name: 'Refresh Accounts' });
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    expect(await screen.findByText('Bank Accounts Refreshed')).toBeInTheDocument();
    expect(sent.urls.some((u) => u.includes('refresh=true'))).toBe(true);
  });

  it('cleans up after a confirmation and reports the counts', async () => {
    const user = userEvent.setup();
    useSettingsServer();
    let cleaned = 0;
    server.use(
      http.post('*/api/xero/bank-accounts/cleanup', () => {
        cleaned += 1;
        return HttpResponse.json({ deletedCount: 2 });
      }),
      http.post('*/api/xero/data/cleanup', () =>
        HttpResponse.json({ message: 'Xero is unavailable' }, { status: 502 }),
      ),
    );
    renderApp('/settings');
    const maintenance = await findCard('Database Maintenance');
    await user.click(within(maintenance).getByRole('button', { name: 'Clean Up Bank Accounts' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(cleaned).toBe(0);
    await user.click(within(maintenance).getByRole('button', { name: 'Clean Up Bank Accounts' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Clean Up Bank Accounts' }),
    );
    expect(await screen.findByText('Duplicate Accounts Cleaned Up')).toBeInTheDocument();
    expect(screen.getByText('Removed 2 duplicate bank accounts.')).toBeInTheDocument();
    expect(cleaned).toBe(1);
    await user.click(within(maintenance).getByRole('button', { name: 'Clean Up Old Data' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Clean Up Old Data' }),
    );
    expect(await screen.findByText('Cleanup Error')).toBeInTheDocument();
    expect(
      screen.getByText('Failed to clean up processed invoices and payments: Xero is unavailable'),
    ).toBeInTheDocument();
  });

  it('says so when there is no active connection, with Select Organization', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Not connected to Xero' }),
      ),
    );
    renderApp('/settings');
    expect(await screen.findByText('No active Xero connection found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Select Organization' })).toHaveAttribute(
      'href',
      '/organizations',
    );
  });

  it('while Xero refuses the connection, /settings?org= says why and offers Reconnect instead of switching and spinning (issue 33 item 3)', async () => {
    const switched: unknown[] = [];
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Token refresh failed', lostReason: 'revoked' }),
      ),
      http.post('*/api/xero/set-active-organization', async ({ request }) => {
        switched.push(await request.json());
        return HttpResponse.json({ success: true });
      }),
    );
    renderApp('/settings?org=2');
    // What happened, in the words every screen uses (issue 45 item 2).
    expect(await screen.findByRole('heading', { name: 'Xero access revoked' })).toBeInTheDocument();
    const general = screen.getByRole('tabpanel', { name: 'General' });
    expect(general).toHaveTextContent('Ledgerlink’s access was revoked in Xero');
    expect(within(general).getByRole('button', { name: 'Reconnect' })).toBeEnabled();
    expect(screen.queryByRole('status', { name: 'Selecting the organization' })).not.toBeInTheDocument();
    expect(switched).toEqual([]);
  });
});

describe('CIS month-end: the deductions account and the reverse charge (issue 42)', () => {
  it('offers the liability accounts, saves the choice and the switch; a CIS Bills link leads to the field', async () => {
    const user = userEvent.setup();
    useSettingsServer();
    const puts: Array<Record<string, unknown>> = [];
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ featureCisBills: true }))),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ featureCisBills: true })]),
      ),
      http.put('*/api/xero/cis/settings', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        puts.push(body);
        return HttpResponse.json({
          contractorName: null,
          defaultContractorName: 'Demo Builders Ltd',
          utr: null,
          employerReference: null,
          accountsOfficeReference: null,
          materialsAccountCodes: [],
          deductionAccountCode: body.deductionAccountCode ?? null,
          reverseCharge: body.reverseCharge === true,
        });
      }),
    );
    renderApp('/settings?field=cisDeductionAccountCode');
    const trigger = await screen.findByRole('combobox', { name: 'CIS deductions account' });
    // The link from CIS Bills puts the focus on the field it names.
    await waitFor(() => expect(trigger).toHaveFocus());
    expect(trigger).toHaveTextContent('None chosen');
    expect(screen.getByText(/Xero's own CIS Liability account cannot be used/)).toBeInTheDocument();
    await user.click(trigger);
    await user.click(await screen.findByRole('option', { name: 'CIS Deductions Payable (814)' }));
    const reverse = screen.getByRole('switch', { name: 'VAT domestic reverse charge' });
    expect(reverse).not.toBeChecked();
    await user.click(reverse);
    await user.click(screen.getByRole('button', { name: 'Save CIS settings' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toMatchObject({
      deductionAccountCode: '814',
      reverseCharge: true,
      materialsAccountCodes: [],
    });
  });
});
