import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveInvoicesEvent } from '@/shared/live-events';
import type { Invoice } from '@/shared/pay-invoices';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const CARD = 'aaaaaaaa-0000-4000-8000-000000000001';
const CASH = 'aaaaaaaa-0000-4000-8000-000000000002';

const INV1: Invoice = {
  invoiceId: '00000000-0000-4000-8000-000000000001',
  invoiceNumber: 'INV-0001',
  contactName: 'Daily Sales',
  date: '2026-10-01',
  dueDate: '2026-10-08',
  status: 'AUTHORISED',
  totalAmount: 35,
  amountDue: 35,
  currency: 'GBP',
  attachments: [],
};
const INV2: Invoice = {
  ...INV1,
  invoiceId: '00000000-0000-4000-8000-000000000002',
  invoiceNumber: 'INV-0002',
  date: '2026-10-02',
};

/** A stand-in for the browser's EventSource: the test pushes the server's events. */
class FakeEventSource {
  static instances: FakeEventSource[] = [];
  static readonly CLOSED = 2;
  readyState = 1;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, Array<(event: MessageEvent<string>) => void>>();
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(kind: string, fn: (event: MessageEvent<string>) => void) {
    this.listeners.set(kind, [...(this.listeners.get(kind) ?? []), fn]);
  }
  close() {
    this.readyState = 2;
  }
  emit(kind: string, data: unknown, id: string) {
    for (const fn of this.listeners.get(kind) ?? [])
      fn(new MessageEvent(kind, { data: JSON.stringify(data), lastEventId: id }));
  }
}

function paidInXero(amountDuePence: number, paidPence: number): LiveInvoicesEvent {
  return {
    organizationId: 1,
    invoices: [
      {
        invoiceId: INV1.invoiceId,
        invoiceNumber: INV1.invoiceNumber,
        type: 'ACCREC',
        before: { status: 'AUTHORISED', amountDuePence: 3500, amountPaidPence: 0 },
        after: {
          status: amountDuePence === 0 ? 'PAID' : 'AUTHORISED',
          amountDuePence,
          amountPaidPence: 3500 - amountDuePence,
          totalPence: 3500,
        },
        newPayments: [
          {
            paymentId: 'cccccccc-0000-4000-8000-000000000001',
            amountPence: paidPence,
            reference: 'Card payment for INV-0001',
          },
        ],
      },
    ],
  };
}

describe('Pay Invoices, live', () => {
  let list: Invoice[];
  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.stubGlobal('EventSource', FakeEventSource);
    list = [INV1, INV2];
    server.use(
      http.get('*/api/xero/invoices', () => HttpResponse.json(list)),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({
          creditCardAccounts: [{ accountId: CARD, name: 'Business Credit Card', bankAccountNumber: '' }],
          cashAccounts: [{ accountId: CASH, name: 'Cash', bankAccountNumber: '' }],
        }),
      ),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  async function openScreen() {
    renderApp('/invoices');
    await screen.findByRole('heading', { name: 'INV-0001' });
    await waitFor(() => expect(FakeEventSource.instances.length).toBeGreaterThan(0));
    const source = FakeEventSource.instances.at(-1)!;
    expect(source.url).toContain('/api/events?org=1');
    return source;
  }

  it('says in words what was paid elsewhere and clears the amounts typed against the old balance', async () => {
    const source = await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '35');
    expect(screen.getByRole('button', { name: 'Process Payments' })).toBeEnabled();
    list = [{ ...INV1, amountDue: 15, status: 'PARTIAL' }, INV2];
    act(() => source.emit('invoices', paidInXero(1500, 2000), '7'));
    expect(
      await screen.findByText('INV-0001: Paid in Xero a moment ago: £20.00 by card; £15.00 still due'),
    ).toBeInTheDocument();
    // The list is read again: the typed £35.00 is gone and the new balance shows.
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue(''));
    expect(screen.getByRole('button', { name: 'Process Payments' })).toBeDisabled();
  });

  it('holds back a payment until the list has the new balance, and keeps what was typed against the announced one', async () => {
    const source = await openScreen();
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '35');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get('*/api/xero/invoices', async () => {
        await held;
        return HttpResponse.json([{ ...INV1, amountDue: 15 }, INV2]);
      }),
    );
    act(() => source.emit('invoices', paidInXero(1500, 2000), '8'));
    await screen.findByText(/Paid in Xero a moment ago: £20\.00 by card; £15\.00 still due/);
    // The amount typed against the old balance goes at the event, before the list has the new one.
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue(''));
    // The owner pays what the notice says is due while the list is still being read: held back until it is in.
    await user.type(screen.getByRole('textbox', { name: 'Card amount' }), '15');
    expect(screen.getByRole('button', { name: 'Process Payments' })).toBeDisabled();
    release();
    // The list catches up to the balance announced: what was typed against it stays, and can be sent.
    await waitFor(() => expect(screen.getByRole('button', { name: 'Process Payments' })).toBeEnabled());
    expect(screen.getByRole('textbox', { name: 'Card amount' })).toHaveValue('15');
    expect(screen.getByRole('textbox', { name: 'Cash amount' })).toHaveValue('0.00');
  });

  it('says so when the invoice on screen was paid in full elsewhere and moves on to the next', async () => {
    const source = await openScreen();
    list = [INV2];
    act(() => source.emit('invoices', paidInXero(0, 3500), '9'));
    expect(
      await screen.findByText('INV-0001: Paid in Xero a moment ago: £35.00 by card; nothing left to pay'),
    ).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'INV-0002' })).toBeInTheDocument();
  });
});
