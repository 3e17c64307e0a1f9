import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse, delay } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CisBillSetup, CisContact, DraftBill } from '@/shared/cis-bills';
import { getTaxWeekReference } from '@/shared/cis';
import { getUkToday } from '@/shared/dates';
import { makeConnection, makeOrganization } from '@/client/testing/fixtures';
import { renderApp, renderWithProviders } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { CisBillsPage } from './cis-bills-page';

const ACCOUNT_321 = '8c1f2d3e-4b5a-4c6d-8e7f-901234567890';

const contacts: CisContact[] = [
  {
    id: 'c-stone',
    name: 'Stone & Sons Brickwork',
    isContractor: true,
    isSupplier: true,
    hasValidUTR: false,
    cisRate: 30,
    vatTreatment: 'none',
    vatPercent: 0,
  },
  {
    id: 'c-hughes',
    name: 'Hughes Groundworks Ltd',
    isContractor: true,
    isSupplier: true,
    hasValidUTR: true,
    cisRate: 20,
    vatTreatment: 'standard',
    vatPercent: 20,
  },
  {
    id: 'c-patel',
    name: 'A. Patel Plastering',
    isContractor: true,
    isSupplier: true,
    hasValidUTR: true,
    cisRate: 20,
    vatTreatment: 'none',
    vatPercent: 0,
  },
  {
    id: 'c-customer',
    name: 'Mr & Mrs Green',
    isContractor: false,
    isSupplier: false,
    hasValidUTR: false,
    cisRate: null,
    vatTreatment: 'none',
    vatPercent: 0,
  },
];
/** Issue 42: the demo's CIS settings — deductions to 814, materials to 322, no reverse charge. */
const setup: CisBillSetup = {
  deductionAccount: { code: '814', name: 'CIS Deductions Payable' },
  materialsAccounts: [{ code: '322', name: 'Materials' }],
  reverseCharge: false,
};
const accounts = [
  { id: 'a-310', code: '310', name: 'Cost of Goods Sold' },
  { id: ACCOUNT_321, code: '321', name: 'Subcontractors' },
];

function makeDraft(overrides: Partial<DraftBill> = {}): DraftBill {
  return {
    invoiceID: 'bill-1',
    contactID: 'c-hughes',
    contact: { name: 'Hughes Groundworks Ltd' },
    date: '2026-11-20',
    reference: '3327',
    status: 'DRAFT',
    total: 1000,
    cisDeduction: 200,
    amountDue: 800,
    cisRate: 20,
    vatAmount: 0,
    materialsAmount: 0,
    lineItems: [{ accountCode: '321' }],
    ...overrides,
  };
}

const builderOrg = makeOrganization({
  organizationId: 2,
  tenantId: 'tenant-builder',
  tenantName: 'Demo Builders Ltd',
  featureCisBills: true,
});

/** The builder organisation, connected, CIS Bills on, with a saved default bill account. */
function useBuilder(
  options: {
    connection?: Parameters<typeof makeConnection>[0];
    drafts?: DraftBill[];
    setup?: CisBillSetup;
  } = {},
) {
  server.use(
    http.get('*/api/xero/connection', () =>
      HttpResponse.json(
        makeConnection({
          tenantName: 'Demo Builders Ltd',
          tenantId: 'tenant-builder',
          organizationId: 2,
          featureCisBills: true,
          defaultBillAccountId: ACCOUNT_321,
          ...options.connection,
        }),
      ),
    ),
    http.get('*/api/user-organizations', () => HttpResponse.json([builderOrg])),
    http.get('*/api/xero/cis-contacts', () => HttpResponse.json(contacts)),
    http.get('*/api/xero/direct-costs-accounts', () => HttpResponse.json(accounts)),
    http.get('*/api/xero/draft-bills', () => HttpResponse.json(options.drafts ?? [])),
    http.get('*/api/xero/cis-bill-setup', () => HttpResponse.json(options.setup ?? setup)),
  );
}

async function openMain() {
  renderApp('/cis-invoices');
  await screen.findByRole('heading', { name: 'CIS Bills' });
}

async function addBill(user: ReturnType<typeof userEvent.setup>, name: string, amount: string) {
  await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
  await user.click(
    await screen.findByRole('option', {
      name: (accessible) => accessible === name || accessible === `${name} (No UTR)`,
    }),
  );
  await user.clear(screen.getByRole('spinbutton', { name: 'Gross Amount' }));
  await user.type(screen.getByRole('spinbutton', { name: 'Gross Amount' }), amount);
  await user.click(screen.getByRole('button', { name: 'Add' }));
}

describe('CIS Bills screen states (001 §2)', () => {
  it('session expired: Authentication Required with Log In Again', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Not authenticated' }),
      ),
    );
    renderWithProviders(<CisBillsPage />);
    expect(await screen.findByRole('heading', { name: 'Authentication Required' })).toBeInTheDocument();
    expect(
      screen.getByText('Your session has expired. Please log in again to continue using the application.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log In Again' })).toBeInTheDocument();
  });

  it('not connected: Back to Home and Connect to Xero', async () => {
    server.use(http.get('*/api/xero/connection', () => HttpResponse.json({ connected: false })));
    renderWithProviders(<CisBillsPage />);
    expect(await screen.findByRole('heading', { name: 'Not connected to Xero' })).toBeInTheDocument();
    expect(screen.getByText('Please connect to Xero first to manage CIS bills.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect to Xero' })).toHaveAttribute('href', '/connect');
    expect(screen.getByRole('link', { name: 'Back to Home' })).toHaveAttribute('href', '/');
  });

  it('a "token about to expire" error still counts as usable', async () => {
    useBuilder();
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({
            connected: false,
            error: 'Token is about to expire',
            organizationId: 2,
            featureCisBills: true,
          }),
        ),
      ),
    );
    renderWithProviders(<CisBillsPage />);
    expect(await screen.findByRole('heading', { name: 'Create CIS Bills' })).toBeInTheDocument();
  });

  it('feature disabled: the notice and Back to Home', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ featureCisBills: false }))),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ featureCisBills: false })]),
      ),
    );
    renderWithProviders(<CisBillsPage />);
    expect(await screen.findByText('This feature is not enabled for your organization.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Home' })).toBeInTheDocument();
  });
});

describe('Create CIS Bills card', () => {
  it('shows the default account preview, the tax-week reference, the default account and the draft box ticked', async () => {
    useBuilder();
    await openMain();
    expect(screen.getByText('8c1f2d3e')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Reference Number' })).toHaveValue(
      getTaxWeekReference(getUkToday()),
    );
    expect(screen.getByRole('textbox', { name: 'Reference Number' })).toHaveAttribute('placeholder', '0123');
    expect(await screen.findByText('Subcontractors (321)')).toBeInTheDocument();
    expect(
      screen.getByRole('checkbox', { name: 'Create as draft bills (uncheck to approve immediately)' }),
    ).toBeChecked();
    expect(screen.getByText('No bills added yet. Add a bill using the form above.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create Bills in Xero' })).toBeDisabled();
  });

  it('regenerates the reference when the date changes, until the user edits it', async () => {
    const user = userEvent.setup();
    useBuilder();
    await openMain();
    const date = screen.getByLabelText('Bill Date');
    const reference = screen.getByRole('textbox', { name: 'Reference Number' });
    await user.clear(date);
    await user.type(date, '2025-04-06');
    expect(reference).toHaveValue('0126');
    await user.clear(reference);
    await user.type(reference, 'W1');
    await user.clear(date);
    await user.type(date, '2025-04-13');
    expect(reference).toHaveValue('W1');
  });

  it('account dropdown: "No accounts found", and opening it empty refreshes the accounts', async () => {
    const user = userEvent.setup();
    useBuilder();
    const asked: string[] = [];
    server.use(
      http.get('*/api/xero/direct-costs-accounts', ({ request }) => {
        asked.push(new URL(request.url).search);
        return HttpResponse.json(asked.length > 1 ? accounts : []);
      }),
    );
    await openMain();
    expect(await screen.findByText('No accounts found')).toBeInTheDocument();
    await user.click(screen.getByRole('combobox', { name: 'Account Code' }));
    await waitFor(() => expect(asked.some((q) => q.includes('refresh=true'))).toBe(true));
  });

  it('account dropdown: "Loading accounts..." then "Error loading accounts - Click refresh"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    useBuilder();
    server.use(
      http.get('*/api/xero/direct-costs-accounts', async () => {
        await delay(200);
        return HttpResponse.json({ message: 'Xero is not answering' }, { status: 502 });
      }),
    );
    await openMain();
    expect(screen.getByText('Loading accounts...')).toBeInTheDocument();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await screen.findByText('Error loading accounts - Click refresh')).toBeInTheDocument();
  });

  it('subcontractor search: sorted by name, contractors or suppliers only, (No UTR), and the empty text', async () => {
    const user = userEvent.setup();
    useBuilder();
    await openMain();
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    const list = await screen.findByRole('listbox', { name: 'Subcontractors' });
    expect(
      within(list)
        .getAllByRole('option')
        .map((o) => o.getAttribute('aria-label')),
    ).toEqual(['A. Patel Plastering', 'Hughes Groundworks Ltd', 'Stone & Sons Brickwork (No UTR)']);
    await user.type(screen.getByRole('textbox', { name: 'Search contractors' }), 'HUGH');
    expect(within(list).getAllByRole('option')).toHaveLength(1);
    await user.clear(screen.getByRole('textbox', { name: 'Search contractors' }));
    await user.type(screen.getByRole('textbox', { name: 'Search contractors' }), 'nobody');
    expect(within(list).getByText('No CIS subcontractors found')).toBeInTheDocument();
  });

  it('validates in the spec order before adding', async () => {
    const user = userEvent.setup();
    useBuilder();
    await openMain();
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect((await screen.findAllByText('Please select a subcontractor')).length).toBeGreaterThan(0);
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    await user.click(await screen.findByRole('option', { name: 'Hughes Groundworks Ltd' }));
    await user.type(screen.getByRole('spinbutton', { name: 'Gross Amount' }), '0');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect((await screen.findAllByText('Please enter a valid positive amount')).length).toBeGreaterThan(0);
    // Issue 17 item 15: 12.345 is refused for its decimals, not as "not a positive amount".
    await user.clear(screen.getByRole('spinbutton', { name: 'Gross Amount' }));
    await user.type(screen.getByRole('spinbutton', { name: 'Gross Amount' }), '12.345');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect((await screen.findAllByText(/at most two decimal places/)).length).toBeGreaterThan(0);
  });

  it('converts between gross and net with the notice, and adds the gross', async () => {
    const user = userEvent.setup();
    useBuilder();
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await user.type(screen.getByRole('spinbutton', { name: 'Gross Amount' }), '800');
    // Issue 17 item 17: the button's name contains its visible label (axe label-content-name-mismatch).
    const basisButton = screen.getByRole('button', { name: /convert to net/i });
    expect(basisButton).toHaveAccessibleName(expect.stringContaining(basisButton.textContent!.trim()));
    await user.click(screen.getByRole('button', { name: 'Gross: convert to net (80%)' }));
    expect((await screen.findAllByText('Converted to net (80%)')).length).toBeGreaterThan(0);
    expect(screen.getAllByText('Changed £800.00 to £640.00').length).toBeGreaterThan(0);
    expect(screen.getByRole('spinbutton', { name: 'Net Amount (80%)' })).toHaveValue(640);
    await user.clear(screen.getByRole('spinbutton', { name: 'Net Amount (80%)' }));
    await user.type(screen.getByRole('spinbutton', { name: 'Net Amount (80%)' }), '800');
    expect(screen.getByLabelText('CIS Deduction (20%)')).toHaveTextContent('£200.00');
    expect(screen.getByLabelText('Amount Due (80%)')).toHaveTextContent('£800.00');
    // A. Patel is at 20 % and charges no VAT: the spec's case.
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    await user.click(await screen.findByRole('option', { name: 'A. Patel Plastering' }));
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const row = within(screen.getByRole('table', { name: 'Bills to create' })).getByRole('row', {
      name: /Patel/,
    });
    expect(row).toHaveTextContent('£1,000.00');
    expect(row).toHaveTextContent('£200.00');
    expect(row).toHaveTextContent('£800.00');
  });

  it('adds and removes rows, flags subcontractors without verified CIS, and counts the bills on the button', async () => {
    const user = userEvent.setup();
    useBuilder();
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await addBill(user, 'Hughes Groundworks Ltd', '1111.11');
    await addBill(user, 'Stone & Sons Brickwork', '333.33');
    expect(screen.getByText('CIS not verified')).toBeInTheDocument();
    expect(screen.getByText('Check CIS before sending')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create 2 Bills in Xero' })).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Remove bill for Stone & Sons Brickwork' }));
    expect(screen.queryByText('Check CIS before sending')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create 1 Bill in Xero' })).toBeEnabled();
  });

  it('creates the bills with progress and a result per bill; partial success keeps the failed bill', async () => {
    const user = userEvent.setup();
    useBuilder();
    const sent: Array<{
      key: string | null;
      body: {
        bills: Array<{
          id: string;
          contactId: string;
          status: string;
          lineItems: Array<{ unitAmount: number; accountCode: string }>;
        }>;
      };
    }> = [];
    server.use(
      http.post('*/api/xero/create-bills', async ({ request }) => {
        const body = (await request.json()) as (typeof sent)[number]['body'];
        sent.push({ key: request.headers.get('idempotency-key'), body });
        return HttpResponse.json({
          results: body.bills.map((b) =>
            b.contactId === 'c-stone'
              ? {
                  id: b.id,
                  ok: false,
                  statusCode: 422,
                  message: 'Validation error: The contact is not a CIS subcontractor',
                }
              : { id: b.id, ok: true, invoiceID: `inv-${b.id}`, status: b.status },
          ),
          created: 1,
          failed: 1,
        });
      }),
    );
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await addBill(user, 'Hughes Groundworks Ltd', '1111.11');
    await addBill(user, 'Stone & Sons Brickwork', '333.33');
    await user.click(screen.getByRole('button', { name: 'Create 2 Bills in Xero' }));
    expect((await screen.findAllByText('Successfully created 1 bill (1 failed)')).length).toBeGreaterThan(0);
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '2');
    const results = screen.getByRole('region', { name: 'Bill creation results' });
    expect(within(results).getByText('Created as draft')).toBeInTheDocument();
    expect(
      within(results).getByText(
        'The contact is not a CIS subcontractor. Please set up the CIS rate for this subcontractor in your Xero account.',
      ),
    ).toBeInTheDocument();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      sent[0]?.body.bills.map((b) => [
        b.contactId,
        b.status,
        b.lineItems[0]?.unitAmount,
        b.lineItems[0]?.accountCode,
      ]),
    ).toEqual([
      ['c-hughes', 'DRAFT', 1111.11, '321'],
      ['c-stone', 'DRAFT', 333.33, '321'],
    ]);
    // The refused bill stays, ready to be fixed and sent again.
    expect(screen.getByRole('button', { name: 'Create 1 Bill in Xero' })).toBeEnabled();
  });

  it('all refused for a CIS reason: "CIS Configuration Error"; approved when the draft box is off', async () => {
    const user = userEvent.setup();
    useBuilder();
    const statuses: string[] = [];
    server.use(
      http.post('*/api/xero/create-bills', async ({ request }) => {
        const body = (await request.json()) as { bills: Array<{ id: string; status: string }> };
        statuses.push(...body.bills.map((b) => b.status));
        return HttpResponse.json({
          results: body.bills.map((b) => ({
            id: b.id,
            ok: false,
            statusCode: 422,
            message: 'No CIS rate set for this contact',
          })),
          created: 0,
          failed: body.bills.length,
        });
      }),
    );
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await user.click(
      screen.getByRole('checkbox', { name: 'Create as draft bills (uncheck to approve immediately)' }),
    );
    await addBill(user, 'A. Patel Plastering', '50');
    await user.click(screen.getByRole('button', { name: 'Create 1 Bill in Xero' }));
    expect((await screen.findAllByText('CIS Configuration Error')).length).toBeGreaterThan(0);
    expect(statuses).toEqual(['AUTHORISED']);
  });
});

describe('Draft CIS Bills card', () => {
  it('shows the loading text, then the empty text', async () => {
    useBuilder();
    server.use(
      http.get('*/api/xero/draft-bills', async () => {
        await delay(300);
        return HttpResponse.json([]);
      }),
    );
    await openMain();
    expect(screen.getByText('Loading draft bills...')).toBeInTheDocument();
    expect(
      await screen.findByText('No draft bills found. Create a new bill above or check your Xero account.'),
    ).toBeInTheDocument();
  });

  it('lists drafts with dd MMM yyyy dates and the CIS split; Refresh asks Xero', async () => {
    const user = userEvent.setup();
    useBuilder({ drafts: [makeDraft()] });
    const queries: string[] = [];
    server.use(
      http.get('*/api/xero/draft-bills', ({ request }) => {
        queries.push(new URL(request.url).search);
        return HttpResponse.json([makeDraft()]);
      }),
    );
    await openMain();
    const table = await screen.findByRole('table', { name: 'Draft CIS bills' });
    const row = await within(table).findByRole('row', { name: /Hughes Groundworks Ltd/ });
    expect(row).toHaveTextContent('20 Nov 2026');
    expect(row).toHaveTextContent('£1,000.00');
    expect(row).toHaveTextContent('£200.00');
    expect(row).toHaveTextContent('£800.00');
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(queries.some((q) => q.includes('refresh=true'))).toBe(true));
  });

  it('below 640 px the drafts are cards with every amount and labelled Edit/Approve/Delete buttons (issue 17 item 13)', async () => {
    const original = window.matchMedia;
    window.matchMedia = vi.fn((query: string) => ({
      ...original(query),
      matches: query.includes('max-width: 639'),
    })) as typeof window.matchMedia;
    try {
      useBuilder({ drafts: [makeDraft()] });
      await openMain();
      const list = await screen.findByRole('list', { name: 'Draft CIS bills' });
      expect(screen.queryByRole('table', { name: 'Draft CIS bills' })).toBeNull();
      const [card] = within(list).getAllByRole('listitem');
      if (!card) throw new Error('no card');
      for (const text of [
        'Hughes Groundworks Ltd',
        '20 Nov 2026',
        'Gross Amount',
        '£1,000.00',
        'CIS Deduction',
        '£200.00',
        'Amount Due',
        '£800.00',
      ]) {
        expect(card).toHaveTextContent(text);
      }
      for (const name of ['Edit amount of', 'Approve bill', 'Delete bill']) {
        const button = within(card).getByRole('button', { name: `${name} Hughes Groundworks Ltd 3327` });
        expect(button).toHaveTextContent(/Edit|Approve|Delete/);
      }
    } finally {
      window.matchMedia = original;
    }
  });

  it('edits the amount inline: Save sends {amount}, a bad amount is refused, Cancel leaves it', async () => {
    const user = userEvent.setup();
    useBuilder({ drafts: [makeDraft()] });
    const bodies: unknown[] = [];
    server.use(
      http.patch('*/api/xero/update-bill/bill-1', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(makeDraft({ total: 1250, cisDeduction: 250, amountDue: 1000 }));
      }),
    );
    await openMain();
    await user.click(
      await screen.findByRole('button', { name: 'Edit amount of Hughes Groundworks Ltd 3327' }),
    );
    const input = screen.getByRole('spinbutton', { name: 'Gross amount for Hughes Groundworks Ltd' });
    await user.clear(input);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findAllByText('Please enter a positive number')).length).toBeGreaterThan(0);
    await user.type(input, '1250');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(bodies).toEqual([{ amount: 1250 }]));
    expect(await screen.findByText('£1,250.00')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Edit amount of Hughes Groundworks Ltd 3327' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(bodies).toHaveLength(1);
    // Issue 17 item 16: Escape from the inline edit gives the focus back to the row's Edit button.
    await user.click(screen.getByRole('button', { name: 'Edit amount of Hughes Groundworks Ltd 3327' }));
    expect(screen.getByRole('spinbutton', { name: 'Gross amount for Hughes Groundworks Ltd' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(
        screen.getByRole('button', { name: 'Edit amount of Hughes Groundworks Ltd 3327' }),
      ).toHaveFocus(),
    );
    expect(bodies).toHaveLength(1);
  });

  it('approves with the saved bill account in the header and removes the row', async () => {
    const user = userEvent.setup();
    useBuilder({ drafts: [makeDraft()] });
    const headers: Array<string | null> = [];
    server.use(
      http.post('*/api/xero/approve-bill/bill-1', ({ request }) => {
        headers.push(request.headers.get('x-default-bill-account-id'));
        return HttpResponse.json({ invoiceID: 'bill-1', status: 'AUTHORISED' });
      }),
    );
    await openMain();
    await user.click(await screen.findByRole('button', { name: 'Approve bill Hughes Groundworks Ltd 3327' }));
    expect(
      await screen.findByText('No draft bills found. Create a new bill above or check your Xero account.'),
    ).toBeInTheDocument();
    expect(headers).toEqual([ACCOUNT_321]);
  });

  it('without a default bill account: "Missing Default Account" and off to the settings', async () => {
    const user = userEvent.setup();
    useBuilder({ drafts: [makeDraft()], connection: { defaultBillAccountId: '' } });
    const approve = vi.fn();
    server.use(http.post('*/api/xero/approve-bill/bill-1', approve));
    await openMain();
    await user.click(await screen.findByRole('button', { name: 'Approve bill Hughes Groundworks Ltd 3327' }));
    expect(
      (
        await screen.findAllByText(
          'Please set a default bill account in the settings page before approving bills.',
        )
      ).length,
    ).toBeGreaterThan(0);
    await waitFor(() => expect(window.location.pathname).toBe('/settings'));
    expect(approve).not.toHaveBeenCalled();
  });

  it('approve errors by status: 500 is a server error, 401 shows the session-expired state', async () => {
    const user = userEvent.setup();
    useBuilder({ drafts: [makeDraft()] });
    let status = 500;
    server.use(
      http.post('*/api/xero/approve-bill/bill-1', () => HttpResponse.json({ message: 'boom' }, { status })),
    );
    await openMain();
    await user.click(await screen.findByRole('button', { name: 'Approve bill Hughes Groundworks Ltd 3327' }));
    expect((await screen.findAllByText('Server error (500): Failed to approve bill')).length).toBeGreaterThan(
      0,
    );
    status = 401;
    await user.click(screen.getByRole('button', { name: 'Approve bill Hughes Groundworks Ltd 3327' }));
    expect(await screen.findByRole('heading', { name: 'Authentication Required' })).toBeInTheDocument();
  });

  it('deletes through the confirmation dialog; a 403 is a permission message', async () => {
    const user = userEvent.setup();
    useBuilder({
      drafts: [
        makeDraft(),
        makeDraft({
          invoiceID: 'bill-2',
          contact: { name: 'A. Patel Plastering' },
          contactID: 'c-patel',
          total: 500,
        }),
      ],
    });
    server.use(
      http.post('*/api/xero/delete-bill/bill-1', () =>
        HttpResponse.json({ invoiceID: 'bill-1', status: 'DELETED' }),
      ),
      http.post('*/api/xero/delete-bill/bill-2', () =>
        HttpResponse.json({ message: 'Forbidden' }, { status: 403 }),
      ),
    );
    await openMain();
    await user.click(await screen.findByRole('button', { name: 'Delete bill Hughes Groundworks Ltd 3327' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Deletion' });
    expect(dialog).toHaveTextContent('Hughes Groundworks Ltd');
    expect(dialog).toHaveTextContent('3327');
    expect(dialog).toHaveTextContent('£1,000.00');
    expect(within(dialog).getByText('This action cannot be undone.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByRole('row', { name: /Hughes Groundworks Ltd/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete bill A. Patel Plastering 3327' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Confirm Deletion' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    expect(
      (await screen.findAllByText("You don't have permission to delete this bill")).length,
    ).toBeGreaterThan(0);
    // Issue 17 item 16: the failed delete's dialog closes with one Escape (the error toast is open too).
    expect(screen.getByRole('dialog', { name: 'Confirm Deletion' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Confirm Deletion' })).not.toBeInTheDocument(),
    );
  });
});

describe('subcontractors checked when shown (issue 19)', () => {
  // 30 subcontractors whose CIS settings were never read; every other one has no verified rate.
  const unchecked: CisContact[] = Array.from({ length: 30 }, (_, i) => ({
    id: `c-${String(i + 1).padStart(2, '0')}`,
    name: `Sub ${String(i + 1).padStart(2, '0')}`,
    isContractor: true,
    isSupplier: true,
    hasValidUTR: false,
    cisChecked: false,
  }));
  /** What Xero says: odd-numbered subcontractors have a verified rate, even-numbered ones do not. */
  const truth = (id: string): CisContact => {
    const contact = unchecked.find((c) => c.id === id);
    if (!contact) throw new Error(`unknown ${id}`);
    // Verified at 20 %, or HMRC could not verify them: 30 %, "(No UTR)".
    const verified = Number(id.slice(2)) % 2 === 1;
    return { ...contact, hasValidUTR: verified, cisChecked: true, cisRate: verified ? 20 : 30 };
  };
  const expectedLabel = (c: CisContact) => (truth(c.id).hasValidUTR ? c.name : `${c.name} (No UTR)`);

  /** The check endpoint, answering once `release` is called; every request's ids are kept. */
  function useCheckEndpoint() {
    const requests: string[][] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.use(
      http.get('*/api/xero/cis-contacts', () => HttpResponse.json(unchecked)),
      http.post('*/api/xero/cis-contacts/check', async ({ request }) => {
        const { contactIds } = (await request.json()) as { contactIds: string[] };
        requests.push(contactIds);
        await released;
        return HttpResponse.json(contactIds.map(truth));
      }),
    );
    return { requests, release };
  }

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('the rows on screen say "Checking…", never a wrong (No UTR), then each is marked as Xero says', async () => {
    // jsdom has no IntersectionObserver: the picker checks the first screenful of rows.
    expect(typeof IntersectionObserver).toBe('undefined');
    const user = userEvent.setup();
    useBuilder();
    const endpoint = useCheckEndpoint();
    await openMain();
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    const list = await screen.findByRole('listbox', { name: 'Subcontractors' });
    const labels = () =>
      within(list)
        .getAllByRole('option')
        .map((o) => o.getAttribute('aria-label'));
    await waitFor(() => expect(endpoint.requests.length).toBeGreaterThan(0));
    // Asked, not answered yet: no row claims anything about a UTR.
    expect(within(list).queryByText('(No UTR)')).toBeNull();
    expect(within(list).getAllByText('Checking…')).toHaveLength(30);
    expect(labels()).toEqual(unchecked.map((c) => `${c.name} (checking CIS settings)`));

    endpoint.release();
    const screenful = unchecked.slice(0, 20);
    await waitFor(() => expect(labels().slice(0, 20)).toEqual(screenful.map(expectedLabel)));
    expect(within(list).getAllByText('(No UTR)')).toHaveLength(10);
    // The rows below the first screenful were not asked about; each shown row once, in batches of 50 at most.
    expect(labels().slice(20)).toEqual(unchecked.slice(20).map((c) => `${c.name} (checking CIS settings)`));
    const asked = endpoint.requests.flat();
    expect(new Set(asked)).toEqual(new Set(screenful.map((c) => c.id)));
    expect(asked).toHaveLength(20);
    expect(endpoint.requests.every((ids) => ids.length <= 50)).toBe(true);
  });

  it('checks the rows in view as the observer reports them, and a subcontractor picked at once', async () => {
    const observed: Element[] = [];
    // The first 5 rows are in view.
    class FiveRowsInView {
      constructor(private readonly callback: IntersectionObserverCallback) {}
      observe(element: Element) {
        observed.push(element);
        const index = Number((element as HTMLElement).dataset.index);
        queueMicrotask(() =>
          this.callback(
            [{ target: element, isIntersecting: index < 5 } as IntersectionObserverEntry],
            this as unknown as IntersectionObserver,
          ),
        );
      }
      unobserve() {}
      disconnect() {}
      takeRecords() {
        return [];
      }
    }
    vi.stubGlobal('IntersectionObserver', FiveRowsInView);
    const user = userEvent.setup();
    useBuilder();
    const endpoint = useCheckEndpoint();
    endpoint.release();
    await openMain();
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    const list = await screen.findByRole('listbox', { name: 'Subcontractors' });
    await waitFor(() =>
      expect(
        within(list).getByRole('option', { name: expectedLabel(unchecked[4] as CisContact) }),
      ).toBeVisible(),
    );
    expect(observed.length).toBeGreaterThanOrEqual(30);
    expect(new Set(endpoint.requests.flat())).toEqual(new Set(unchecked.slice(0, 5).map((c) => c.id)));

    // Sub 12 is out of view, still unchecked: picking it checks it straight away.
    await user.click(within(list).getByRole('option', { name: 'Sub 12 (checking CIS settings)' }));
    expect(
      await screen.findByRole('combobox', { name: 'Subcontractor: Sub 12 (No UTR)' }),
    ).toBeInTheDocument();
    expect(endpoint.requests.flat().filter((id) => id === 'c-12')).toHaveLength(1);
    expect(screen.getByText('No verified CIS settings in Xero')).toBeInTheDocument();
  });
});

describe('each subcontractor’s own rate, VAT and materials (issue 42)', () => {
  const more: CisContact[] = [
    ...contacts,
    {
      id: 'c-northside',
      name: 'Northside Electrical Ltd',
      isContractor: true,
      isSupplier: true,
      hasValidUTR: true,
      cisRate: 0,
      vatTreatment: 'standard',
      vatPercent: 20,
    },
    {
      id: 'c-oconnor',
      name: "M. O'Connor Scaffolding",
      isContractor: true,
      isSupplier: true,
      hasValidUTR: false,
      cisRate: null,
      vatTreatment: 'none',
      vatPercent: 0,
    },
  ];

  function useBuilderWithMore(options: Parameters<typeof useBuilder>[0] = {}) {
    useBuilder(options);
    server.use(http.get('*/api/xero/cis-contacts', () => HttpResponse.json(more)));
  }

  async function choose(user: ReturnType<typeof userEvent.setup>, name: string) {
    await user.click(screen.getByRole('combobox', { name: /^Subcontractor/ }));
    await user.click(
      await screen.findByRole('option', {
        name: (accessible) => accessible === name || accessible === `${name} (No UTR)`,
      }),
    );
  }

  async function type(user: ReturnType<typeof userEvent.setup>, label: string, value: string) {
    const input = screen.getByRole('spinbutton', { name: label });
    await user.clear(input);
    await user.type(input, value);
  }

  it('Hughes (20 %, VAT-registered): VAT on labour and materials, the deduction on the labour only, and both lines sent', async () => {
    const user = userEvent.setup();
    useBuilderWithMore();
    const sent: Array<{ bills: Array<{ id: string; lineItems: unknown[]; withoutCisDeduction?: boolean }> }> =
      [];
    server.use(
      http.post('*/api/xero/create-bills', async ({ request }) => {
        const body = (await request.json()) as (typeof sent)[number];
        sent.push(body);
        return HttpResponse.json({
          results: body.bills.map((b) => ({ id: b.id, ok: true, invoiceID: `inv-${b.id}`, status: 'DRAFT' })),
          created: body.bills.length,
          failed: 0,
        });
      }),
    );
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await choose(user, 'Hughes Groundworks Ltd');
    await type(user, 'Gross Amount', '1000');
    await type(user, 'Materials', '400');
    expect(screen.getByLabelText('VAT')).toHaveTextContent('£280.00');
    expect(screen.getByText('20 % VAT')).toBeInTheDocument();
    expect(screen.getByLabelText('CIS Deduction (20%)')).toHaveTextContent('£200.00');
    expect(screen.getByLabelText('Amount Due (80%)')).toHaveTextContent('£1,480.00');
    expect(screen.getByText('of £1,680.00 total')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const row = within(screen.getByRole('table', { name: 'Bills to create' })).getByRole('row', {
      name: /Hughes/,
    });
    for (const figure of ['£1,680.00', '£400.00', '£280.00', '£200.00', '£1,480.00'])
      expect(row).toHaveTextContent(figure);
    await user.click(screen.getByRole('button', { name: 'Create 1 Bill in Xero' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]?.bills[0]?.lineItems).toEqual([
      {
        description: 'Subcontractor services - Hughes Groundworks Ltd',
        quantity: 1,
        unitAmount: 1000,
        accountCode: '321',
      },
      { description: 'Materials - Hughes Groundworks Ltd', quantity: 1, unitAmount: 400, accountCode: '322' },
    ]);
  });

  it('Stone & Sons at 30 % and Northside at 0 %: each row says its rate and follows it', async () => {
    const user = userEvent.setup();
    useBuilderWithMore();
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await choose(user, 'Stone & Sons Brickwork');
    await type(user, 'Gross Amount', '500');
    expect(screen.getByLabelText('CIS Deduction (20%)')).toHaveTextContent('£150.00');
    expect(screen.getByLabelText('Amount Due (80%)')).toHaveTextContent('£350.00');
    expect(screen.getByText('30 % — not verified')).toBeInTheDocument();
    expect(screen.getByLabelText('VAT')).toHaveTextContent('£0.00');
    expect(screen.getByText('No VAT')).toBeInTheDocument();
    // The convert toggle works at the row's rate: net is 70 % at 30 %.
    await user.click(screen.getByRole('button', { name: 'Gross: convert to net (70%)' }));
    expect(screen.getByRole('spinbutton', { name: 'Net Amount (70%)' })).toHaveValue(350);
    await user.click(screen.getByRole('button', { name: 'Net: convert to gross (100%)' }));
    await user.click(screen.getByRole('button', { name: 'Add' }));

    await choose(user, 'Northside Electrical Ltd');
    await type(user, 'Gross Amount', '100');
    expect(screen.getByLabelText('CIS Deduction (20%)')).toHaveTextContent('£0.00');
    expect(screen.getByLabelText('Amount Due (80%)')).toHaveTextContent('£120.00');
    expect(screen.getByText('0 % — gross payment status')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const table = screen.getByRole('table', { name: 'Bills to create' });
    const stone = within(table).getByRole('row', { name: /Stone/ });
    expect(stone).toHaveTextContent('£150.00');
    expect(stone).toHaveTextContent('30 % — not verified');
    const northside = within(table).getByRole('row', { name: /Northside/ });
    expect(northside).toHaveTextContent('£120.00');
    expect(northside).toHaveTextContent('0 % — gross payment status');
  });

  it('flags a contact Xero does not mark as CIS, and adds it without a deduction only once the person ticks so', async () => {
    const user = userEvent.setup();
    useBuilderWithMore();
    await openMain();
    await screen.findByText('Subcontractors (321)');
    await choose(user, "M. O'Connor Scaffolding");
    expect(screen.getByText('Not a CIS subcontractor in Xero: nothing is deducted')).toBeInTheDocument();
    await type(user, 'Gross Amount', '250');
    expect(screen.getByLabelText('CIS Deduction (20%)')).toHaveTextContent('£0.00');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect((await screen.findAllByText('Not a CIS subcontractor')).length).toBeGreaterThan(0);
    expect(screen.queryByRole('row', { name: /O'Connor/ })).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'No CIS deduction: the work is outside CIS' }));
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const row = within(screen.getByRole('table', { name: 'Bills to create' })).getByRole('row', {
      name: /O'Connor/,
    });
    expect(row).toHaveTextContent('Not CIS — no deduction');
    expect(row).toHaveTextContent('£250.00');
  });

  it('says where to choose the missing CIS deductions and materials accounts, and refuses a bill with a deduction meanwhile', async () => {
    const user = userEvent.setup();
    useBuilderWithMore({ setup: { deductionAccount: null, materialsAccounts: [], reverseCharge: false } });
    await openMain();
    const notice = await screen.findByRole('alert', { name: 'CIS settings needed' });
    expect(within(notice).getByText('2 CIS settings are missing')).toBeInTheDocument();
    expect(
      within(notice).getByRole('link', { name: 'Choose the CIS deductions account in Settings' }),
    ).toHaveAttribute('href', '/settings?org=2&field=cisDeductionAccountCode');
    expect(
      within(notice).getByRole('link', { name: 'Choose a materials account in Settings' }),
    ).toHaveAttribute('href', '/settings?org=2&field=cisMaterialsAccountCodes');
    expect(screen.getByRole('spinbutton', { name: 'Materials' })).toBeDisabled();
    await screen.findByText('Subcontractors (321)');
    await choose(user, 'A. Patel Plastering');
    await type(user, 'Gross Amount', '100');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect((await screen.findAllByText('CIS deductions account needed')).length).toBeGreaterThan(0);
    // At 0 % nothing is deducted: no account needed.
    await choose(user, 'Northside Electrical Ltd');
    await type(user, 'Gross Amount', '100');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(
      within(screen.getByRole('table', { name: 'Bills to create' })).getByRole('row', { name: /Northside/ }),
    ).toBeInTheDocument();
  });

  it('lists drafts with their VAT, materials and rate: 30 % said, the reverse charge said, Xero’s own CIS said', async () => {
    useBuilderWithMore({
      drafts: [
        makeDraft({
          invoiceID: 'd-hughes',
          total: 1680,
          vatAmount: 280,
          materialsAmount: 400,
          cisDeduction: 200,
          amountDue: 1480,
          vatTreatment: 'standard',
        }),
        makeDraft({
          invoiceID: 'd-stone',
          contactID: 'c-stone',
          contact: { name: 'Stone & Sons Brickwork' },
          total: 500,
          cisRate: 30,
          cisDeduction: 150,
          amountDue: 350,
          vatTreatment: 'none',
        }),
        makeDraft({
          invoiceID: 'd-coastal',
          contact: { name: 'Coastal Drylining Ltd' },
          total: 1000,
          cisDeduction: 200,
          amountDue: 800,
          vatTreatment: 'reverse-charge',
        }),
        makeDraft({
          invoiceID: 'd-patel',
          contact: { name: 'A. Patel Plastering' },
          total: 790,
          materialsAmount: 90,
          cisDeduction: 140,
          amountDue: 650,
          cisSource: 'xero',
        }),
      ],
    });
    await openMain();
    const table = await screen.findByRole('table', { name: 'Draft CIS bills' });
    expect(within(table).getByRole('columnheader', { name: 'VAT' })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: 'Materials' })).toBeInTheDocument();
    const hughes = within(table).getByRole('row', { name: /Hughes/ });
    for (const figure of ['£1,680.00', '£280.00', '£400.00', '£200.00', '£1,480.00'])
      expect(hughes).toHaveTextContent(figure);
    expect(within(table).getByRole('row', { name: /Stone/ })).toHaveTextContent('30 % — not verified');
    expect(within(table).getByRole('row', { name: /Coastal/ })).toHaveTextContent('Reverse charge');
    expect(within(table).getByRole('row', { name: /Patel/ })).toHaveTextContent("20 % — Xero's own CIS");
  });
});
