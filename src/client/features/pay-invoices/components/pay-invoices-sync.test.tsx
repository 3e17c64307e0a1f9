import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { INVOICES_SYNC_HEADER, type Invoice, type InvoiceSyncStatus } from '@/shared/pay-invoices';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const CARD = 'aaaaaaaa-0000-4000-8000-000000000001';
const CASH = 'aaaaaaaa-0000-4000-8000-000000000002';

const invoice = (n: number, dueDate: string): Invoice => ({
  invoiceId: `00000000-0000-4000-8000-00000000000${n}`,
  invoiceNumber: `INV-000${n}`,
  contactName: 'Daily Sales',
  date: '2026-10-01',
  dueDate,
  status: 'AUTHORISED',
  totalAmount: 35,
  amountDue: 35,
  currency: 'GBP',
  attachments: [],
});
/** Due first: sorts before the others once it arrives with a later page. */
const EARLY = invoice(1, '2026-10-02');
const SHOWN = invoice(2, '2026-10-08');
const LATER = invoice(3, '2026-10-09');

/**
 * Issue 19: a first visit shows the first page at once with a progress bar, the list grows as the server reads
 * the rest, counts say "(so far)" until then, and the user keeps their invoice and what they typed.
 */
describe('Pay Invoices while the first visit is still reading Xero', () => {
  let list: Invoice[];
  let sync: InvoiceSyncStatus;
  beforeEach(() => {
    list = [SHOWN, LATER];
    sync = { complete: false, fetched: 1000, total: 5048 };
    server.use(
      http.get('*/api/xero/invoices', () =>
        HttpResponse.json(list, { headers: { [INVOICES_SYNC_HEADER]: JSON.stringify(sync) } }),
      ),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({
          creditCardAccounts: [{ accountId: CARD, name: 'Business Credit Card', bankAccountNumber: '' }],
          cashAccounts: [{ accountId: CASH, name: 'Cash', bankAccountNumber: '' }],
        }),
      ),
    );
  });

  it('shows a progress bar and partial counts, keeps the user in place as pages arrive, and drops both once complete', async () => {
    renderApp('/invoices');
    await screen.findByRole('heading', { name: 'INV-0002' });
    const bar = screen.getByRole('progressbar', { name: 'Loading invoices from Xero' });
    expect(bar).toHaveAttribute('aria-valuenow', '1000');
    expect(bar).toHaveAttribute('aria-valuemax', '5048');
    expect(screen.getByText('Loading invoices from Xero: 1,000 of 5,048')).toBeInTheDocument();
    expect(
      screen.getByText('Search, sort and counts cover only the invoices loaded so far.'),
    ).toBeInTheDocument();
    expect(screen.getByText('2 invoices awaiting payment (so far)')).toBeInTheDocument();
    expect(screen.getByLabelText('Invoice 1 of 2 so far')).toBeInTheDocument();

    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '10');

    // The server stores the next page: an invoice that sorts first arrives; no reload, no click.
    list = [EARLY, SHOWN, LATER];
    sync = { complete: false, fetched: 2000, total: 5048 };
    expect(await screen.findByText('Loading invoices from Xero: 2,000 of 5,048')).toBeInTheDocument();
    expect(await screen.findByText('3 invoices awaiting payment (so far)')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'INV-0002' })).toBeInTheDocument();
    expect(screen.getByLabelText('Invoice 2 of 3 so far')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue('10');

    sync = { complete: true, fetched: 3, total: 3 };
    expect(await screen.findByText('3 invoices awaiting payment')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByText(/so far/)).not.toBeInTheDocument();
    const navigator = screen.getByLabelText('Invoice 2 of 3');
    expect(within(navigator).queryByText('(so far)')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue('10');
  });

  it('shows no bar and no marks when the list is complete from the start', async () => {
    sync = { complete: true, fetched: 2, total: 2 };
    renderApp('/invoices');
    await screen.findByRole('heading', { name: 'INV-0002' });
    expect(screen.getByText('2 invoices awaiting payment')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByText(/so far/)).not.toBeInTheDocument();
  });
});
