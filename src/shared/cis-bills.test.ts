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
  describeCisRate,
  NO_MATERIALS_ACCOUNT_MESSAGE,
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

/** A subcontractor at 20 % who charges no VAT: the spec's case. */
const CIS_20_NO_VAT = { cisRate: 20, vatTreatment: 'none', vatPercent: 0 } as const;

describe('local bills', () => {
  it('computes 20 % and 80 % on pence', () => {
    const bill = createLocalBill({
      id: 'l1',
      contactId: 'c1',
      contactName: 'Zed Plastering',
      date: '2025-04-06',
      reference: getDefaultBillReference('2025-04-06'),
      labourPence: toPence('999999.99'),
      accountCode: '320',
      ...CIS_20_NO_VAT,
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
      // 20 % of 99,999,999p is 19,999,999.8p: rounded down (issue 42).
      cisDeduction: 199999.99,
      amountDue: 800000,
      accountCode: '320',
      isLocal: true,
      materials: 0,
      materialsAccountCode: null,
      vatAmount: 0,
      vatTreatment: 'none',
      cisRate: 20,
      withoutCisDeduction: false,
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
          labourPence: grossPence,
          accountCode: 'a',
          ...CIS_20_NO_VAT,
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
      cisRate: 20,
      vatAmount: 0,
      materialsAmount: 0,
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
    labourPence: 12345,
    accountCode: '320',
    ...CIS_20_NO_VAT,
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
    labourPence: 1,
    accountCode: '321',
    ...CIS_20_NO_VAT,
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
      const local = createLocalBill({ ...bill, ...CIS_20_NO_VAT, labourPence: toPence(pounds) });
      return [
        local.total,
        local.cisDeduction,
        local.amountDue,
        buildCreateBillRequest(local, true).lineItems[0]?.unitAmount,
      ];
    };
    expect(split('0.01')).toEqual([0.01, 0, 0.01, 0.01]);
    expect(split('0.05')).toEqual([0.05, 0.01, 0.04, 0.05]);
    expect(split('999999.99')).toEqual([999999.99, 199999.99, 800000, 999999.99]);
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

describe('a bill at the subcontractor’s own rate, VAT and materials (issue 42)', () => {
  const base = {
    id: 'l1',
    contactId: 'c1',
    contactName: 'Hughes Groundworks Ltd',
    date: '2026-11-20',
    reference: '3427',
    accountCode: '321',
  };

  it('deducts on the labour only, adds VAT as the subcontractor charges it, and sends materials on their own line', () => {
    const bill = createLocalBill({
      ...base,
      labourPence: 100_000,
      materialsPence: 40_000,
      materialsAccountCode: '322',
      cisRate: 20,
      vatTreatment: 'standard',
      vatPercent: 20,
    });
    expect(bill).toMatchObject({
      amount: 1000,
      materials: 400,
      vatAmount: 280,
      total: 1680,
      cisDeduction: 200,
      amountDue: 1480,
    });
    expect(buildCreateBillRequest(bill, true).lineItems).toEqual([
      {
        description: 'Subcontractor services - Hughes Groundworks Ltd',
        quantity: 1,
        unitAmount: 1000,
        accountCode: '321',
      },
      { description: 'Materials - Hughes Groundworks Ltd', quantity: 1, unitAmount: 400, accountCode: '322' },
    ]);
  });

  it('puts no VAT on the total under the reverse charge, and none for a subcontractor who charges none', () => {
    const drc = createLocalBill({
      ...base,
      labourPence: 100_000,
      cisRate: 20,
      vatTreatment: 'reverse-charge',
      vatPercent: 20,
    });
    expect(drc).toMatchObject({ vatAmount: 0, total: 1000, cisDeduction: 200, amountDue: 800 });
    const none = createLocalBill({
      ...base,
      labourPence: 50_000,
      cisRate: 30,
      vatTreatment: 'none',
      vatPercent: 0,
    });
    expect(none).toMatchObject({ vatAmount: 0, total: 500, cisDeduction: 150, amountDue: 350 });
  });

  it('sends the confirmation for a contact not marked CIS, and deducts nothing from them', () => {
    const bill = createLocalBill({
      ...base,
      labourPence: 10_000,
      cisRate: null,
      vatTreatment: 'none',
      vatPercent: 0,
      withoutCisDeduction: true,
    });
    expect(bill).toMatchObject({ cisDeduction: 0, amountDue: 100 });
    expect(buildCreateBillRequest(bill, true)).toMatchObject({ withoutCisDeduction: true });
    expect(createBillRequestSchema.parse(buildCreateBillRequest(bill, true)).withoutCisDeduction).toBe(true);
  });

  it('says what a row at another rate is: 30 % not verified, 0 % gross payment status', () => {
    expect(describeCisRate(20)).toBeNull();
    expect(describeCisRate(30)).toBe('30 % — not verified');
    expect(describeCisRate(0)).toBe('0 % — gross payment status');
    expect(describeCisRate(null)).toBe('Not CIS — no deduction');
  });

  it('converts gross and net at the row’s rate, with the spec’s texts at 20 %', () => {
    expect(convertCisAmount('500', 'to-net', 30)).toEqual({
      amount: '350.00',
      title: 'Converted to net (70%)',
      description: 'Changed £500.00 to £350.00',
    });
    expect(convertCisAmount('350', 'to-gross', 30)?.amount).toBe('500.00');
    expect(convertCisAmount('100', 'to-net', 0)?.amount).toBe('100.00');
    expect(convertCisAmount('100', 'to-net')?.title).toBe('Converted to net (80%)');
  });

  it('checks the materials amount after the spec’s checks', () => {
    const entry = { contactId: 'c1', amount: '100', accountCode: '321', contacts: [{ id: 'c1' }] };
    expect(validateBillEntry({ ...entry, materials: '' })).toBeNull();
    expect(validateBillEntry({ ...entry, materials: '0' })).toBeNull();
    expect(validateBillEntry({ ...entry, materials: '-5', materialsAccountCode: '322' })).toEqual({
      title: 'Invalid amount',
      description: 'Please enter a valid materials amount (0 or more)',
    });
    expect(
      validateBillEntry({ ...entry, materials: '1.234', materialsAccountCode: '322' })?.description,
    ).toMatch(/two decimal places/);
    expect(validateBillEntry({ ...entry, materials: '50' })).toEqual({
      title: 'Missing information',
      description: NO_MATERIALS_ACCOUNT_MESSAGE,
    });
    expect(validateBillEntry({ ...entry, materials: '50', materialsAccountCode: '322' })).toBeNull();
    // The spec's order first: a missing subcontractor is still the first thing said.
    expect(validateBillEntry({ ...entry, contactId: '', materials: '-1' })?.description).toBe(
      'Please select a subcontractor',
    );
  });
});
