import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Invoice, PaymentRequest } from '@/shared/pay-invoices';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const CARD = 'aaaaaaaa-0000-4000-8000-000000000001';
const CASH = 'aaaaaaaa-0000-4000-8000-000000000002';

function invoice(n: number, overrides: Partial<Invoice> = {}): Invoice {
  return {
    invoiceId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    invoiceNumber: `INV-${String(n).padStart(4, '0')}`,
    contactName: n % 2 === 0 ? 'Green Leaf Cafe' : 'Daily Sales',
    date: `2026-10-${String(n).padStart(2, '0')}`,
    dueDate: `2026-10-${String(n + 7).padStart(2, '0')}`,
    status: 'AUTHORISED',
    totalAmount: 100 + n,
    amountDue: 100 + n,
    currency: 'GBP',
    attachments: [],
    ...overrides,
  };
}

const INVOICES = [invoice(3), invoice(1, { amountDue: 50, totalAmount: 120, status: 'PARTIAL' }), invoice(2)];
const ACCOUNTS = {
  creditCardAccounts: [{ accountId: CARD, name: 'Business Credit Card', bankAccountNumber: '' }],
  cashAccounts: [{ accountId: CASH, name: 'Cash', bankAccountNumber: '' }],
};

function useScreenApi(
  options: {
    invoices?: Invoice[];
    onPayment?: (body: PaymentRequest) => Response | Promise<Response>;
    /** Held until it settles: the refresh between the two payments answers only then. */
    refreshHeld?: Promise<void>;
  } = {},
) {
  const calls: string[] = [];
  let list = options.invoices ?? INVOICES;
  server.use(
    http.get('*/api/xero/invoices', ({ request }) => {
      calls.push(`list${new URL(request.url).searchParams.get('refresh') ? ' refresh' : ''}`);
      return HttpResponse.json(list);
    }),
    http.get('*/api/xero/bank-accounts', () => HttpResponse.json(ACCOUNTS)),
    http.get('*/api/xero/invoices/:id', async ({ params }) => {
      calls.push(`refresh ${String(params.id).slice(-2)}`);
      await options.refreshHeld;
      const found = list.find((i) => i.invoiceId === params.id) ?? null;
      return HttpResponse.json({ message: 'Invoice refreshed from Xero', invoice: found, payments: [] });
    }),
    http.post('*/api/xero/payments', async ({ request }) => {
      const body = (await request.json()) as PaymentRequest;
      calls.push(
        `pay ${body.isCard ? 'card' : 'cash'} ${body.amount} key=${request.headers.get('idempotency-key') ? 'yes' : 'no'}`,
      );
      if (options.onPayment) return options.onPayment(body);
      list = list.map((i) =>
        i.invoiceId === body.invoiceId
          ? { ...i, amountDue: Math.round((i.amountDue - body.amount) * 100) / 100 }
          : i,
      );
      const after = list.find((i) => i.invoiceId === body.invoiceId);
      return HttpResponse.json({
        isInvoiceFullyPaid: (after?.amountDue ?? 0) <= 0.01,
        paymentId: `bbbbbbbb-0000-4000-8000-${String(calls.length).padStart(12, '0')}`,
        amountDue: Math.max(0, after?.amountDue ?? 0),
        undoableUntil: new Date(Date.now() + 120_000).toISOString(),
      });
    }),
  );
  return { calls, setList: (next: Invoice[]) => (list = next) };
}

async function openScreen() {
  renderApp('/invoices');
  await screen.findByRole('heading', { name: 'INV-0001' });
}

describe('Pay Invoices screen', () => {
  it('shows the count, one invoice at a time with Previous / x of y / Next, oldest first', async () => {
    useScreenApi();
    await openScreen();
    expect(screen.getByText('3 invoices awaiting payment')).toBeInTheDocument();
    expect(screen.getByText('1 of 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByRole('heading', { name: 'INV-0003' })).toBeInTheDocument();
    expect(screen.getByText('3 of 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });

  it('searches number or contact without case, and goes back to the first invoice', async () => {
    useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search invoices' }), 'green leaf');
    expect(screen.getByText('1 of 1')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'INV-0002' })).toBeInTheDocument();
    // Typing in the search box keeps the focus there while the list narrows.
    expect(screen.getByRole('searchbox', { name: 'Search invoices' })).toHaveFocus();
  });

  it('auto-fills the other amount with the rest of the amount due, shows the remaining balance, and picks the default accounts', async () => {
    useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    expect(screen.getByRole('combobox', { name: 'Credit card account' })).toHaveTextContent(
      'Business Credit Card',
    );
    expect(screen.getByRole('combobox', { name: 'Cash account' })).toHaveTextContent('Cash');
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '20.5');
    expect(screen.getByRole('textbox', { name: 'Cash amount' })).toHaveValue('29.50');
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '55');
    expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue('20.55');
    await user.clear(screen.getByRole('textbox', { name: 'Card amount' }));
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '70');
    expect(screen.getByRole('textbox', { name: 'Cash amount' })).toHaveValue('0.00');
    expect(screen.getByText('Remaining Balance').nextSibling).toHaveTextContent('-£20.00');
  });

  it('checks in the order of the spec before sending anything', async () => {
    const api = useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    const process = screen.getByRole('button', { name: 'Process Payments' });
    expect(process).toBeDisabled();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '80');
    await user.click(process);
    expect(await screen.findByText('Payment Amount Exceeds Balance')).toBeInTheDocument();
    expect(
      screen.getByText('Total payment amount (£80.00) exceeds the amount due (£50.00)'),
    ).toBeInTheDocument();
    expect(api.calls.filter((c) => c.startsWith('pay'))).toEqual([]);
  });

  it('sends card then cash one after another, refreshing in between, then shows COMPLETED', async () => {
    // The refresh between the two payments answers once the overlay has been seen: on a loaded machine a
    // role query can take longer than the 0.5 s pause the overlay is up for, and miss it.
    let releaseRefresh = () => {};
    const api = useScreenApi({ refreshHeld: new Promise<void>((resolve) => (releaseRefresh = resolve)) });
    await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '30');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(await screen.findByRole('alertdialog', { name: 'Processing payments...' })).toBeInTheDocument();
    releaseRefresh();
    expect(await screen.findByText('Payment Successful!')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog', { name: 'Processing payments...' })).not.toBeInTheDocument();
    expect(screen.getByText('COMPLETED')).toBeInTheDocument();
    expect(api.calls.filter((c) => !c.startsWith('list'))).toEqual([
      'pay card 30 key=yes',
      'refresh 01',
      'pay cash 20 key=yes',
    ]);
  });

  it('stops early when the refresh says the invoice is fully paid', async () => {
    const api = useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    // Xero shows the invoice paid after the card part (someone paid the rest meanwhile).
    server.use(
      http.get('*/api/xero/invoices/:id', () => {
        api.calls.push('refresh paid');
        return HttpResponse.json({ message: 'ok', invoice: { ...INVOICES[1], amountDue: 0 }, payments: [] });
      }),
    );
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '30');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(await screen.findByText('COMPLETED')).toBeInTheDocument();
    expect(api.calls.filter((c) => !c.startsWith('list'))).toEqual(['pay card 30 key=yes', 'refresh paid']);
    expect(await screen.findByText('Processed 1 payment for invoice INV-0001')).toBeInTheDocument();
  });

  it('marks the data out of sync when the server refuses, and on the xero-payment-error event; Next clears it', async () => {
    useScreenApi({
      onPayment: () =>
        HttpResponse.json(
          { message: 'Invoice is already fully paid', code: 'UNPROCESSABLE' },
          { status: 422 },
        ),
    });
    await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '50');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(await screen.findByText('Invoice Data Out of Sync')).toBeInTheDocument();
    expect(screen.getByText('Invoice Data May Be Out of Sync')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.queryByText('Invoice Data May Be Out of Sync')).not.toBeInTheDocument();
    window.dispatchEvent(
      new CustomEvent('xero-payment-error', { detail: { needsRefresh: true, invoiceId: null } }),
    );
    expect(await screen.findByText('Invoice Data May Be Out of Sync')).toBeInTheDocument();
  });

  it('says Payment Failed for any other error', async () => {
    useScreenApi({
      onPayment: () =>
        HttpResponse.json({ message: 'Xero could not be reached. Please try again.' }, { status: 502 }),
    });
    await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '50');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(await screen.findByText('Payment Failed')).toBeInTheDocument();
    expect(screen.getByText('Failed to process payments. Please try again.')).toBeInTheDocument();
    expect(screen.queryByText('Invoice Data May Be Out of Sync')).not.toBeInTheDocument();
  });

  it('tells what was recorded when the card went through and the cash failed, and keeps the Undo for the card', async () => {
    const api = useScreenApi();
    server.use(
      http.post('*/api/xero/payments', async ({ request }) => {
        const body = (await request.json()) as PaymentRequest;
        if (body.isCard) {
          api.calls.push('pay card');
          return HttpResponse.json({
            isInvoiceFullyPaid: false,
            paymentId: 'bbbbbbbb-0000-4000-8000-000000000099',
            amountDue: 20,
            undoableUntil: new Date(Date.now() + 120_000).toISOString(),
          });
        }
        return HttpResponse.json(
          { message: 'Xero is not answering', code: 'XERO_UNAVAILABLE' },
          { status: 503 },
        );
      }),
    );
    await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '30');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(
      await screen.findByText('Card £30.00 recorded; cash £20.00 not recorded — try the cash again.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('Failed to process payments. Please try again.')).not.toBeInTheDocument();
    expect(screen.getByText('Invoice Data May Be Out of Sync')).toBeInTheDocument();
    // No "Payment Successful!" banner for a run that half failed; the Undo strip offers the card back.
    expect(await screen.findByText('Paid £30.00 (card) on INV-0001')).toBeInTheDocument();
    expect(screen.queryByText('Payment Successful!')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Undo/ })).toBeInTheDocument();
  });

  it('moves the header to Reconnect at once when Xero access is gone during a payment, and says Reconnect to Xero', async () => {
    useScreenApi({
      onPayment: () =>
        HttpResponse.json(
          { message: 'Your Xero connection has expired. Please reconnect.', code: 'XERO_AUTH_EXPIRED' },
          { status: 401 },
        ),
    });
    await openScreen();
    expect(screen.getAllByText('Connected to Xero').length).toBeGreaterThan(0);
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '50');
    await user.click(screen.getByRole('button', { name: 'Process Payments' }));
    expect(await screen.findByText(/Reconnect to Xero to carry on/)).toBeInTheDocument();
    expect(screen.queryByText('Failed to process payments. Please try again.')).not.toBeInTheDocument();
    expect((await screen.findAllByRole('button', { name: 'Reconnect' })).length).toBeGreaterThan(0);
    expect(screen.queryByText('Connected to Xero')).not.toBeInTheDocument();
  });

  it('shows the empty state', async () => {
    useScreenApi({ invoices: [] });
    renderApp('/invoices');
    expect(await screen.findByText('No Invoices to Pay')).toBeInTheDocument();
    // The toolbar's Refresh Invoices menu, and the empty state's own button.
    expect(screen.getAllByRole('button', { name: 'Refresh Invoices' })).toHaveLength(2);
  });

  it('shows Feature Not Available when the server says the feature is off', async () => {
    server.use(
      http.get('*/api/xero/invoices', () =>
        HttpResponse.json({ message: 'Pay Invoices is disabled', code: 'FEATURE_DISABLED' }, { status: 403 }),
      ),
      http.get('*/api/xero/bank-accounts', () => HttpResponse.json(ACCOUNTS)),
    );
    renderApp('/invoices');
    expect(await screen.findByText('Feature Not Available')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh Permissions' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Return to Organizations' })).toBeInTheDocument();
  });

  it('shows Connection Error with Retry Connection after the retries fail', async () => {
    let attempts = 0;
    server.use(
      http.get('*/api/xero/invoices', () => {
        attempts += 1;
        return HttpResponse.json({ message: 'Xero is not answering properly right now.' }, { status: 502 });
      }),
      http.get('*/api/xero/bank-accounts', () => HttpResponse.json(ACCOUNTS)),
    );
    renderApp('/invoices');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Connection Error')).toBeInTheDocument();
    expect(within(alert).getByRole('button', { name: 'Retry Connection' })).toBeInTheDocument();
    // The first try and 2 retries (docs/product/features.md §9).
    expect(attempts).toBe(3);
  }, 15_000);

  it('fetches attachments for the placeholder and offers Retry when that fails', async () => {
    let fail = true;
    useScreenApi({
      invoices: [
        invoice(1, { attachments: [{ attachmentId: 'placeholder', name: '', mimeType: '', url: '' }] }),
      ],
    });
    server.use(
      http.get('*/api/xero/invoices/:id/attachments', () =>
        fail
          ? HttpResponse.json({ message: 'Invoice not found' }, { status: 404 })
          : HttpResponse.json([
              {
                attachmentId: 'cccccccc-0000-4000-8000-000000000001',
                name: 'summary.pdf',
                mimeType: 'application/pdf',
                url: '/api/xero/invoices/x/attachments/y/content',
              },
            ]),
      ),
    );
    await openScreen();
    expect(await screen.findByText('Error fetching attachments: Not Found')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'View' })).toHaveAttribute(
      'href',
      '/api/xero/invoices/x/attachments/y/content?org=1',
    );
    expect(screen.getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      '/api/xero/invoices/x/attachments/y/content?org=1&download=true',
    );
  });

  it('moves with the keyboard and processes with Ctrl+Enter', async () => {
    const api = useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByText('2 of 3')).toBeInTheDocument();
    // Moving focuses the card amount (docs/product/features.md §4); Page Up still moves from there.
    expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveFocus();
    await user.keyboard('{PageUp}');
    expect(screen.getByText('1 of 3')).toBeInTheDocument();
    await user.click(screen.getByRole('heading', { name: 'Pay Invoices' }));
    await user.keyboard('2');
    expect(screen.getByRole('textbox', { name: 'Cash amount' })).toHaveFocus();
    await user.keyboard('50{Control>}{Enter}{/Control}');
    await waitFor(() => expect(api.calls).toContain('pay cash 50 key=yes'));
  });
  it('keeps the keyboard hint true where the cursor is: from the card amount, / searches and Esc gives the arrows back (issue 33 item 7)', async () => {
    useScreenApi();
    await openScreen();
    const user = userEvent.setup();
    const hint = screen.getByLabelText('Keyboard shortcuts');
    await user.keyboard('{ArrowRight}');
    const card = screen.getByRole('textbox', { name: 'Card amount' });
    expect(card).toHaveFocus();
    // In the amount, ← → and the digits are the amount's: the hint no longer offers them.
    await waitFor(() => expect(hint).toHaveTextContent('Esc leave the amount for ← → 1 2'));
    expect(hint).not.toHaveTextContent('1 card amount');
    await user.keyboard('/');
    expect(screen.getByRole('searchbox', { name: 'Search invoices' })).toHaveFocus();
    expect(screen.getByRole('searchbox', { name: 'Search invoices' })).toHaveValue('');
    // In the search box '/' is text, so the hint names only what works there.
    await waitFor(() => expect(hint).not.toHaveTextContent('/ search'));
    expect(hint).toHaveTextContent('PgUp PgDn previous / next');
    await user.keyboard('{PageDown}');
    expect(screen.getByText('3 of 3')).toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'Card amount' }));
    await user.keyboard('{Escape}');
    expect(screen.getByRole('textbox', { name: 'Card amount' })).not.toHaveFocus();
    await waitFor(() => expect(hint).toHaveTextContent('← → or PgUp PgDn previous / next'));
    await user.keyboard('{ArrowLeft}');
    expect(screen.getByText('2 of 3')).toBeInTheDocument();
  });
});
