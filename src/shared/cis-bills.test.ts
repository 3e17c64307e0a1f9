import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BILL_ACCOUNT_HEADER,
  buildCreateBillRequest,
  checkCanApproveBill,
  checkCisContactsRequestSchema,
  cisContactSchema,
  convertCisAmount,
  createBillRequestSchema,
  createBillsRequestSchema,
  createLocalBill,
  deriveHasValidUtr,
  draftBillSchema,
  findCisSubcontractors,
  getBillCreateStatus,
  getCisPageState,
  getDefaultBillReference,
  isCisCheckCurrent,
  isCisChecked,
  localBillSchema,
  MAX_CIS_CHECK_IDS,
  toBillFormRow,
  updateBillRequestSchema,
  validateBillAmountEdit,
  validateBillEntry,
  validateBillSubmission,
} from './cis-bills';
import { findPence, toPence } from './money';

const contacts = [
  cisContactSchema.parse({
    id: 'c1',
    name: 'Zed Plastering',
    isContractor: false,
    isSupplier: true,
    hasValidUTR: true,
  }),
  cisContactSchema.parse({
    id: 'c2',
    name: 'alpha Roofing',
    isContractor: true,
    isSupplier: false,
    hasValidUTR: false,
  }),
  cisContactSchema.parse({
    id: 'c3',
    name: 'Customer Only',
    isContractor: false,
    isSupplier: false,
    hasValidUTR: true,
  }),
  cisContactSchema.parse({
    id: 'c4',
    name: 'Bravo Electrical',
    isContractor: true,
    isSupplier: true,
    hasValidUTR: true,
  }),
];

describe('local bills', () => {
  it('computes 20 % and 80 % on pence', () => {
    const bill = createLocalBill({
      id: 'l1',
      contactId: 'c1',
      contactName: 'Zed Plastering',
      date: '2025-04-06',
      reference: getDefaultBillReference('2025-04-06'),
      grossPence: toPence('999999.99'),
      accountCode: '320',
    });
    expect(bill).toEqual({
      id: 'l1',
      contactId: 'c1',
      contactName: 'Zed Plastering',
      date: '2025-04-06',
      reference: '0126',
      status: 'DRAFT',
      amount: 999999.99,
      total: 999999.99,
      cisDeduction: 200000,
      amountDue: 799999.99,
      accountCode: '320',
      isLocal: true,
    });
    expect(localBillSchema.parse(bill)).toEqual(bill);
  });

  it('keeps total = deduction + amount due on the wire', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99999999 }), (grossPence) => {
        const bill = createLocalBill({
          id: 'x',
          contactId: 'c',
          contactName: 'n',
          date: '2025-01-01',
          reference: 'r',
          grossPence,
          accountCode: 'a',
        });
        expect(toPence(bill.cisDeduction) + toPence(bill.amountDue)).toBe(toPence(bill.total));
      }),
    );
  });

  it('maps a server draft bill to a form row', () => {
    const draft = draftBillSchema.parse({
      invoiceID: 'b1',
      contactID: 'c1',
      contact: { name: 'Zed' },
      date: '2025-05-01',
      reference: '0426',
      status: 'DRAFT',
      total: 100,
      amountDue: 80,
      cisDeduction: 20,
      lineItems: [{ accountCode: '320' }],
    });
    expect(toBillFormRow(draft)).toMatchObject({
      id: 'b1',
      contactName: 'Zed',
      amount: 100,
      originalAmount: 100,
      accountCode: '320',
      isLocal: false,
    });
    expect(toBillFormRow({ ...draft, lineItems: [] }).accountCode).toBe('');
  });
});

describe('create request (001 §7)', () => {
  const bill = createLocalBill({
    id: 'l1',
    contactId: 'c1',
    contactName: 'Zed',
    date: '2025-04-06',
    reference: '0126',
    grossPence: 12345,
    accountCode: '320',
  });

  it('is DRAFT by default and AUTHORISED when drafts are off', () => {
    expect(getBillCreateStatus(true)).toBe('DRAFT');
    expect(getBillCreateStatus(false)).toBe('AUTHORISED');
    const request = buildCreateBillRequest(bill, false);
    expect(request).toEqual({
      contactId: 'c1',
      date: '2025-04-06',
      reference: '0126',
      lineItems: [
        { description: 'Subcontractor services - Zed', quantity: 1, unitAmount: 123.45, accountCode: '320' },
      ],
      status: 'AUTHORISED',
    });
    expect(createBillRequestSchema.parse(request)).toEqual(request);
  });

  it('refuses bad bodies', () => {
    const request = buildCreateBillRequest(bill, true);
    expect(createBillRequestSchema.safeParse({ ...request, status: 'PAID' }).success).toBe(false);
    expect(createBillRequestSchema.safeParse({ ...request, lineItems: [] }).success).toBe(false);
    expect(
      createBillRequestSchema.safeParse({
        ...request,
        lineItems: [{ ...request.lineItems[0], unitAmount: 1.001 }],
      }).success,
    ).toBe(false);
    expect(updateBillRequestSchema.safeParse({ amount: 10 }).success).toBe(true);
    expect(updateBillRequestSchema.safeParse({ amount: 0 }).success).toBe(false);
    expect(updateBillRequestSchema.safeParse({ amount: 10.999 }).success).toBe(false);
    expect(DEFAULT_BILL_ACCOUNT_HEADER).toBe('x-default-bill-account-id');
  });
});

describe('subcontractors', () => {
  it('derives hasValidUTR from CIS settings', () => {
    expect(deriveHasValidUtr({ cisEnabled: true, rate: 20 })).toBe(true);
    expect(deriveHasValidUtr({ cisEnabled: true, rate: 0 })).toBe(true);
    expect(deriveHasValidUtr({ cisEnabled: true, rate: 30 })).toBe(false);
    expect(deriveHasValidUtr({ cisEnabled: false, rate: 20 })).toBe(false);
    expect(deriveHasValidUtr(null)).toBe(false);
  });

  it('offers contractors or suppliers, searched and sorted by name', () => {
    expect(findCisSubcontractors(contacts).map((c) => c.id)).toEqual(['c2', 'c4', 'c1']);
    expect(findCisSubcontractors(contacts, 'RO').map((c) => c.id)).toEqual(['c2']);
    expect(findCisSubcontractors(contacts, 'nobody')).toEqual([]);
  });
});

describe('validation (001 §5)', () => {
  const ok = { contactId: 'c1', amount: '100', accountCode: '320', contacts };

  it('checks in the spec order with its texts', () => {
    expect(validateBillEntry({ ...ok, contactId: '', amount: '', accountCode: '' })).toEqual({
      title: 'Missing information',
      description: 'Please select a subcontractor',
    });
    expect(validateBillEntry({ ...ok, amount: '0', accountCode: '' })).toEqual({
      title: 'Invalid amount',
      description: 'Please enter a valid positive amount',
    });
    expect(validateBillEntry({ ...ok, amount: '-5' })?.title).toBe('Invalid amount');
    expect(validateBillEntry({ ...ok, amount: 'abc' })?.title).toBe('Invalid amount');
    expect(validateBillEntry({ ...ok, amount: '1.005' })?.title).toBe('Invalid amount');
    // Issue 17 item 15: too many decimals is said as such, not as "not a positive amount".
    expect(validateBillEntry({ ...ok, amount: '12.345' })?.description).toMatch(/at most two decimal places/);
    expect(validateBillAmountEdit('12.345')?.description).toMatch(/at most two decimal places/);
    expect(validateBillAmountEdit('-1')?.description).toBe('Please enter a positive number');
    expect(validateBillEntry({ ...ok, accountCode: '', contactId: 'nope' })?.description).toBe(
      'Please select an account code',
    );
    expect(validateBillEntry({ ...ok, contactId: 'nope' })?.description).toBe(
      'Selected subcontractor not found',
    );
    expect(validateBillEntry(ok)).toBeNull();
  });

  it('checks edited amounts and submission', () => {
    expect(validateBillAmountEdit('0')?.description).toBe('Please enter a positive number');
    expect(validateBillAmountEdit('')?.description).toBe('Please enter a positive number');
    expect(validateBillAmountEdit('12.50')).toBeNull();
    expect(validateBillSubmission([])).toEqual({
      title: 'No bills to create',
      description: 'Add at least one bill before submitting',
    });
    expect(validateBillSubmission([{}])).toBeNull();
  });
});

describe('gross/net convert (001 §2)', () => {
  it('converts with the spec notices', () => {
    expect(convertCisAmount('100', 'to-net')).toEqual({
      amount: '80.00',
      title: 'Converted to net (80%)',
      description: 'Changed £100.00 to £80.00',
    });
    expect(convertCisAmount('80', 'to-gross')).toEqual({
      amount: '100.00',
      title: 'Converted to gross (100%)',
      description: 'Changed £80.00 to £100.00',
    });
    expect(convertCisAmount('0.05', 'to-net')?.amount).toBe('0.04');
    expect(convertCisAmount('1234.56', 'to-gross')?.description).toBe('Changed £1,234.56 to £1,543.20');
    expect(convertCisAmount('abc', 'to-net')).toBeNull();
    expect(convertCisAmount('', 'to-gross')).toBeNull();
  });

  it('net → gross → net is stable', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 79999999 }), (netPence) => {
        const gross = convertCisAmount((netPence / 100).toFixed(2), 'to-gross');
        const back = convertCisAmount(gross!.amount, 'to-net');
        expect(findPence(back!.amount)).toBe(netPence);
      }),
    );
  });
});

describe('screen state (001 §2)', () => {
  it('orders session expired, not connected, disabled, main', () => {
    expect(getCisPageState({ connected: false, error: 'Not authenticated' })).toBe('session-expired');
    expect(getCisPageState({ connected: false, error: null, featureCisBills: true })).toBe('not-connected');
    expect(getCisPageState({ connected: false, error: 'Token has expired', featureCisBills: true })).toBe(
      'not-connected',
    );
    expect(
      getCisPageState({ connected: false, error: 'Token is about to expire', featureCisBills: true }),
    ).toBe('main');
    expect(getCisPageState({ connected: true, featureCisBills: false })).toBe('disabled');
    expect(getCisPageState({ connected: true, featureCisBills: true })).toBe('main');
  });
});

describe('approving (001 §8)', () => {
  it('needs a default bill account before approving', () => {
    expect(checkCanApproveBill('')).toEqual({
      title: 'Missing Default Account',
      description: 'Please set a default bill account in the settings page before approving bills.',
    });
    expect(checkCanApproveBill('acc')).toBeNull();
  });
});

describe('server-side checks of the create and update bodies', () => {
  const bill = createLocalBill({
    id: 'l1',
    contactId: 'c1',
    contactName: 'Zed',
    date: '2025-04-06',
    reference: '0126',
    grossPence: 1,
    accountCode: '321',
  });
  const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
    result.error?.issues[0]?.message;

  it('answer with the spec texts', () => {
    const request = buildCreateBillRequest(bill, true);
    expect(firstMessage(createBillRequestSchema.safeParse({ ...request, contactId: '' }))).toBe(
      'Please select a subcontractor',
    );
    expect(
      firstMessage(
        createBillRequestSchema.safeParse({
          ...request,
          lineItems: [{ ...request.lineItems[0], unitAmount: 0 }],
        }),
      ),
    ).toBe('Please enter a valid positive amount');
    expect(
      firstMessage(
        createBillRequestSchema.safeParse({
          ...request,
          lineItems: [{ ...request.lineItems[0], accountCode: ' ' }],
        }),
      ),
    ).toBe('Please select an account code');
    expect(firstMessage(updateBillRequestSchema.safeParse({ amount: -1 }))).toBe(
      'Please enter a positive number',
    );
    expect(firstMessage(createBillsRequestSchema.safeParse({ bills: [] }))).toBe(
      'Add at least one bill before submitting',
    );
  });

  it('a batch names each bill once', () => {
    const request = buildCreateBillRequest(bill, false);
    expect(
      createBillsRequestSchema.safeParse({
        bills: [
          { id: 'a', ...request },
          { id: 'b', ...request },
        ],
      }).success,
    ).toBe(true);
    expect(
      createBillsRequestSchema.safeParse({
        bills: [
          { id: 'a', ...request },
          { id: 'a', ...request },
        ],
      }).success,
    ).toBe(false);
  });

  it('splits the awkward amounts 0.01, 0.05 and 999999.99 as the bill is sent', () => {
    const split = (pounds: string) => {
      const local = createLocalBill({ ...bill, grossPence: toPence(pounds) });
      return [
        local.total,
        local.cisDeduction,
        local.amountDue,
        buildCreateBillRequest(local, true).lineItems[0]?.unitAmount,
      ];
    };
    expect(split('0.01')).toEqual([0.01, 0, 0.01, 0.01]);
    expect(split('0.05')).toEqual([0.05, 0.01, 0.04, 0.05]);
    expect(split('999999.99')).toEqual([999999.99, 200000, 799999.99, 999999.99]);
  });
});

describe('CIS settings kept per contact (issue 19)', () => {
  const at = '2026-03-02T10:00:00.000Z';
  it('holds while the contact has not changed in Xero since they were read', () => {
    expect(
      isCisCheckCurrent({
        cisCheckedAt: new Date(),
        cisCheckedUpdatedUtc: new Date(at),
        updatedUtc: new Date(at),
      }),
    ).toBe(true);
    // Dates compare as instants, whatever their form.
    expect(isCisCheckCurrent({ cisCheckedAt: at, cisCheckedUpdatedUtc: at, updatedUtc: new Date(at) })).toBe(
      true,
    );
    // Xero gave no UpdatedDateUTC either time.
    expect(isCisCheckCurrent({ cisCheckedAt: at, cisCheckedUpdatedUtc: null, updatedUtc: null })).toBe(true);
  });

  it('never read, or the contact changed since: unchecked', () => {
    expect(isCisCheckCurrent({ cisCheckedAt: null, cisCheckedUpdatedUtc: at, updatedUtc: at })).toBe(false);
    expect(
      isCisCheckCurrent({
        cisCheckedAt: at,
        cisCheckedUpdatedUtc: at,
        updatedUtc: '2026-03-02T10:00:01.000Z',
      }),
    ).toBe(false);
    expect(isCisCheckCurrent({ cisCheckedAt: at, cisCheckedUpdatedUtc: null, updatedUtc: at })).toBe(false);
  });

  it('a contact without cisChecked counts as checked (the spec shape); false means not yet known', () => {
    const base = { id: 'c', name: 'A', isContractor: true, isSupplier: true, hasValidUTR: false };
    expect(isCisChecked(cisContactSchema.parse(base))).toBe(true);
    expect(isCisChecked(cisContactSchema.parse({ ...base, cisChecked: false }))).toBe(false);
  });

  it('the check body: 1 to 50 Xero contact ids, each a GUID, nothing else', () => {
    const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    expect(checkCisContactsRequestSchema.safeParse({ contactIds: [id] }).success).toBe(true);
    const message = (body: unknown) =>
      checkCisContactsRequestSchema.safeParse(body).error?.issues[0]?.message ?? null;
    expect(message({ contactIds: [] })).toBe('Give at least one contact id to check');
    expect(message({ contactIds: Array.from({ length: MAX_CIS_CHECK_IDS + 1 }, () => id) })).toBe(
      'Check at most 50 contacts at a time',
    );
    expect(message({ contactIds: ['42'] })).toBe('Each contact id must be a Xero contact id (a GUID)');
    expect(message({ contactIds: id })).toBe('contactIds must be a list of Xero contact ids');
    expect(message({ contactIds: [id], more: true })).not.toBeNull();
  });
});
