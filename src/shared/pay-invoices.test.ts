import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromPence, toPence } from './money';
import {
  type Invoice,
  PAYMENT_PAUSE_MS,
  shouldSkipRemainingPayments,
  bankAccountsResponseSchema,
  buildPaymentRequests,
  canProcessPayments,
  checkPaymentAgainstBalance,
  chooseDefaultAccounts,
  findInvoicesToPay,
  getAllocation,
  getAutoFillAmount,
  getInvoiceNumberValue,
  getPaymentReference,
  invoiceSchema,
  isBalanceFullyPaid,
  isInvoiceAwaitingPayment,
  isOutOfSyncPaymentError,
  matchesInvoiceFilters,
  needsAttachmentFetch,
  paymentRequestSchema,
  paymentResponseSchema,
  sortInvoices,
  validatePaymentForm,
} from './pay-invoices';

function makeInvoice(overrides: Partial<Invoice> = {}): Invoice {
  return invoiceSchema.parse({
    invoiceId: 'inv-1',
    invoiceNumber: 'INV-0001',
    contactName: 'Acme Ltd',
    date: '2025-11-01',
    dueDate: '2025-11-15',
    status: 'AUTHORISED',
    totalAmount: 120,
    amountDue: 120,
    currency: 'GBP',
    ...overrides,
  });
}

describe('invoice DTO', () => {
  it('defaults currency and attachments', () => {
    const parsed = invoiceSchema.parse({
      invoiceId: 'a',
      invoiceNumber: 'INV-1',
      contactName: 'X',
      date: '2025-01-01',
      dueDate: null,
      status: 'SENT',
      totalAmount: 10,
      amountDue: 10,
    });
    expect(parsed.currency).toBe('GBP');
    expect(parsed.attachments).toEqual([]);
  });

  it('rejects 3-decimal money and bad dates', () => {
    expect(invoiceSchema.safeParse({ ...makeInvoice(), amountDue: 1.005 }).success).toBe(false);
    expect(invoiceSchema.safeParse({ ...makeInvoice(), date: '01/11/2025' }).success).toBe(false);
  });

  it('parses bank accounts with missing numbers as empty', () => {
    const parsed = bankAccountsResponseSchema.parse({
      creditCardAccounts: [{ accountId: 'c1', name: 'Card' }],
      cashAccounts: [],
    });
    expect(parsed.creditCardAccounts[0]?.bankAccountNumber).toBe('');
  });
});

describe('awaiting payment (001 §4)', () => {
  it('keeps receivables with AUTHORISED, SENT or PARTIAL and amount due', () => {
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'AUTHORISED' })).toBe(true);
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'sent' })).toBe(true);
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'PARTIAL' })).toBe(true);
    expect(isInvoiceAwaitingPayment({ amountDue: 0, status: 'AUTHORISED' })).toBe(false);
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'DRAFT' })).toBe(false);
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'PAID' })).toBe(false);
    expect(isInvoiceAwaitingPayment({ amountDue: 1, status: 'AUTHORISED_BILL' })).toBe(false);
  });

  it('counts balances of 0.01 or less as fully paid', () => {
    expect(isBalanceFullyPaid(1)).toBe(true);
    expect(isBalanceFullyPaid(0)).toBe(true);
    expect(isBalanceFullyPaid(-3)).toBe(true);
    expect(isBalanceFullyPaid(2)).toBe(false);
  });
});

describe('allocation (001 §4)', () => {
  it('auto-fills the other box with the remainder, 0.00 when it exceeds', () => {
    expect(getAutoFillAmount(120, '20')).toBe('100.00');
    expect(getAutoFillAmount(120, '120')).toBe('0.00');
    expect(getAutoFillAmount(120, '150')).toBe('0.00');
    expect(getAutoFillAmount(0.3, '0.1')).toBe('0.20'); // no float drift
    expect(getAutoFillAmount(120, '')).toBe('120.00');
    expect(getAutoFillAmount(1234.56, '0.56')).toBe('1234.00');
  });

  it('computes total allocated and remaining balance', () => {
    expect(getAllocation(120, '20.10', '50')).toEqual({
      cardPence: 2010,
      cashPence: 5000,
      totalAllocatedPence: 7010,
      remainingBalancePence: 4990,
    });
    expect(getAllocation(10, '6', '6').remainingBalancePence).toBe(-200);
    expect(canProcessPayments(getAllocation(10, '', ''))).toBe(false);
    expect(canProcessPayments(getAllocation(10, '0.01', ''))).toBe(true);
  });

  it('card + auto-filled cash always equals the amount due when card ≤ due', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99999999 }), fc.integer({ min: 0, max: 99999999 }), (a, b) => {
        const due = Math.max(a, b);
        const card = Math.min(a, b);
        const cashText = getAutoFillAmount(fromPence(due), fromPence(card).toFixed(2));
        const allocation = getAllocation(fromPence(due), fromPence(card).toFixed(2), cashText);
        expect(allocation.totalAllocatedPence).toBe(due);
        expect(allocation.remainingBalancePence).toBe(0);
      }),
    );
  });
});

describe('validation order and texts (001 §5)', () => {
  const base = {
    invoice: { amountDue: 100, currency: 'GBP' },
    cardAmount: '',
    cashAmount: '',
    cardAccountId: 'card',
    cashAccountId: 'cash',
  };

  it('needs an invoice first', () => {
    expect(validatePaymentForm({ ...base, invoice: null, cardAmount: '500', cardAccountId: null })).toEqual({
      title: 'No Invoice',
      description: 'Cannot process payments: no invoice is selected',
    });
  });

  it('needs the card account, then the cash account', () => {
    expect(
      validatePaymentForm({
        ...base,
        cardAmount: '500',
        cashAmount: '5',
        cardAccountId: '',
        cashAccountId: '',
      }),
    ).toEqual({
      title: 'Missing Credit Card Account',
      description: 'Please select a credit card account before processing payment',
    });
    expect(
      validatePaymentForm({
        ...base,
        cardAmount: '0.01',
        cashAmount: '500',
        cardAccountId: '',
        cashAccountId: '',
      }),
    ).toEqual({
      title: 'Missing Cash Account',
      description: 'Please select a cash account before processing payment',
    });
  });

  it('refuses totals above the amount due plus 0.01, stating both amounts', () => {
    const result = validatePaymentForm({ ...base, cardAmount: '60', cashAmount: '40.02' });
    expect(result?.title).toBe('Payment Amount Exceeds Balance');
    expect(result?.description).toContain('£100.02');
    expect(result?.description).toContain('£100.00');
    expect(validatePaymentForm({ ...base, cardAmount: '60', cashAmount: '40.01' })).toBeNull();
  });

  it('refuses a single amount above the balance (reached through the total check first)', () => {
    expect(validatePaymentForm({ ...base, cardAmount: '100.02' })?.title).toBe(
      'Payment Amount Exceeds Balance',
    );
  });

  it('needs at least one amount above 0.01', () => {
    const noAmount = {
      title: 'No Payment Amount',
      description: 'Please enter at least one payment amount greater than £0',
    };
    expect(validatePaymentForm(base)).toEqual(noAmount);
    expect(validatePaymentForm({ ...base, cardAmount: '0.01', cashAmount: '0.01' })).toEqual(noAmount);
    expect(validatePaymentForm({ ...base, cardAmount: '0.02' })).toBeNull();
  });
});

describe('payment items', () => {
  it('uses the spec references', () => {
    expect(getPaymentReference('INV-7', true)).toBe('Card payment for INV-7');
    expect(getPaymentReference('INV-7', false)).toBe('Cash payment for INV-7');
  });

  it('builds card then cash, skipping amounts of 0.01 or less', () => {
    const invoice = makeInvoice({ invoiceId: 'i9', invoiceNumber: 'INV-9' });
    const items = buildPaymentRequests(
      invoice,
      { cardAmount: '20.50', cashAmount: '99.50', cardAccountId: 'c', cashAccountId: 'k' },
      '2025-11-20',
    );
    expect(items).toEqual([
      {
        invoiceId: 'i9',
        invoiceNumber: 'INV-9',
        accountId: 'c',
        amount: 20.5,
        reference: 'Card payment for INV-9',
        isCard: true,
        date: '2025-11-20',
      },
      {
        invoiceId: 'i9',
        invoiceNumber: 'INV-9',
        accountId: 'k',
        amount: 99.5,
        reference: 'Cash payment for INV-9',
        isCard: false,
        date: '2025-11-20',
      },
    ]);
    for (const item of items) expect(paymentRequestSchema.parse(item)).toEqual(item);
    expect(
      buildPaymentRequests(
        invoice,
        { cardAmount: '0.01', cashAmount: '5', cardAccountId: 'c', cashAccountId: 'k' },
        '2025-11-20',
      ),
    ).toHaveLength(1);
  });

  it('validates the wire shapes', () => {
    const good = {
      invoiceId: 'i',
      invoiceNumber: 'N',
      accountId: 'a',
      amount: 1.5,
      reference: 'r',
      isCard: true,
      date: '2025-01-01',
    };
    expect(paymentRequestSchema.safeParse(good).success).toBe(true);
    expect(paymentRequestSchema.safeParse({ ...good, amount: 0 }).success).toBe(false);
    expect(paymentRequestSchema.safeParse({ ...good, amount: -1 }).success).toBe(false);
    expect(paymentRequestSchema.safeParse({ ...good, amount: 1.234 }).success).toBe(false);
    expect(paymentRequestSchema.safeParse({ ...good, date: '2025-01-01T10:00:00Z' }).success).toBe(false);
    expect(paymentRequestSchema.safeParse({ ...good, __proto__x: 1 }).success).toBe(false);
    // Xero's bounds (issue 28): InvoiceNumber at most 255 characters, a document date from 1900 to 2099.
    expect(paymentRequestSchema.safeParse({ ...good, invoiceNumber: 'N'.repeat(255) }).success).toBe(true);
    expect(
      paymentRequestSchema.safeParse({ ...good, invoiceNumber: 'N'.repeat(256) }).error?.issues[0]?.message,
    ).toBe('Invoice number must be 255 characters or fewer');
    expect(paymentRequestSchema.safeParse({ ...good, date: '9999-12-31' }).success).toBe(false);
    expect(paymentRequestSchema.safeParse({ ...good, invoiceId: 'i'.repeat(101) }).success).toBe(false);
    expect(paymentResponseSchema.parse({ isInvoiceFullyPaid: true })).toEqual({ isInvoiceFullyPaid: true });
  });
});

describe('default accounts (001 §4)', () => {
  const accounts = {
    creditCardAccounts: [
      { accountId: 'card-1', name: 'Card 1', bankAccountNumber: '' },
      { accountId: 'card-2', name: 'Card 2', bankAccountNumber: '' },
    ],
    cashAccounts: [
      { accountId: 'cash-1', name: 'Cash 1', bankAccountNumber: '' },
      { accountId: 'cash-2', name: 'Cash 2', bankAccountNumber: '' },
    ],
  };

  it('uses saved defaults that are present in the lists', () => {
    expect(
      chooseDefaultAccounts(accounts, {
        defaultCreditCardAccountId: 'card-2',
        defaultCashAccountId: 'cash-2',
      }),
    ).toEqual({
      cardAccountId: 'card-2',
      cashAccountId: 'cash-2',
    });
  });

  it('with no saved cash default, prefers an account named like cash over the first one (issue 17 item 18)', () => {
    const cashAccounts = [
      { accountId: 'current', name: 'Business Current Account', bankAccountNumber: '' },
      { accountId: 'till', name: 'Cash', bankAccountNumber: '' },
    ];
    expect(
      chooseDefaultAccounts({ creditCardAccounts: accounts.creditCardAccounts, cashAccounts }, {})
        .cashAccountId,
    ).toBe('till');
  });

  it('falls back to the first account of the right list, then of the other', () => {
    expect(
      chooseDefaultAccounts(accounts, { defaultCreditCardAccountId: 'gone', defaultCashAccountId: '' }),
    ).toEqual({
      cardAccountId: 'card-1',
      cashAccountId: 'cash-1',
    });
    expect(
      chooseDefaultAccounts({ creditCardAccounts: [], cashAccounts: accounts.cashAccounts }, {}),
    ).toEqual({
      cardAccountId: 'cash-1',
      cashAccountId: 'cash-1',
    });
    expect(
      chooseDefaultAccounts({ creditCardAccounts: accounts.creditCardAccounts, cashAccounts: [] }, {}),
    ).toEqual({
      cardAccountId: 'card-1',
      cashAccountId: 'card-1',
    });
    expect(chooseDefaultAccounts({ creditCardAccounts: [], cashAccounts: [] }, {})).toEqual({
      cardAccountId: null,
      cashAccountId: null,
    });
  });
});

describe('search, filters and sort', () => {
  const invoices = [
    makeInvoice({
      invoiceId: 'a',
      invoiceNumber: 'INV-0010',
      contactName: 'Bravo',
      date: '2025-11-03',
      dueDate: '2025-11-10',
      amountDue: 50,
    }),
    makeInvoice({
      invoiceId: 'b',
      invoiceNumber: 'INV-0002',
      contactName: 'alpha',
      date: '2025-11-01',
      dueDate: '2025-11-25',
      amountDue: 500,
    }),
    makeInvoice({
      invoiceId: 'c',
      invoiceNumber: 'X',
      contactName: 'Charlie',
      date: '2025-11-05',
      dueDate: '2025-12-31',
      amountDue: 5,
    }),
    makeInvoice({
      invoiceId: 'd',
      invoiceNumber: 'INV-0003',
      contactName: 'Delta',
      status: 'PAID',
      amountDue: 0,
    }),
  ];
  const today = '2025-11-20';

  it('reads invoice numbers by their digits, 0 when none', () => {
    expect(getInvoiceNumberValue('INV-0012')).toBe(12);
    expect(getInvoiceNumberValue('A1-B2')).toBe(12);
    expect(getInvoiceNumberValue('none')).toBe(0);
  });

  it('sorts by each option, date oldest first by default', () => {
    const ids = (list: Invoice[]) => list.map((i) => i.invoiceId);
    const open = invoices.slice(0, 3);
    expect(ids(sortInvoices(open))).toEqual(['b', 'a', 'c']);
    expect(ids(sortInvoices(open, 'date-desc'))).toEqual(['c', 'a', 'b']);
    expect(ids(sortInvoices(open, 'number-asc'))).toEqual(['c', 'b', 'a']);
    expect(ids(sortInvoices(open, 'number-desc'))).toEqual(['a', 'b', 'c']);
    expect(ids(sortInvoices(open, 'amount-asc'))).toEqual(['c', 'a', 'b']);
    expect(ids(sortInvoices(open, 'amount-desc'))).toEqual(['b', 'a', 'c']);
  });

  it('searches number or contact, case-insensitive, and drops paid invoices', () => {
    expect(findInvoicesToPay(invoices, { search: 'ALPHA', today }).map((i) => i.invoiceId)).toEqual(['b']);
    expect(findInvoicesToPay(invoices, { search: 'inv-001', today }).map((i) => i.invoiceId)).toEqual(['a']);
    expect(findInvoicesToPay(invoices, { today })).toHaveLength(3);
  });

  it('filters by date, amount due and status', () => {
    const pick = (filters: Parameters<typeof matchesInvoiceFilters>[1]) =>
      invoices
        .slice(0, 3)
        .filter((i) => matchesInvoiceFilters(i, filters, today))
        .map((i) => i.invoiceId);
    expect(pick({ startDate: '2025-11-02', endDate: '2025-11-04' })).toEqual(['a']);
    expect(pick({ minAmount: '10', maxAmount: '100' })).toEqual(['a']);
    expect(pick({ minAmount: '', maxAmount: '' })).toEqual(['a', 'b', 'c']);
    expect(pick({ status: 'overdue' })).toEqual(['a']);
    expect(pick({ status: 'due-soon' })).toEqual(['b']);
    expect(pick({ status: 'all' })).toEqual(['a', 'b', 'c']);
  });
});

describe('attachments', () => {
  it('fetches when the first attachment is a placeholder', () => {
    expect(needsAttachmentFetch([{ attachmentId: 'placeholder' }])).toBe(true);
    expect(needsAttachmentFetch([{ attachmentId: 'a1' }, { attachmentId: 'placeholder' }])).toBe(false);
    expect(needsAttachmentFetch([])).toBe(false);
    expect(needsAttachmentFetch(undefined)).toBe(false);
  });
});

describe('out-of-sync payment errors (001 §8)', () => {
  it('checks payments on the server with messages that read as out of sync', () => {
    expect(checkPaymentAgainstBalance(toPence(10), toPence(10.0))).toBeNull();
    expect(checkPaymentAgainstBalance(toPence(10.01), toPence(10))).toBeNull();
    const over = checkPaymentAgainstBalance(toPence(10.02), toPence(10));
    expect(over).toBe('Payment of £10.02 exceeds the invoice balance of £10.00');
    expect(isOutOfSyncPaymentError(over)).toBe(true);
    expect(isOutOfSyncPaymentError(checkPaymentAgainstBalance(100, 1))).toBe(true);
    expect(isOutOfSyncPaymentError('Validation failed for Payment')).toBe(true);
    expect(isOutOfSyncPaymentError('Boom')).toBe(false);
    expect(isOutOfSyncPaymentError(undefined)).toBe(false);
  });
});

describe('processing constants and helpers (001 §4, §9)', () => {
  it('pauses half a second between payments', () => {
    expect(PAYMENT_PAUSE_MS).toBe(500);
  });

  it('skips remaining payments once the balance is 0.01 or less', () => {
    expect(shouldSkipRemainingPayments(0.01)).toBe(true);
    expect(shouldSkipRemainingPayments(0)).toBe(true);
    expect(shouldSkipRemainingPayments(0.02)).toBe(false);
  });
});
