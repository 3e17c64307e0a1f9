import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { DraftInvoice, DraftInvoiceUpdateRequest, UnfinishedDraftAction } from '@/shared/add-invoices';
import { makeConnection } from '@/client/testing/fixtures';
import { renderApp, renderWithProviders } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { AddInvoicesPage } from './add-invoices-page';

const drafts: DraftInvoice[] = [
  {
    id: 'a',
    invoiceNumber: 'INV-0101',
    contactName: 'Daily Sales',
    date: '2026-11-18',
    totalAmount: 1250.5,
    currency: 'GBP',
    pendingCashAmount: 0,
  },
  {
    id: 'b',
    invoiceNumber: 'INV-0102',
    contactName: 'Blue Door Bakery',
    date: '2026-11-20',
    totalAmount: 80,
    currency: 'GBP',
    pendingCashAmount: 12.25,
  },
  {
    id: 'c',
    invoiceNumber: 'INV-0100',
    contactName: 'Corner Deli',
    date: '2026-11-19',
    totalAmount: 300,
    currency: 'GBP',
    pendingCashAmount: 0,
  },
];

const connected = makeConnection({
  defaultContactId: 'contact-1',
  defaultSalesAccountId: 'sales-1',
  defaultCashAccountId: 'cash-1',
  defaultVatRateId: 'OUTPUT2',
});

const defaultsAnswer = {
  contact: { id: 'contact-1', name: 'Daily Sales' },
  salesAccount: { id: 'sales-1', name: '200 - Sales' },
  vatRate: { id: 'OUTPUT2', name: '20% (VAT on Income) (20%)' },
  cashAccount: { id: 'cash-1', name: 'Cash' },
  taxStatus: 'Tax inclusive',
  missing: [],
};

interface Recorded {
  lists: string[];
  updates: Array<{ body: DraftInvoiceUpdateRequest; key: string | null }>;
  creates: Array<{ body: unknown; key: string | null; search: string }>;
  updateSearches: string[];
}

function useHandlers(
  options: {
    list?: DraftInvoice[];
    update?: (body: DraftInvoiceUpdateRequest) => unknown;
    connection?: ReturnType<typeof makeConnection>;
    unfinished?: UnfinishedDraftAction[];
  } = {},
) {
  const recorded: Recorded = { lists: [], updates: [], creates: [], updateSearches: [] };
  let list = options.list ?? drafts;
  server.use(
    http.get('*/api/xero/connection', () => HttpResponse.json(options.connection ?? connected)),
    http.get('*/api/xero/draft-invoices', ({ request }) => {
      recorded.lists.push(new URL(request.url).search);
      return HttpResponse.json(list);
    }),
    http.get('*/api/xero/draft-invoices/defaults', () => HttpResponse.json(defaultsAnswer)),
    http.get('*/api/xero/draft-invoices/unfinished', () => HttpResponse.json(options.unfinished ?? [])),
    http.post('*/api/xero/draft-invoices/update', async ({ request }) => {
      const body = (await request.json()) as DraftInvoiceUpdateRequest;
      recorded.updates.push({ body, key: request.headers.get('idempotency-key') });
      recorded.updateSearches.push(new URL(request.url).search);
      const answer = (options.update?.(body) ?? { processed: body.invoices.length, failed: [] }) as {
        failed: Array<{ id: string }>;
      };
      const refused = new Set(answer.failed.map((f) => f.id));
      const approved = new Set(body.invoices.filter((i) => i.approve && !refused.has(i.id)).map((i) => i.id));
      list = list.filter((d) => !approved.has(d.id));
      return HttpResponse.json(answer);
    }),
    http.post('*/api/xero/draft-invoices/create', async ({ request }) => {
      recorded.creates.push({
        body: await request.json(),
        key: request.headers.get('idempotency-key'),
        search: new URL(request.url).search,
      });
      return HttpResponse.json({ invoiceNumber: 'INV-0200' });
    }),
  );
  return recorded;
}

/** The first render loads the route lazily: allow for a slow machine. */
const findRows = () => screen.findByText('INV-0101');
const bodyRows = () => screen.getAllByRole('row').filter((r) => r.hasAttribute('data-invoice-id'));

describe('Add Invoices screen (001 §2–§8)', () => {
  it('shows the header, the drafts newest first with dd/mm/yyyy dates, pending cash and the New Invoice row', async () => {
    useHandlers();
    renderApp('/add-invoices');
    await findRows();
    expect(
      screen.getByRole('heading', { name: 'Add Invoices - Add cash sales and approve draft invoices' }),
    ).toBeInTheDocument();
    expect(bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'INV-0102',
      'INV-0100',
      'INV-0101',
    ]);
    expect(screen.getByText('20/11/2026')).toBeInTheDocument();
    expect(screen.getByText('£1,250.50')).toBeInTheDocument();
    expect(screen.getByText('£12.25 cash pending')).toBeInTheDocument();
    // Said where it shows, not only in a tooltip (issue 45 item 4).
    expect(screen.getByText('Paid into the cash account when the invoice is approved')).toBeInTheDocument();
    const newRow = screen
      .getAllByRole('row')
      .find((r) => r.hasAttribute('data-new-invoice-row')) as HTMLElement;
    expect(within(newRow).getByText('New Invoice')).toBeInTheDocument();
    expect(within(newRow).getByText('Daily Sales')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: /Date/ })).toHaveAttribute('aria-sort', 'descending');
    for (const name of [/Invoice #/, /Contact/, /Total/, /Cash Amount/, /Action/])
      expect(screen.getByRole('columnheader', { name })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh Invoices' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Process All' })).toBeInTheDocument();
  });

  it('sorts by a column, toggling ascending and descending', async () => {
    const user = userEvent.setup();
    useHandlers();
    renderApp('/add-invoices');
    await findRows();
    await user.click(screen.getByRole('button', { name: /Invoice #/ }));
    expect(bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'INV-0100',
      'INV-0101',
      'INV-0102',
    ]);
    await user.click(screen.getByRole('button', { name: /Invoice #/ }));
    expect(bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'INV-0102',
      'INV-0101',
      'INV-0100',
    ]);
    await user.click(screen.getByRole('button', { name: /Total/ }));
    expect(screen.getByRole('columnheader', { name: /Total/ })).toHaveAttribute('aria-sort', 'ascending');
    expect(bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'INV-0102',
      'INV-0100',
      'INV-0101',
    ]);
  });

  it('shows the empty state with the New Invoice row still there', async () => {
    useHandlers({ list: [] });
    renderApp('/add-invoices');
    expect(await screen.findByText('No draft invoices found in Xero.')).toBeInTheDocument();
    expect(
      screen.getByText('Create a new invoice below or create draft invoices in Xero.'),
    ).toBeInTheDocument();
    expect(screen.getByText('New Invoice')).toBeInTheDocument();
  });

  it('asks before approving with £0, and the header checkbox approves all without asking', async () => {
    const user = userEvent.setup();
    useHandlers();
    renderApp('/add-invoices');
    await findRows();
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Zero Amount Approval' });
    expect(
      within(dialog).getByText(
        "You're about to approve invoice INV-0101 with £0 cash amount. Are you sure you want to continue?",
      ),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('checkbox', { name: 'Approve INV-0101' })).not.toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.click(await screen.findByRole('button', { name: 'Approve with £0' }));
    expect(screen.getByRole('checkbox', { name: 'Approve INV-0101' })).toBeChecked();
    // With cash typed, or cash already pending, there is nothing to confirm.
    await user.type(screen.getByLabelText('Cash amount for INV-0100'), '10');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0100' }));
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0102' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Approve all invoices' })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Approve all invoices' }));
    expect(screen.getByRole('checkbox', { name: 'Approve INV-0101' })).not.toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: 'Approve all invoices' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(
      bodyRows().every((r) => within(r).getByRole('checkbox').getAttribute('aria-checked') === 'true'),
    ).toBe(true);
  });

  it('the £0 dialog opens on Cancel, so Enter does not confirm the risky choice, and Escape gives the focus back to the row', async () => {
    const user = userEvent.setup();
    useHandlers();
    renderApp('/add-invoices');
    await findRows();
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Zero Amount Approval' });
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus());
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('checkbox', { name: 'Approve INV-0101' })).not.toBeChecked();
    await waitFor(() => expect(screen.getByRole('checkbox', { name: 'Approve INV-0101' })).toHaveFocus());
  });

  it('accepts only amounts with at most two decimals in the cash boxes', async () => {
    const user = userEvent.setup();
    useHandlers();
    renderApp('/add-invoices');
    await findRows();
    const cash = screen.getByLabelText('Cash amount for INV-0101');
    await user.type(cash, '12.345');
    expect(cash).toHaveValue(12.34);
  });

  it('processes one row: "No changes to save" first, then an approval that leaves the list', async () => {
    const user = userEvent.setup();
    const recorded = useHandlers();
    renderApp('/add-invoices');
    await findRows();
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    expect(await screen.findByText('No changes to save')).toBeInTheDocument();
    expect(screen.getByText('Enter a cash amount or approve the invoice before saving')).toBeInTheDocument();
    expect(recorded.updates).toHaveLength(0);

    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '100.5');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    await waitFor(() => expect(screen.queryByText('INV-0101')).not.toBeInTheDocument());
    expect(recorded.updates[0]?.body).toEqual({
      invoices: [{ id: 'a', cashAmount: 100.5, approve: true, pendingCashSeen: 0 }],
    });
    expect(recorded.updates[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(recorded.updateSearches[0]).toBe('?org=1');
    expect(await screen.findByText('Invoice Approved')).toBeInTheDocument();
  });

  it('when someone else changed the draft first, says who and what and shows the list as it is now (issue 28)', async () => {
    const user = userEvent.setup();
    const recorded = useHandlers();
    const message = 'INV-0101 is being approved by carol; try again in a moment.';
    server.use(
      http.post('*/api/xero/draft-invoices/update', () =>
        HttpResponse.json({ message, code: 'CONFLICT' }, { status: 409 }),
      ),
    );
    renderApp('/add-invoices');
    await findRows();
    const listsBefore = recorded.lists.length;
    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '2');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    expect(await screen.findByText('Changed by someone else')).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    await waitFor(() => expect(recorded.lists.slice(listsBefore)).toContain('?org=1&refresh=true'));
    // The row stays with what was typed, to be processed again if it still makes sense.
    expect(screen.getByLabelText('Cash amount for INV-0101')).toHaveValue(2);
  });

  it('shows the changes Ledgerlink could not finish for this user (issue 28)', async () => {
    const text =
      'The cash payment of £4.00 on INV-0099 could not be finished (Xero refused it). Do not pay it again on Pay Invoices: an administrator settles it under Admin → Needs review.';
    useHandlers({
      unfinished: [{ writeId: 7, invoiceId: 'z', invoiceNumber: 'INV-0099', message: text }],
    });
    renderApp('/add-invoices');
    await findRows();
    expect(await screen.findByText('Changes Ledgerlink could not finish')).toBeInTheDocument();
    expect(screen.getByText(text)).toBeInTheDocument();
  });

  it('keeps a row processed without approval in its place, cash cleared and shown as pending', async () => {
    const user = userEvent.setup();
    const recorded = useHandlers();
    renderApp('/add-invoices');
    await findRows();
    const cash = screen.getByLabelText('Cash amount for INV-0100');
    await user.type(cash, '40{Enter}');
    await waitFor(() => expect(recorded.updates).toHaveLength(1));
    expect(recorded.updates[0]?.body).toEqual({
      invoices: [{ id: 'c', cashAmount: 40, approve: false, pendingCashSeen: 0 }],
    });
    expect(await screen.findByText('£40.00 cash pending')).toBeInTheDocument();
    expect(screen.getByLabelText('Cash amount for INV-0100')).toHaveValue(null);
    expect(bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual([
      'INV-0102',
      'INV-0100',
      'INV-0101',
    ]);
  });

  it('shows the server reason when a row is refused', async () => {
    const user = userEvent.setup();
    useHandlers({
      update: (body) => ({
        processed: 0,
        failed: [
          { id: body.invoices[0]?.id ?? '', message: 'Invoice INV-0101 was not approved: it is locked' },
        ],
      }),
    });
    renderApp('/add-invoices');
    await findRows();
    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '5');
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    expect(await screen.findByText('Error processing invoice')).toBeInTheDocument();
    expect(screen.getByText('Invoice INV-0101 was not approved: it is locked')).toBeInTheDocument();
    expect(screen.getByLabelText('Cash amount for INV-0101')).toHaveValue(5);
  });

  it('approved but its cash failed: one clear message, the row leaves the list, the cash is offered on Pay Invoices', async () => {
    const user = userEvent.setup();
    let approvedInXero = false;
    useHandlers({
      update: (body) => {
        approvedInXero = true;
        const message =
          'Invoice INV-0101 was approved, but its cash payment of £100.50 was not recorded: Xero did not confirm this change in time. Ledgerlink will check with Xero before anything is sent again; refresh in a minute to see the result.. Record it on Pay Invoices.';
        return { processed: 0, failed: [{ id: body.invoices[0]?.id ?? '', message }] };
      },
    });
    server.use(
      http.get('*/api/xero/draft-invoices', () =>
        HttpResponse.json(approvedInXero ? drafts.filter((d) => d.id !== 'a') : drafts),
      ),
    );
    renderApp('/add-invoices');
    await findRows();
    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '100.5');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    expect(await screen.findByText('Approved, Cash Not Recorded')).toBeInTheDocument();
    expect(
      screen.getByText(
        'INV-0101 was approved in Xero, but its cash payment of £100.50 was not recorded. Pay it on Pay Invoices, where the invoice is now waiting.',
      ),
    ).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByLabelText('Cash amount for INV-0101')).not.toBeInTheDocument());
    expect(screen.queryByText(/\.\./)).not.toBeInTheDocument();
  });

  it("approved, cash unconfirmed: the server's one message and title, the row leaves the list", async () => {
    const user = userEvent.setup();
    let approvedInXero = false;
    const message =
      'Invoice INV-0101 was approved, but Xero did not confirm its cash payment of £100.50 (no answer from Xero). Ledgerlink is checking with Xero: look at the invoice on Pay Invoices in a minute, and pay the cash there only if it is still due.';
    useHandlers({
      update: (body) => {
        approvedInXero = true;
        return {
          processed: 0,
          failed: [
            {
              id: body.invoices[0]?.id ?? '',
              message,
              approved: true,
              unrecordedCashAmount: 100.5,
              cashOutcome: 'unconfirmed',
            },
          ],
        };
      },
    });
    server.use(
      http.get('*/api/xero/draft-invoices', () =>
        HttpResponse.json(approvedInXero ? drafts.filter((d) => d.id !== 'a') : drafts),
      ),
    );
    renderApp('/add-invoices');
    await findRows();
    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '100.5');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
    expect(await screen.findByText('Approved, Cash Not Confirmed')).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByLabelText('Cash amount for INV-0101')).not.toBeInTheDocument());
  });

  it('Process All: checks there is something to save, sends the organisation, reports what failed and re-fetches with refresh', async () => {
    const user = userEvent.setup();
    const recorded = useHandlers({
      update: (body) => ({
        processed: body.invoices.length - 1,
        failed: [{ id: 'c', message: 'Invoice INV-0100 was not approved: This document cannot be edited' }],
      }),
    });
    renderApp('/add-invoices');
    await findRows();
    await user.click(screen.getByRole('button', { name: 'Process All' }));
    expect(
      await screen.findByText('Enter cash amounts or approve invoices before saving'),
    ).toBeInTheDocument();

    await user.type(screen.getByLabelText('Cash amount for INV-0101'), '20');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0101' }));
    await user.type(screen.getByLabelText('Cash amount for INV-0100'), '30');
    await user.click(screen.getByRole('checkbox', { name: 'Approve INV-0100' }));
    await user.type(screen.getByLabelText('Cash amount for INV-0102'), '1');
    const listsBefore = recorded.lists.length;
    await user.click(screen.getByRole('button', { name: 'Process All' }));
    expect(await screen.findByText('2 of 3 invoices processed, 1 failed')).toBeInTheDocument();
    expect(
      screen.getByText('Invoice INV-0100 was not approved: This document cannot be edited'),
    ).toBeInTheDocument();
    expect(screen.getByText('Approved:').parentElement).toHaveTextContent('Approved: INV-0101');
    expect(screen.getByText('Cash kept pending:').parentElement).toHaveTextContent(
      'Cash kept pending: INV-0102',
    );
    expect(recorded.updates[0]?.body).toEqual({
      invoices: [
        { id: 'b', cashAmount: 1, approve: false, pendingCashSeen: 12.25 },
        { id: 'c', cashAmount: 30, approve: true, pendingCashSeen: 0 },
        { id: 'a', cashAmount: 20, approve: true, pendingCashSeen: 0 },
      ],
      organizationId: 1,
    });
    await waitFor(() => expect(recorded.lists.slice(listsBefore)).toContain('?org=1&refresh=true'));
    // The failed row keeps what was typed; the approved one left; the other kept its place with cash cleared.
    await waitFor(() => expect(screen.queryByLabelText('Cash amount for INV-0101')).not.toBeInTheDocument());
    expect(screen.getByLabelText('Cash amount for INV-0100')).toHaveValue(30);
    expect(screen.getByRole('checkbox', { name: 'Approve INV-0100' })).toBeChecked();
    expect(screen.getByLabelText('Cash amount for INV-0102')).toHaveValue(null);
    // A second error toast waits a second for the first ("No changes to save") to be read
    // (docs/product/shell.md §9).
    expect(await screen.findByText('Error saving changes')).toBeInTheDocument();
  });

  it('creates a new invoice on the defaults, resets the form and re-fetches with refresh', async () => {
    const user = userEvent.setup();
    const recorded = useHandlers();
    renderApp('/add-invoices');
    await findRows();
    const process = screen.getByRole('button', { name: 'Process new invoice' });
    expect(process).toBeDisabled();
    const date = screen.getByLabelText('New invoice date (dd/mm/yyyy)');
    await user.clear(date);
    await user.type(date, '21/11/2026');
    await user.type(screen.getByLabelText('New invoice total'), '150');
    await user.type(screen.getByLabelText('New invoice cash amount'), '40');
    await user.click(screen.getByRole('checkbox', { name: 'Approve new invoice' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(process).toBeEnabled();
    const listsBefore = recorded.lists.length;
    await user.click(process);
    expect(await screen.findByText('Invoice INV-0200 was created in Xero and approved.')).toBeInTheDocument();
    expect(recorded.creates[0]?.body).toEqual({
      date: '2026-11-21',
      totalAmount: 150,
      cashAmount: 40,
      approve: true,
    });
    expect(recorded.creates[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    // Pinned to the organisation whose defaults the row shows, whatever another tab makes active (issue 21).
    expect(recorded.creates[0]?.search).toBe('?org=1');
    await waitFor(() => expect(recorded.lists.slice(listsBefore)).toContain('?org=1&refresh=true'));
    expect(screen.getByLabelText('New invoice total')).toHaveValue(null);
    expect(screen.getByRole('checkbox', { name: 'Approve new invoice' })).not.toBeChecked();
    expect(screen.getByLabelText('New invoice date (dd/mm/yyyy)')).not.toHaveValue('21/11/2026');
  });

  it('keeps the new invoice disabled without a default contact and says what to set', async () => {
    useHandlers({ connection: makeConnection({ defaultSalesAccountId: 'sales-1' }) });
    server.use(
      http.get('*/api/xero/draft-invoices/defaults', () =>
        HttpResponse.json({ ...defaultsAnswer, contact: null, missing: ['Default Contact'] }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/add-invoices');
    await findRows();
    await user.type(screen.getByLabelText('New invoice total'), '10');
    expect(screen.getByRole('button', { name: 'Process new invoice' })).toBeDisabled();
    expect(screen.getByText('No default contact')).toBeInTheDocument();
    const hint = screen.getByText(/To create invoices here, set a Default Contact in/);
    expect(within(hint).getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings?org=1');
  });

  it('shows "Error creating invoice" with the server text', async () => {
    const user = userEvent.setup();
    useHandlers();
    // The server's one error shape (docs/api-errors.md): Xero's words in `message`.
    server.use(
      http.post('*/api/xero/draft-invoices/create', () =>
        HttpResponse.json({ message: 'The contact is archived', code: 'XERO_REJECTED' }, { status: 400 }),
      ),
    );
    renderApp('/add-invoices');
    await findRows();
    await user.type(screen.getByLabelText('New invoice total'), '10');
    await user.click(screen.getByRole('button', { name: 'Process new invoice' }));
    expect(await screen.findByText('Error creating invoice')).toBeInTheDocument();
    expect(screen.getByText('The contact is archived')).toBeInTheDocument();
  });

  it('says when the drafts cannot be loaded', async () => {
    useHandlers();
    server.use(
      http.get('*/api/xero/draft-invoices', () =>
        HttpResponse.json({ message: 'Xero is not answering properly right now.' }, { status: 502 }),
      ),
    );
    renderApp('/add-invoices');
    expect(await screen.findAllByText('Failed to load draft invoices from Xero')).not.toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('shows cards on a narrow screen, with select-all and a sort select', async () => {
    const original = window.matchMedia;
    window.matchMedia = vi.fn((query: string) => ({
      ...original(query),
      matches: query.includes('max-width: 639'),
    })) as typeof window.matchMedia;
    try {
      const user = userEvent.setup();
      const recorded = useHandlers();
      renderApp('/add-invoices');
      await findRows();
      const cards = screen.getAllByRole('listitem').filter((li) => li.hasAttribute('data-invoice-id'));
      expect(cards.map((c) => within(c).getAllByRole('paragraph')[0]?.textContent)).toEqual([
        'INV-0102',
        'INV-0100',
        'INV-0101',
      ]);
      expect(screen.queryByRole('table')).not.toBeInTheDocument();
      await user.type(screen.getByLabelText('Cash amount for INV-0101'), '7');
      await user.click(screen.getByRole('button', { name: 'Process INV-0101' }));
      await waitFor(() =>
        expect(recorded.updates[0]?.body).toEqual({
          invoices: [{ id: 'a', cashAmount: 7, approve: false, pendingCashSeen: 0 }],
        }),
      );
      await user.click(screen.getByRole('checkbox', { name: 'Approve all invoices' }));
      expect(screen.getByRole('checkbox', { name: 'Approve INV-0100' })).toBeChecked();
      expect(screen.getByRole('combobox', { name: 'Sort invoices' })).toHaveTextContent('Date, newest first');
    } finally {
      window.matchMedia = original;
    }
  });

  it('shows the not-connected state with a Connect to Xero button to /organizations', async () => {
    server.use(http.get('*/api/xero/connection', () => HttpResponse.json({ connected: false })));
    renderWithProviders(<AddInvoicesPage />);
    expect(
      await screen.findByText('You need to connect to Xero before managing draft invoices.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect to Xero' })).toHaveAttribute('href', '/organizations');
  });

  it('shows the feature-disabled notice when the server says the feature is off', async () => {
    useHandlers();
    server.use(
      http.get('*/api/xero/draft-invoices', () =>
        HttpResponse.json(
          { message: 'Add Invoices is disabled for this organization.', code: 'FEATURE_DISABLED' },
          { status: 403 },
        ),
      ),
    );
    renderWithProviders(<AddInvoicesPage />);
    expect(await screen.findByText('This feature is not enabled for your organization.')).toBeInTheDocument();
  });

  it('shows the not-connected state when the server says the organisation was disconnected meanwhile', async () => {
    useHandlers();
    server.use(
      http.get('*/api/xero/draft-invoices', () =>
        HttpResponse.json(
          // The code decides, whatever the message says.
          { message: 'Organization "Demo Shop Ltd" has no Xero link', code: 'NOT_CONNECTED' },
          { status: 403 },
        ),
      ),
    );
    renderWithProviders(<AddInvoicesPage />);
    expect(
      await screen.findByText('You need to connect to Xero before managing draft invoices.'),
    ).toBeInTheDocument();
  });
});
