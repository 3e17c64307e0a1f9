import { describe, expect, it } from 'vitest';
import {
  type DraftInvoiceRow,
  DEFAULT_DRAFT_SORT,
  applyProcessedRows,
  buildCreateRequest,
  buildUpdateItems,
  canProcessNewInvoice,
  createDraftInvoiceRow,
  createNewInvoiceForm,
  draftInvoiceCreateRequestSchema,
  draftInvoiceCreateResponseSchema,
  draftInvoiceSchema,
  draftInvoiceUpdateRequestSchema,
  draftInvoiceUpdateResponseSchema,
  needsZeroAmountConfirmation,
  organizationIdSchema,
  sortDraftInvoices,
  toggleDraftSort,
  validateDraftInvoiceRow,
  validateNewInvoice,
  validateProcessAll,
} from './add-invoices';

function makeRow(overrides: Partial<DraftInvoiceRow> = {}): DraftInvoiceRow {
  return {
    ...createDraftInvoiceRow(
      draftInvoiceSchema.parse({
        id: 'd1',
        invoiceNumber: 'INV-1',
        contactName: 'Cash Sales',
        date: '2025-11-01',
        totalAmount: 100,
      }),
    ),
    ...overrides,
  };
}

describe('draft invoice DTO', () => {
  it('fills currency and pending cash', () => {
    const row = makeRow();
    expect(row).toMatchObject({
      currency: 'GBP',
      pendingCashAmount: 0,
      cashAmount: '',
      approve: false,
      processing: false,
    });
  });

  it('rejects bad money', () => {
    expect(
      draftInvoiceSchema.safeParse({
        id: 'x',
        invoiceNumber: '',
        contactName: '',
        date: '2025-01-01',
        totalAmount: 1.001,
      }).success,
    ).toBe(false);
  });
});

describe('update request (001 §7)', () => {
  it('accepts {invoices:[{id, cashAmount, approve}], organizationId}', () => {
    const body = { invoices: [{ id: 'a', cashAmount: 12.5, approve: true }], organizationId: 3 };
    expect(draftInvoiceUpdateRequestSchema.parse(body)).toEqual(body);
    expect(
      draftInvoiceUpdateRequestSchema.parse({ invoices: [{ id: 'a', cashAmount: 0, approve: false }] }),
    ).toBeTruthy();
    expect(
      draftInvoiceUpdateRequestSchema.parse({ ...body, organizationId: 'org-uuid' }).organizationId,
    ).toBe('org-uuid');
  });

  it('refuses bad bodies', () => {
    const item = { id: 'a', cashAmount: 1, approve: true };
    expect(draftInvoiceUpdateRequestSchema.safeParse({ invoices: [] }).success).toBe(false);
    expect(
      draftInvoiceUpdateRequestSchema.safeParse({ invoices: [{ ...item, cashAmount: -1 }] }).success,
    ).toBe(false);
    expect(
      draftInvoiceUpdateRequestSchema.safeParse({ invoices: [{ ...item, cashAmount: 1.234 }] }).success,
    ).toBe(false);
    expect(
      draftInvoiceUpdateRequestSchema.safeParse({ invoices: [{ ...item, cashAmount: '1' }] }).success,
    ).toBe(false);
    expect(draftInvoiceUpdateRequestSchema.safeParse({ invoices: [item, item] }).success).toBe(false);
    expect(draftInvoiceUpdateRequestSchema.safeParse({ invoices: [item], extra: 1 }).success).toBe(false);
  });

  it('says "Invalid organization ID" for empty ids', () => {
    for (const bad of ['', '   ', 0, -1, 1.5, null]) {
      const result = organizationIdSchema.safeParse(bad);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe('Invalid organization ID');
    }
  });

  it('answers processed with failures listed', () => {
    expect(draftInvoiceUpdateResponseSchema.parse({ processed: 2 })).toEqual({ processed: 2, failed: [] });
  });
});

describe('create request (001 §7)', () => {
  it('accepts {date, totalAmount, cashAmount, approve} and answers {invoiceNumber}', () => {
    const body = { date: '2025-11-20', totalAmount: 100, cashAmount: 40, approve: true };
    expect(draftInvoiceCreateRequestSchema.parse(body)).toEqual(body);
    expect(
      draftInvoiceCreateRequestSchema.parse({ date: '2025-11-20', totalAmount: 100, approve: false })
        .cashAmount,
    ).toBe(0);
    expect(draftInvoiceCreateResponseSchema.parse({ invoiceNumber: 'INV-0042' })).toEqual({
      invoiceNumber: 'INV-0042',
    });
  });

  it('refuses zero totals, 3 decimals and cash above the total', () => {
    const body = { date: '2025-11-20', totalAmount: 100, cashAmount: 40, approve: true };
    expect(draftInvoiceCreateRequestSchema.safeParse({ ...body, totalAmount: 0 }).success).toBe(false);
    expect(draftInvoiceCreateRequestSchema.safeParse({ ...body, totalAmount: 10.005 }).success).toBe(false);
    expect(draftInvoiceCreateRequestSchema.safeParse({ ...body, cashAmount: 100.01 }).success).toBe(false);
    expect(draftInvoiceCreateRequestSchema.safeParse({ ...body, cashAmount: 100 }).success).toBe(true);
    expect(draftInvoiceCreateRequestSchema.safeParse({ ...body, date: '20/11/2025' }).success).toBe(false);
  });
});

describe('new invoice validation (001 §5)', () => {
  it('checks the date first, then the total', () => {
    const dateRequired = { title: 'Date required', description: 'Please enter a date for the invoice' };
    const amountRequired = {
      title: 'Amount required',
      description: 'Please enter a valid amount greater than 0',
    };
    expect(validateNewInvoice({ date: '', totalAmount: '' })).toEqual(dateRequired);
    expect(validateNewInvoice({ date: '2025-02-30', totalAmount: '5' })).toEqual(dateRequired);
    expect(validateNewInvoice({ date: '2025-11-20', totalAmount: '' })).toEqual(amountRequired);
    expect(validateNewInvoice({ date: '2025-11-20', totalAmount: '0' })).toEqual(amountRequired);
    expect(validateNewInvoice({ date: '2025-11-20', totalAmount: '-3' })).toEqual(amountRequired);
    expect(validateNewInvoice({ date: '2025-11-20', totalAmount: '1.005' })).toEqual(amountRequired);
    expect(validateNewInvoice({ date: '2025-11-20', totalAmount: '0.01' })).toBeNull();
  });

  it('disables Process without defaults, date or positive total', () => {
    const ok = { defaultContactId: 'c', defaultSalesAccountId: 's', date: '2025-11-20', totalAmount: '10' };
    expect(canProcessNewInvoice(ok)).toBe(true);
    expect(canProcessNewInvoice({ ...ok, defaultContactId: '' })).toBe(false);
    expect(canProcessNewInvoice({ ...ok, defaultSalesAccountId: null })).toBe(false);
    expect(canProcessNewInvoice({ ...ok, date: '' })).toBe(false);
    expect(canProcessNewInvoice({ ...ok, totalAmount: '0' })).toBe(false);
  });

  it('builds the request and resets the form', () => {
    expect(
      buildCreateRequest({ date: '2025-11-20', totalAmount: '120.50', cashAmount: '', approve: true }),
    ).toEqual({
      date: '2025-11-20',
      totalAmount: 120.5,
      cashAmount: 0,
      approve: true,
    });
    expect(buildCreateRequest({ date: '', totalAmount: '1', cashAmount: '', approve: false })).toBeNull();
    expect(createNewInvoiceForm('2025-11-20')).toEqual({
      date: '2025-11-20',
      totalAmount: '',
      cashAmount: '',
      approve: false,
    });
  });
});

describe('processing rows (001 §4, §5)', () => {
  it('needs cash above 0 or approve for one row', () => {
    expect(validateDraftInvoiceRow({ cashAmount: '', approve: false })).toEqual({
      title: 'No changes to save',
      description: 'Enter a cash amount or approve the invoice before saving',
    });
    expect(validateDraftInvoiceRow({ cashAmount: '0.00', approve: false })?.title).toBe('No changes to save');
    expect(validateDraftInvoiceRow({ cashAmount: '0.01', approve: false })).toBeNull();
    expect(validateDraftInvoiceRow({ cashAmount: '', approve: true })).toBeNull();
  });

  it('needs at least one changed row for Process All', () => {
    expect(
      validateProcessAll([
        { cashAmount: '', approve: false },
        { cashAmount: '0', approve: false },
      ]),
    ).toEqual({
      title: 'No changes to save',
      description: 'Enter cash amounts or approve invoices before saving',
    });
    expect(validateProcessAll([])).not.toBeNull();
    expect(
      validateProcessAll([
        { cashAmount: '', approve: false },
        { cashAmount: '3', approve: false },
      ]),
    ).toBeNull();
  });

  it('sends only changed rows, cash as numbers', () => {
    const rows = [
      makeRow({ id: 'a', cashAmount: '10.10', approve: false }),
      makeRow({ id: 'b', cashAmount: '', approve: false }),
      makeRow({ id: 'c', cashAmount: '', approve: true, pendingCashAmount: 5 }),
    ];
    // Each names the pending cash it was based on, so a change made meanwhile is refused, not overwritten.
    expect(buildUpdateItems(rows)).toEqual([
      { id: 'a', cashAmount: 10.1, approve: false, pendingCashSeen: 0 },
      { id: 'c', cashAmount: 0, approve: true, pendingCashSeen: 5 },
    ]);
  });

  it('removes approved rows and clears cash on the others', () => {
    const rows = [
      makeRow({ id: 'a', cashAmount: '10', approve: false, processing: true }),
      makeRow({ id: 'b', cashAmount: '5', approve: true }),
      makeRow({ id: 'c', cashAmount: '7', approve: true }),
    ];
    const after = applyProcessedRows(rows, ['a', 'b']);
    expect(after.map((r) => [r.id, r.cashAmount, r.processing])).toEqual([
      ['a', '', false],
      ['c', '7', false],
    ]);
  });

  it('asks for confirmation when approving with zero or empty cash', () => {
    expect(needsZeroAmountConfirmation('')).toBe(true);
    expect(needsZeroAmountConfirmation('0.00')).toBe(true);
    expect(needsZeroAmountConfirmation('0.01')).toBe(false);
  });
});

describe('sorting (001 §2)', () => {
  const rows = [
    makeRow({ id: 'a', invoiceNumber: 'INV-10', contactName: 'beta', date: '2025-11-02', totalAmount: 5 }),
    makeRow({ id: 'b', invoiceNumber: 'INV-9', contactName: 'Alpha', date: '2025-11-03', totalAmount: 50 }),
    makeRow({ id: 'c', invoiceNumber: 'INV-11', contactName: 'Gamma', date: '2025-11-01', totalAmount: 0.5 }),
  ];
  const ids = (list: DraftInvoiceRow[]) => list.map((r) => r.id);

  it('defaults to date descending', () => {
    expect(DEFAULT_DRAFT_SORT).toEqual({ column: 'date', direction: 'desc' });
    expect(ids(sortDraftInvoices(rows))).toEqual(['b', 'a', 'c']);
  });

  it('sorts each column and toggles direction', () => {
    expect(ids(sortDraftInvoices(rows, { column: 'invoiceNumber', direction: 'asc' }))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortDraftInvoices(rows, { column: 'contactName', direction: 'asc' }))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortDraftInvoices(rows, { column: 'totalAmount', direction: 'desc' }))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(toggleDraftSort(DEFAULT_DRAFT_SORT, 'date')).toEqual({ column: 'date', direction: 'asc' });
    expect(toggleDraftSort({ column: 'date', direction: 'asc' }, 'date')).toEqual({
      column: 'date',
      direction: 'desc',
    });
    expect(toggleDraftSort(DEFAULT_DRAFT_SORT, 'totalAmount')).toEqual({
      column: 'totalAmount',
      direction: 'asc',
    });
  });
});
