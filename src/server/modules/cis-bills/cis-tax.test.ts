import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CisContact, DraftBill } from '../../../shared/cis-bills';
import { NO_DEDUCTION_ACCOUNT_MESSAGE } from '../../../shared/cis-bills';
import type { InvoiceRec, OrgRec } from '../../../sandbox/state';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

/**
 * Issue 42, the bills side: each subcontractor's own rate, the deduction on labour only (excluding VAT and
 * materials), VAT as the subcontractor charges it, and the deduction booked as a line of its own so the bill
 * closes when the subcontractor is paid the net. Figures worked out by hand against CISR13070 / COG909250.
 */
describe('CIS tax truth on bills (issue 42)', () => {
  let t: XeroTestApp;
  let call: Awaited<ReturnType<typeof createConnectedUser>>['call'];
  let cookie = '';
  let builders: OrgRec;
  let accountId321 = '';
  const ids: Record<string, string> = {};
  const today = new Date().toISOString().slice(0, 10);

  const settings = (overrides: Record<string, unknown> = {}) =>
    call('PUT', '/api/xero/cis/settings', {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: ['322'],
      deductionAccountCode: '814',
      reverseCharge: false,
      ...overrides,
    });

  function bill(name: string, labour: number, extra: { materials?: number; [k: string]: unknown } = {}) {
    const { materials, ...rest } = extra;
    return {
      contactId: ids[name] ?? '',
      date: today,
      reference: '0126',
      lineItems: [
        { description: 'Labour', quantity: 1, unitAmount: labour, accountCode: '321' },
        ...(materials
          ? [{ description: 'Materials', quantity: 1, unitAmount: materials, accountCode: '322' }]
          : []),
      ],
      status: 'DRAFT',
      ...rest,
    };
  }

  async function create(body: unknown): Promise<{ invoice: InvoiceRec; draft: DraftBill }> {
    const res = await call('POST', '/api/xero/create-bill', body);
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json() as { invoiceID: string }).invoiceID;
    const invoice = builders.invoices.find((i) => i.InvoiceID === id);
    if (!invoice) throw new Error('bill not in Xero');
    const drafts = (await call('GET', '/api/xero/draft-bills')).json() as DraftBill[];
    const draft = drafts.find((d) => d.invoiceID === id);
    if (!draft) throw new Error('bill not among the drafts');
    return { invoice, draft };
  }

  /** Approve as the screen does: with the saved default bill account (Subcontractors, 321) in the header. */
  const approve = (id: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/xero/approve-bill/${id}`,
      headers: { cookie, origin: TEST_ORIGIN, 'x-default-bill-account-id': accountId321 },
    });

  const linesOf = (invoice: InvoiceRec) =>
    invoice.lines.map((l) => [l.AccountCode, l.TaxType, l.lineAmount, l.taxAmount, l.Description]);

  beforeAll(async () => {
    t = await createXeroTestApp({
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    const owner = await createConnectedUser(t, 'owner', { tenants: ['Demo Builders Ltd'] });
    call = owner.call;
    cookie = owner.cookie;
    const organizationId = owner.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, organizationId);
    const found = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!found) throw new Error('no Demo Builders');
    builders = found;
    for (const c of builders.contacts) ids[c.Name] = c.ContactID;
    accountId321 = builders.accounts.find((a) => a.Code === '321')?.AccountID ?? '';
    expect((await call('POST', '/api/xero/set-active-organization', { organizationId })).statusCode).toBe(
      200,
    );
    expect((await settings()).statusCode).toBe(200);
    // The screen checks the subcontractors it shows; so does this.
    const listed = (await call('GET', '/api/xero/cis-contacts')).json() as CisContact[];
    const checked = await call('POST', '/api/xero/cis-contacts/check', {
      contactIds: listed.map((c) => c.id),
    });
    expect(checked.statusCode, checked.body).toBe(200);
  });
  afterAll(() => t?.close());

  it("gives each subcontractor Xero's own rate and VAT: 20, 30, 0, or null when Xero marks them not CIS", async () => {
    const contacts = (await call('GET', '/api/xero/cis-contacts')).json() as CisContact[];
    const byName = Object.fromEntries(
      contacts.map((c) => [c.name, [c.cisRate, c.vatTreatment, c.vatPercent, c.hasValidUTR]]),
    );
    expect(byName).toMatchObject({
      'Hughes Groundworks Ltd': [20, 'standard', 20, true],
      'A. Patel Plastering': [20, 'none', 0, true],
      'Stone & Sons Brickwork': [30, 'none', 0, false],
      'R. Singh Tiling': [30, 'none', 0, false],
      'Northside Electrical Ltd': [0, 'standard', 20, true],
      "M. O'Connor Scaffolding": [null, 'none', 0, false],
      'T. Evans Plumbing & Heating': [null, 'standard', 20, false],
    });
  });

  it('deducts 20 % of the labour alone from a VAT-registered subcontractor, materials on their own line, and the bill closes when the net is paid', async () => {
    const { invoice, draft } = await create(bill('Hughes Groundworks Ltd', 1000, { materials: 400 }));
    // £1,000 labour + £400 materials, each with 20 % VAT; the deduction is 20 % of the £1,000 only.
    expect(invoice.LineAmountTypes).toBe('Exclusive');
    expect(linesOf(invoice)).toEqual([
      ['321', 'INPUT2', 100_000, 20_000, 'Labour'],
      ['322', 'INPUT2', 40_000, 8_000, 'Materials'],
      ['814', 'NONE', -20_000, 0, 'CIS deduction at 20%'],
    ]);
    expect(invoice.total).toBe(148_000);
    expect(draft).toMatchObject({
      total: 1680,
      vatAmount: 280,
      materialsAmount: 400,
      cisRate: 20,
      cisDeduction: 200,
      amountDue: 1480,
      cisSource: 'ledgerlink',
      vatTreatment: 'standard',
    });
    // Approved and paid the net, Xero holds it Paid: nothing left owing to Hughes.
    const approved = await approve(invoice.InvoiceID);
    expect(approved.statusCode, approved.body).toBe(200);
    // The deduction was already right: approving changed no line.
    expect(linesOf(invoice)).toHaveLength(3);
    const paid = t.sandbox.payInvoice(invoice.InvoiceID, { amount: 1480 });
    expect(paid).toMatchObject({ status: 'PAID', amountDue: 0 });
  });

  it("takes R. Singh's 30 %: £150 from £500, no VAT where none is charged", async () => {
    const { invoice, draft } = await create(bill('R. Singh Tiling', 500));
    expect(invoice.LineAmountTypes).toBe('NoTax');
    expect(linesOf(invoice)).toEqual([
      ['321', 'NONE', 50_000, 0, 'Labour'],
      ['814', 'NONE', -15_000, 0, 'CIS deduction at 30%'],
    ]);
    expect(draft).toMatchObject({ total: 500, vatAmount: 0, cisRate: 30, cisDeduction: 150, amountDue: 350 });
    // The "no deduction" confirmation is for contacts Xero does not mark as CIS: a CIS subcontractor is
    // deducted from all the same.
    const confirmed = await create(bill('R. Singh Tiling', 500, { withoutCisDeduction: true }));
    expect(confirmed.draft).toMatchObject({ cisDeduction: 150, amountDue: 350 });
  });

  it('deducts nothing at 0 % (gross payment status): no deduction line, the VAT they charge', async () => {
    const { invoice, draft } = await create(bill('Northside Electrical Ltd', 100));
    expect(linesOf(invoice)).toEqual([['321', 'INPUT2', 10_000, 2_000, 'Labour']]);
    expect(draft).toMatchObject({ total: 120, vatAmount: 20, cisRate: 0, cisDeduction: 0, amountDue: 120 });
  });

  it('never deducts silently from a contact Xero does not mark as CIS: refused until the person confirms, then no deduction', async () => {
    const before = builders.invoices.length;
    const refused = await call('POST', '/api/xero/create-bill', bill("M. O'Connor Scaffolding", 100));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/is not a CIS subcontractor in Xero/);
    expect(builders.invoices.length).toBe(before);
    const { invoice, draft } = await create(
      bill("M. O'Connor Scaffolding", 100, { withoutCisDeduction: true }),
    );
    expect(linesOf(invoice)).toEqual([['321', 'NONE', 10_000, 0, 'Labour']]);
    expect(draft).toMatchObject({ total: 100, cisRate: null, cisDeduction: 0, amountDue: 100 });
  });

  it('applies the domestic reverse charge to VAT-registered subcontractors when the firm switches it on', async () => {
    expect((await settings({ reverseCharge: true })).statusCode).toBe(200);
    try {
      const contacts = (await call('GET', '/api/xero/cis-contacts')).json() as CisContact[];
      expect(contacts.find((c) => c.name === 'Hughes Groundworks Ltd')).toMatchObject({
        vatTreatment: 'reverse-charge',
        vatPercent: 20,
      });
      const { invoice, draft } = await create(bill('Hughes Groundworks Ltd', 1000));
      // DRCHARGE20: the VAT is the contractor's to account for, so the bill's total carries none.
      expect(linesOf(invoice)).toEqual([
        ['321', 'DRCHARGE20', 100_000, 0, 'Labour'],
        ['814', 'NONE', -20_000, 0, 'CIS deduction at 20%'],
      ]);
      expect(draft).toMatchObject({
        total: 1000,
        vatAmount: 0,
        cisDeduction: 200,
        amountDue: 800,
        vatTreatment: 'reverse-charge',
      });
      // A subcontractor who charges no VAT is not under the reverse charge.
      const patel = await create(bill('A. Patel Plastering', 300));
      expect(patel.invoice.LineAmountTypes).toBe('NoTax');
    } finally {
      await settings({ reverseCharge: false });
    }
  });

  it('refuses a bill with a deduction until a deductions account is chosen, and says where', async () => {
    expect((await settings({ deductionAccountCode: null })).statusCode).toBe(200);
    try {
      const before = builders.invoices.length;
      const refused = await call('POST', '/api/xero/create-bill', bill('A. Patel Plastering', 100));
      expect(refused.statusCode).toBe(422);
      expect(refused.json().message).toBe(NO_DEDUCTION_ACCOUNT_MESSAGE);
      expect(builders.invoices.length).toBe(before);
      const setup = (await call('GET', '/api/xero/cis-bill-setup')).json();
      expect(setup).toMatchObject({ deductionAccount: null, materialsAccounts: [{ code: '322' }] });
      // Nothing to deduct at 0 %: no account needed.
      await create(bill('Bright Spark Electrics', 50));
    } finally {
      await settings();
    }
    expect((await call('GET', '/api/xero/cis-bill-setup')).json()).toEqual({
      deductionAccount: { code: '814', name: 'CIS Deductions Payable' },
      materialsAccounts: [{ code: '322', name: 'Materials' }],
      reverseCharge: false,
    });
  });

  it("refuses Xero's CIS system accounts on a line in Xero's words, and the deductions account as a line", async () => {
    const before = builders.invoices.length;
    for (const code of ['327', '328', '815']) {
      const res = await call('POST', '/api/xero/create-bill', {
        ...bill('A. Patel Plastering', 10),
        lineItems: [{ description: 'x', quantity: 1, unitAmount: 10, accountCode: code }],
      });
      expect(res.statusCode, code).toBe(422);
      expect(res.json().message).toContain(
        `This organisation has Construction Industry Scheme enabled. The account code ${code} cannot be used in line items via the API`,
      );
    }
    const own = await call('POST', '/api/xero/create-bill', {
      ...bill('A. Patel Plastering', 10),
      lineItems: [{ description: 'x', quantity: 1, unitAmount: 10, accountCode: '814' }],
    });
    expect(own.statusCode).toBe(400);
    expect(own.json().message).toMatch(/Ledgerlink adds the deduction line itself/);
    expect(builders.invoices.length).toBe(before);
    // The deductions account is offered among the liability accounts; Xero's CIS Liability never.
    const liability = (await call('GET', '/api/xero/cis-deduction-accounts')).json() as Array<{
      code: string;
    }>;
    expect(liability.map((a) => a.code)).toContain('814');
    expect(liability.map((a) => a.code)).not.toContain('815');
    expect(liability.map((a) => a.code)).not.toContain('800');
  });

  it('an amount edit keeps the materials and works the deduction out again on the new labour', async () => {
    const { invoice } = await create(bill('Hughes Groundworks Ltd', 1000, { materials: 400 }));
    const res = await call('PATCH', `/api/xero/update-bill/${invoice.InvoiceID}`, { amount: 2000 });
    expect(res.statusCode, res.body).toBe(200);
    // £2,000 with VAT: materials £480 with VAT stay; labour £1,520 with VAT is £1,266.67 + £253.33 VAT;
    // 20 % of £1,266.67 is £253.334, £253.33 deducted.
    expect(res.json()).toMatchObject({
      total: 2000,
      materialsAmount: 400,
      vatAmount: 333.33,
      cisDeduction: 253.33,
      amountDue: 1746.67,
    });
    expect(invoice.LineAmountTypes).toBe('Inclusive');
    expect(linesOf(invoice)).toEqual([
      ['321', 'INPUT2', 152_000, 25_333, 'Labour'],
      ['322', 'INPUT2', 48_000, 8_000, 'Materials'],
      ['814', 'NONE', -25_333, 0, 'CIS deduction at 20%'],
    ]);
    expect(invoice.total).toBe(174_667);
  });

  it("approving a draft entered in Xero without its deduction books it; a bill on Xero's own CIS is approved as it is", async () => {
    // A person keyed a plain bill for Stone & Sons (30 %) into Xero.
    const plain = t.sandbox.enterBill({
      contactId: ids['Stone & Sons Brickwork'] ?? '',
      lineAmountTypes: 'NoTax',
      status: 'DRAFT',
      lines: [{ description: 'Brickwork', unitAmount: 600, accountCode: '321' }],
    });
    const drafts = (await call('GET', '/api/xero/draft-bills?refresh=true')).json() as DraftBill[];
    expect(drafts.find((d) => d.invoiceID === plain.invoiceId)).toMatchObject({
      total: 600,
      cisRate: 30,
      cisDeduction: 180,
      amountDue: 420,
      cisSource: 'none',
    });
    const approved = await approve(plain.invoiceId);
    expect(approved.statusCode, approved.body).toBe(200);
    const stone = builders.invoices.find((i) => i.InvoiceID === plain.invoiceId);
    expect(stone?.Status).toBe('AUTHORISED');
    expect(stone && linesOf(stone)).toEqual([
      ['321', 'NONE', 60_000, 0, 'Brickwork'],
      ['814', 'NONE', -18_000, 0, 'CIS deduction at 30%'],
    ]);
    // What Xero shows as due is the net: paying it closes the bill.
    expect(t.sandbox.payInvoice(plain.invoiceId, { amount: 420 })).toMatchObject({ status: 'PAID' });

    // Entered with Xero's own CIS (CIS Labour Expense, CIS Materials): counted as Xero says, approved as it is.
    const xeroCis = t.sandbox.enterBill({
      contactId: ids['A. Patel Plastering'] ?? '',
      lineAmountTypes: 'NoTax',
      status: 'DRAFT',
      lines: [
        { description: 'Plastering', unitAmount: 700, accountCode: '327' },
        { description: 'Plaster', unitAmount: 90, accountCode: '328' },
      ],
    });
    expect(xeroCis.cisDeduction).toBe(14_000);
    const listed = (await call('GET', '/api/xero/draft-bills?refresh=true')).json() as DraftBill[];
    expect(listed.find((d) => d.invoiceID === xeroCis.invoiceId)).toMatchObject({
      total: 790,
      materialsAmount: 90,
      cisRate: 20,
      cisDeduction: 140,
      amountDue: 650,
      cisSource: 'xero',
    });
    const linesBefore = JSON.stringify(
      builders.invoices.find((i) => i.InvoiceID === xeroCis.invoiceId)?.lines,
    );
    const approvedXero = await approve(xeroCis.invoiceId);
    expect(approvedXero.statusCode, approvedXero.body).toBe(200);
    const after = builders.invoices.find((i) => i.InvoiceID === xeroCis.invoiceId);
    expect(after?.Status).toBe('AUTHORISED');
    expect(JSON.stringify(after?.lines)).toBe(linesBefore);
  });
});
