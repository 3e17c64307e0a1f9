import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getDeductionsPaymentDueDate,
  getPeriodOf,
  getTaxMonth,
  shiftPeriod,
  UTR_MESSAGE,
  VERIFICATION_NUMBER_MESSAGE,
  type CisMonthsResponse,
  type CisReturn,
  type CisSettings,
} from '../../../shared/cis-returns';
import { addDays, getUkToday } from '../../../shared/dates';
import { auditLog, cisSubcontractorRefs, organizations, xeroInvoices } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { readPdfPageSizes, readPdfText } from '../../test/pdf-text';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The CIS month-end (issues 29 and 42) against the sandbox. Bills are entered as CIS Bills raises them (labour,
 * materials on a materials account, and the deduction as a line of its own on the deductions account, described
 * `CIS deduction at N%`) or as a person enters them with Xero's own CIS, and paid as a person pays them in Xero.
 */
describe('CIS month-end API (issues 29, 42)', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let bella: Awaited<ReturnType<typeof createConnectedUser>>;
  let stranger: Awaited<ReturnType<typeof createConnectedUser>>;
  let buildersId: number;
  let tenantId: string;
  const subs: Record<string, string> = {};
  const today = getUkToday();
  const current = getPeriodOf(today);
  const previous = shiftPeriod(current, 1);
  const NO_REFS = {
    contractorName: null,
    utr: null,
    employerReference: null,
    accountsOfficeReference: null,
  };

  function callAs(cookie: string) {
    return (method: Method, url: string, body?: unknown) =>
      t.app.inject({
        method,
        url,
        headers: { cookie, origin: TEST_ORIGIN },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
  }
  const asBella = () => callAs(bella.cookie);
  const asOwner = () => callAs(owner.cookie);

  /**
   * A bill as CIS Bills raises it: labour on 321, materials on 322, VAT at 20 % when the subcontractor charges it,
   * and the deduction (rate × labour, rounded down) on 814 as a line of its own; approved.
   */
  function raiseBill(
    name: string,
    o: {
      labour: number;
      materials?: number;
      vat?: boolean;
      rate: 0 | 20 | 30;
      date?: string;
      deduct?: boolean;
    },
  ) {
    const deduction = o.deduct === false ? 0 : Math.floor(o.labour * o.rate) / 100;
    const tax = o.vat ? 'INPUT2' : 'NONE';
    const lines = [{ description: 'Labour', unitAmount: o.labour, accountCode: '321', taxType: tax }];
    if (o.materials)
      lines.push({ description: 'Materials', unitAmount: o.materials, accountCode: '322', taxType: tax });
    if (deduction > 0)
      lines.push({
        description: `CIS deduction at ${o.rate}%`,
        unitAmount: -deduction,
        accountCode: '814',
        taxType: 'NONE',
      });
    return t.sandbox.enterBill({
      contactId: subs[name] ?? '',
      date: o.date ?? today,
      reference: `${name.slice(0, 3)}-${o.labour}`,
      lineAmountTypes: 'Exclusive',
      lines,
    });
  }

  async function readReturn(period: string, call = asBella()): Promise<CisReturn> {
    const res = await call('GET', `/api/xero/cis/returns?period=${period}&refresh=true`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CisReturn;
  }

  async function readMonths(call = asBella()): Promise<CisMonthsResponse> {
    const res = await call('GET', '/api/xero/cis/months?refresh=true');
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CisMonthsResponse;
  }

  async function saveSettings(call: ReturnType<typeof callAs>, body: Record<string, unknown>) {
    const res = await call('PUT', '/api/xero/cis/settings', {
      ...NO_REFS,
      materialsAccountCodes: ['322'],
      ...body,
    });
    return res;
  }

  beforeAll(async () => {
    t = await createXeroTestApp({
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    // The builder starts this suite with no bills at all, so every figure below is this suite's own.
    const builders = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!builders) throw new Error('seed changed');
    tenantId = builders.OrganisationID;
    const billIds = new Set(builders.invoices.filter((i) => i.Type === 'ACCPAY').map((i) => i.InvoiceID));
    builders.invoices = builders.invoices.filter((i) => !billIds.has(i.InvoiceID));
    builders.payments = builders.payments.filter((p) => !billIds.has(p.InvoiceID));
    builders.creditNotes = [];
    // The ordinary liability accounts a deduction may be booked to (CIS Bills' setting).
    for (const [code, name] of [
      ['814', 'CIS Deductions Payable'],
      ['816', 'Subcontractor Deductions'],
    ] as const)
      if (!builders.accounts.some((a) => a.Code === code))
        builders.accounts.push({
          AccountID: crypto.randomUUID(),
          Code: code,
          Name: name,
          Type: 'CURRLIAB',
          Status: 'ACTIVE',
          Class: 'LIABILITY',
          TaxType: 'NONE',
          EnablePaymentsToAccount: false,
          ShowInExpenseClaims: false,
          updatedMs: Date.now(),
        });
    for (const c of builders.contacts) subs[c.Name] = c.ContactID;

    owner = await createConnectedUser(t, 'owner');
    bella = await createConnectedUser(t, 'bella', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    stranger = await createConnectedUser(t, 'stranger', {
      email: 'stranger@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    buildersId = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    await enableFeatures(t, buildersId);
    await enableFeatures(t, stranger.orgs[0]?.organizationId ?? 0);
    for (const user of [owner, bella]) {
      const res = await callAs(user.cookie)('POST', '/api/xero/set-active-organization', {
        organizationId: buildersId,
      });
      expect(res.statusCode).toBe(200);
    }
    // Materials on 322, deductions on 814: set before anything is paid.
    const set = await saveSettings(asOwner(), { deductionAccountCode: '814' });
    expect(set.statusCode, set.body).toBe(200);
  });
  afterAll(() => t.close());

  it('counts each subcontractor at their own rate, on labour excluding VAT and materials, as withheld', async () => {
    expect((await readReturn(current)).nil).toBe(true);

    // Hughes (20 %, VAT-registered): £1,000 + £200 VAT, £200 deducted; paid the £1,000 due.
    const hughes = raiseBill('Hughes Groundworks Ltd', { labour: 1000, vat: true, rate: 20 });
    expect(hughes.amountDue).toBe(1000);
    t.sandbox.payInvoice(hughes.invoiceId, { amount: 1000, date: today });
    // Patel (20 %, no VAT): £500, £100 deducted; half of the £400 due paid.
    const patel = raiseBill('A. Patel Plastering', { labour: 500, rate: 20 });
    t.sandbox.payInvoice(patel.invoiceId, { amount: 200, date: today });
    // Stone (30 %), entered in Xero with Xero's own CIS: £600 labour, £150 materials; Xero deducts £180.
    const stone = t.sandbox.enterBill({
      contactId: subs['Stone & Sons Brickwork'] ?? '',
      date: today,
      reference: 'SS-77',
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Brickwork labour', unitAmount: 600, accountCode: '327' },
        { description: 'Bricks and mortar', unitAmount: 150, accountCode: '328' },
      ],
    });
    expect(stone.cisDeduction).toBe(18_000);
    t.sandbox.payInvoice(stone.invoiceId, { amount: 570, date: today });
    // Singh (30 %, not verified): £400 labour, £100 materials, £120 deducted.
    const singh = raiseBill('R. Singh Tiling', { labour: 400, materials: 100, rate: 30 });
    t.sandbox.payInvoice(singh.invoiceId, { amount: 380, date: today });
    // Northside (gross payment status, 0 %): nothing to deduct.
    const northside = raiseBill('Northside Electrical Ltd', { labour: 100, vat: true, rate: 0 });
    t.sandbox.payInvoice(northside.invoiceId, { amount: 120, date: today });
    // Murphy (20 %) paid in full with nothing deducted: 0 deducted, flagged.
    const murphy = raiseBill('J. Murphy Roofing', { labour: 300, rate: 20, deduct: false });
    t.sandbox.payInvoice(murphy.invoiceId, { amount: 300, date: today });
    // O'Connor: Xero says CIS is off for them, yet a deduction was withheld: on the return, flagged.
    const oconnor = raiseBill("M. O'Connor Scaffolding", { labour: 200, rate: 20 });
    t.sandbox.payInvoice(oconnor.invoiceId, { amount: 160, date: today });
    // Evans (no CIS settings in Xero) and an ordinary supplier: not on the return.
    const evans = raiseBill('T. Evans Plumbing & Heating', { labour: 250, rate: 20, deduct: false });
    t.sandbox.payInvoice(evans.invoiceId, { amount: 250, date: today });
    const timber = t.sandbox.enterBill({
      contactId: subs['Northern Timber Merchants'] ?? '',
      date: today,
      lineAmountTypes: 'Exclusive',
      lines: [{ description: 'Timber', unitAmount: 80, accountCode: '322', taxType: 'INPUT2' }],
    });
    t.sandbox.payInvoice(timber.invoiceId, { amount: 96, date: today });

    const ret = await readReturn(current);
    const month = getTaxMonth(current);
    expect(ret).toMatchObject({
      period: current,
      start: month.start,
      end: month.end,
      dueDate: month.dueDate,
      nil: false,
      isCurrent: true,
      filing: null,
      changedSinceFiling: false,
    });
    const figures = ret.lines.map((l) => [
      l.name,
      l.rate,
      l.grossAmount,
      l.materialsAmount,
      l.deductionAmount,
      l.flags.map((f) => f.code),
    ]);
    expect(figures).toEqual([
      ['A. Patel Plastering', 20, 250, 0, 50, []],
      ['Hughes Groundworks Ltd', 20, 1000, 0, 200, []],
      ['J. Murphy Roofing', 20, 300, 0, 0, ['nothing-deducted']],
      ["M. O'Connor Scaffolding", 20, 200, 0, 40, ['not-cis']],
      ['Northside Electrical Ltd', 0, 100, 0, 0, []],
      ['R. Singh Tiling', 30, 500, 100, 120, []],
      ['Stone & Sons Brickwork', 30, 750, 150, 180, []],
    ]);
    expect(ret.lines.find((l) => l.name === 'J. Murphy Roofing')?.flags[0]?.message).toContain('£60.00');
    expect(ret.totals).toEqual({ grossAmount: 3100, materialsAmount: 250, deductionAmount: 590 });

    // The CSV says the same.
    const csv = await asBella()('GET', `/api/xero/cis/returns?period=${current}&format=csv`);
    expect(csv.statusCode).toBe(200);
    const rows = csv.body.trim().split('\r\n');
    expect(rows).toHaveLength(9);
    expect(rows).toContain('"R. Singh Tiling","","","30","500.00","100.00","120.00"');
    expect(rows[8]).toBe('"Total","","","","3100.00","250.00","590.00"');

    // Patel is paid the rest: the month now counts the whole bill, the first payment unchanged.
    t.sandbox.payInvoice(patel.invoiceId, { amount: 200, date: today });
    expect((await readReturn(current)).lines.find((l) => l.name === 'A. Patel Plastering')).toMatchObject({
      grossAmount: 500,
      deductionAmount: 100,
    });
  });

  it('gives one answer whichever of Xero’s reads brought a bill (issue 42: CISDeduction 0.00 on a single read)', async () => {
    const bills = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, buildersId), eq(xeroInvoices.type, 'ACCPAY')));
    const timber = bills.find((b) => b.contactName === 'Northern Timber Merchants');
    const hughes = bills.find((b) => b.contactName === 'Hughes Groundworks Ltd');
    if (!timber || !hughes) throw new Error('bills missing');
    const ctx = { organizationId: buildersId, tenantId, userId: (bella.user as { id: number }).id };
    // Xero's read of one bill answers CISDeduction 0.00 on an ordinary supplier's bill; the list read did not.
    for (const bill of [timber, hughes]) {
      const listed = bill.cisDeductionPence;
      const row = await t.parts.sync.refreshInvoice(ctx, bill.invoiceId);
      expect(row?.cisDeductionPence, bill.contactName ?? '').toBe(listed);
      expect(row?.cisDeductionPence).toBeNull();
    }
    // A bill of a supplier who is no subcontractor stays off the return, however it was read.
    const ret = await readReturn(current);
    expect(ret.lines.map((l) => l.name)).not.toContain('Northern Timber Merchants');
    expect(ret.totals.deductionAmount).toBe(640);
  });

  it('opens a month with a warm cache in at most 3 Xero calls', async () => {
    const call = asBella();
    await call('GET', `/api/xero/cis/returns?period=${current}`);
    t.sandbox.clearLedger();
    const res = await call('GET', `/api/xero/cis/returns?period=${current}`);
    expect(res.statusCode).toBe(200);
    expect(t.sandbox.ledger().totals.all).toBeLessThanOrEqual(3);
    t.sandbox.clearLedger();
    const refreshed = await call('GET', `/api/xero/cis/returns?period=${current}&refresh=true`);
    expect(refreshed.statusCode).toBe(200);
    expect(t.sandbox.ledger().totals.all).toBeLessThanOrEqual(3);
  });

  it('never moves a paid month when the materials or deductions account changes later', async () => {
    // Nowak (20 %): £400 labour and £100 plant hire on 326, £100 deducted on the whole £500; paid.
    const nowak = t.sandbox.enterBill({
      contactId: subs['K. Nowak Carpentry'] ?? '',
      date: today,
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Carpentry', unitAmount: 400, accountCode: '321' },
        { description: 'Plant hire', unitAmount: 100, accountCode: '326' },
        { description: 'CIS deduction at 20%', unitAmount: -100, accountCode: '814' },
      ],
    });
    t.sandbox.payInvoice(nowak.invoiceId, { amount: 400, date: today });
    const before = (await readReturn(current)).lines.find((l) => l.name === 'K. Nowak Carpentry');
    expect(before).toMatchObject({ grossAmount: 500, materialsAmount: 0, deductionAmount: 100 });

    // Plant hire becomes a materials account, and deductions move to another account.
    const changed = await saveSettings(asOwner(), {
      materialsAccountCodes: ['322', '326'],
      deductionAccountCode: '816',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const after = await readReturn(current);
    expect(after.lines.find((l) => l.name === 'K. Nowak Carpentry')).toEqual(before);
    expect(after.lines.find((l) => l.name === 'Hughes Groundworks Ltd')).toMatchObject({
      deductionAmount: 200,
    });

    // A bill paid after the change is read under the new accounts.
    const later = t.sandbox.enterBill({
      contactId: subs['K. Nowak Carpentry'] ?? '',
      date: today,
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Carpentry', unitAmount: 200, accountCode: '321' },
        { description: 'Plant hire', unitAmount: 50, accountCode: '326' },
        { description: 'CIS deduction at 20%', unitAmount: -40, accountCode: '816' },
      ],
    });
    t.sandbox.payInvoice(later.invoiceId, { amount: 210, date: today });
    expect((await readReturn(current)).lines.find((l) => l.name === 'K. Nowak Carpentry')).toMatchObject({
      grossAmount: 750,
      materialsAmount: 50,
      deductionAmount: 140,
    });
    expect((await saveSettings(asOwner(), { deductionAccountCode: '814' })).statusCode).toBe(200);
  });

  it('refuses to file until every reference is set, naming each one missing', async () => {
    const hughes = raiseBill('Hughes Groundworks Ltd', {
      labour: 500,
      vat: true,
      rate: 20,
      date: getTaxMonth(previous).start,
    });
    t.sandbox.payInvoice(hughes.invoiceId, { amount: 500, date: getTaxMonth(previous).end });
    const singh = raiseBill('R. Singh Tiling', { labour: 100, rate: 30, date: getTaxMonth(previous).start });
    t.sandbox.payInvoice(singh.invoiceId, { amount: 70, date: getTaxMonth(previous).end });

    const refused = await asBella()('POST', `/api/xero/cis/returns/${previous}/filing`, {});
    expect(refused.statusCode).toBe(422);
    const body = refused.json() as { message: string; missing: Array<{ label: string }> };
    expect(body.missing.map((m) => m.label)).toEqual([
      'Your UTR (the contractor’s)',
      'Your employer reference',
      'Your accounts office reference',
      'UTR of Hughes Groundworks Ltd',
      'UTR of R. Singh Tiling',
      'Verification number of R. Singh Tiling (deducted at 30 %)',
    ]);
    expect(body.message).toContain('Missing: Your UTR');
    const ret = await readReturn(previous);
    expect(ret.checks.filter((c) => !c.ok)).toHaveLength(6);
    expect(ret.filing).toBeNull();
    // The deductions are paid by the 22nd, or the last working day before it (22 November 2026 is a Sunday).
    const payment = getDeductionsPaymentDueDate(previous);
    expect(ret.paymentDueDate).toBe(payment.due);
    if (payment.due !== payment.nominal) expect(ret.paymentDueNote).toContain('last working day before it');
    else expect(ret.paymentDueNote).toBeNull();

    // Statements need the references too (CISR12160): refused, naming them.
    const statement = await asBella()(
      'GET',
      `/api/xero/cis/statements/${subs['R. Singh Tiling']}?period=${previous}`,
    );
    expect(statement.statusCode).toBe(422);
    expect(statement.json().message).toContain('Your employer reference');

    // A member fills in what is missing.
    const refs = await saveSettings(asBella(), {
      utr: '9876543210',
      employerReference: '123/ab45678',
      accountsOfficeReference: '123PA00012345',
      deductionAccountCode: '814',
      materialsAccountCodes: ['322', '326'],
    });
    expect(refs.statusCode, refs.body).toBe(200);
    for (const [name, utr, verificationNumber] of [
      ['Hughes Groundworks Ltd', '1111111111', null],
      ['R. Singh Tiling', '2345678901', 'V0987654321RS'],
    ] as const)
      expect(
        (await asBella()('PUT', `/api/xero/cis/subcontractors/${subs[name]}`, { utr, verificationNumber }))
          .statusCode,
      ).toBe(200);
    const filed = await asBella()('POST', `/api/xero/cis/returns/${previous}/filing`, {});
    expect(filed.statusCode, filed.body).toBe(200);
    expect(filed.json()).toMatchObject({
      filedOn: today,
      filedBy: 'bella',
      source: 'manual',
      late: today > getTaxMonth(previous).dueDate,
      totals: { grossAmount: 600, materialsAmount: 0, deductionAmount: 130 },
      receipt: null,
    });
  });

  it('keeps a filed return as filed, and says what changed since and how HMRC is told', async () => {
    const hughesDue = getTaxMonth(previous).end;
    const filed = await readReturn(previous);
    expect(filed.filing?.lines?.map((l) => [l.name, l.grossAmount, l.deductionAmount])).toEqual([
      ['Hughes Groundworks Ltd', 500, 100],
      ['R. Singh Tiling', 100, 30],
    ]);
    expect(filed.changedSinceFiling).toBe(false);

    // A payment dated in the filed month is added in Xero afterwards.
    const extra = raiseBill('Hughes Groundworks Ltd', { labour: 1000, vat: true, rate: 20, date: hughesDue });
    const paid = t.sandbox.payInvoice(extra.invoiceId, { amount: 1000, date: hughesDue });
    const moved = await readReturn(previous);
    expect(moved.filing?.totals).toEqual({ grossAmount: 600, materialsAmount: 0, deductionAmount: 130 });
    expect(moved.totals).toEqual({ grossAmount: 1600, materialsAmount: 0, deductionAmount: 330 });
    expect(moved.changedSinceFiling).toBe(true);
    expect(moved.changes).toEqual([
      {
        contactId: subs['Hughes Groundworks Ltd'],
        name: 'Hughes Groundworks Ltd',
        kind: 'changed',
        filed: { grossAmount: 500, materialsAmount: 0, deductionAmount: 100 },
        now: { grossAmount: 1500, materialsAmount: 0, deductionAmount: 300 },
      },
    ]);
    expect(moved.correctionAdvice).toContain('CISR66010');
    const months = await readMonths();
    expect(months.months.find((m) => m.period === previous)).toMatchObject({
      state: 'filed',
      changedSinceFiling: true,
    });
    // The corrected statement says so.
    const pdf = await asBella()(
      'GET',
      `/api/xero/cis/statements/${subs['Hughes Groundworks Ltd']}?period=${previous}`,
    );
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(readPdfText(pdf.rawPayload)).toEqual(
      expect.arrayContaining(['Payment and deduction statement (corrected)', '£1,500.00', '£300.00']),
    );

    // The payment is removed in Xero: the month is back to what was filed.
    t.sandbox.removePayment(paid.paymentId);
    const back = await readReturn(previous);
    expect(back.changedSinceFiling).toBe(false);
    expect(back.totals).toEqual(back.filing?.totals);
  });

  it('keeps the penalty of a return filed late, and lists every month since the first CIS payment', async () => {
    // Four months back: the return was due over two months ago.
    const late = shiftPeriod(current, 4);
    const lateMonth = getTaxMonth(late);
    const coastal = raiseBill('Coastal Drylining Ltd', { labour: 300, rate: 20, date: lateMonth.start });
    t.sandbox.payInvoice(coastal.invoiceId, { amount: 240, date: lateMonth.start });
    expect(
      (
        await asBella()('PUT', `/api/xero/cis/subcontractors/${subs['Coastal Drylining Ltd']}`, {
          utr: '3333333333',
          verificationNumber: null,
        })
      ).statusCode,
    ).toBe(200);
    const filed = await asBella()('POST', `/api/xero/cis/returns/${late}/filing`, {});
    expect(filed.statusCode, filed.body).toBe(200);
    // £100 the day after it was due, and £200 more two months on.
    expect(filed.json()).toMatchObject({ late: true, penaltyAmount: 300 });
    const { months } = await readMonths();
    expect(months.find((m) => m.period === late)).toMatchObject({ state: 'filed', penaltyAmount: 300 });

    // A bill paid 14 months ago: that month and every month since are listed, the old one unfiled and overdue.
    const old = shiftPeriod(current, 14);
    const oldMonth = getTaxMonth(old);
    const evansOld = raiseBill('Coastal Drylining Ltd', { labour: 300, rate: 20, date: oldMonth.start });
    t.sandbox.payInvoice(evansOld.invoiceId, { amount: 240, date: addDays(oldMonth.start, 1) });
    const all = await readMonths();
    expect(all.months.length).toBeGreaterThanOrEqual(15);
    expect(all.months[0]?.period).toBe(current);
    expect(all.months.at(-1)?.period).toBe(old);
    // Every return due before the contractor's first return (made today) falls under HMRC's rules for
    // contractors new to CIS: the 6 and 12 month penalties are 5 % of the £60 deducted, with no £300 minimum.
    expect(all.months.find((m) => m.period === old)).toMatchObject({
      state: 'overdue',
      penaltyAmount: 306,
      newContractorRules: true,
      deductionAmount: 60,
    });
    // A contractor who filed returns before Ledgerlink says when: the ordinary penalties apply.
    const said = await saveSettings(asOwner(), {
      utr: '9876543210',
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
      materialsAccountCodes: ['322', '326'],
      firstReturnOn: '2020-05-19',
    });
    expect(said.statusCode, said.body).toBe(200);
    const ordinary = await readMonths();
    expect(ordinary.firstReturnOn).toBe('2020-05-19');
    expect(ordinary.months.find((m) => m.period === old)).toMatchObject({
      penaltyAmount: 900,
      newContractorRules: false,
      nextPenalty: null,
    });
    const ret = await readReturn(old);
    expect(ret.penalty).toMatchObject({ amount: 900, newContractorRules: false });
  });

  it('marks a nil month as told to HMRC in advance, and only an administrator takes the mark off', async () => {
    const { months } = await readMonths();
    const nil = months.find((m) => m.nil && m.state === 'overdue' && m.nilReturnRequired);
    if (!nil) throw new Error('no overdue nil month to mark');
    const withPayments = months.find((m) => !m.nil && m.state !== 'filed' && m.state !== 'current');
    expect(nil.penaltyAmount).toBeGreaterThan(0);

    const marked = await asBella()('POST', `/api/xero/cis/returns/${nil.period}/nil-mark`, {
      kind: 'told-in-advance',
    });
    expect(marked.statusCode, marked.body).toBe(200);
    expect(marked.json()).toMatchObject({ kind: 'told-in-advance', markedBy: 'bella' });
    const after = (await readMonths()).months.find((m) => m.period === nil.period);
    expect(after).toMatchObject({
      state: 'not-needed',
      penaltyAmount: 0,
      nilMark: { kind: 'told-in-advance' },
    });
    expect((await readReturn(nil.period)).nilMark).toMatchObject({ kind: 'told-in-advance' });

    if (withPayments) {
      const refused = await asBella()('POST', `/api/xero/cis/returns/${withPayments.period}/nil-mark`, {
        kind: 'inactive',
      });
      expect(refused.statusCode).toBe(409);
    }
    const bad = await asBella()('POST', `/api/xero/cis/returns/${nil.period}/nil-mark`, { kind: 'asleep' });
    expect(bad.statusCode).toBe(400);
    expect((await asBella()('DELETE', `/api/xero/cis/returns/${nil.period}/nil-mark`)).statusCode).toBe(403);
    expect((await asOwner()('DELETE', `/api/xero/cis/returns/${nil.period}/nil-mark`)).statusCode).toBe(200);
    const audited = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'cis-returns.nil-marked'), eq(auditLog.target, nil.period)));
    expect(audited).toHaveLength(1);
  });

  it('reduces the month by a supplier credit note: allocated to a bill (set-off) or refunded in cash', async () => {
    const period = shiftPeriod(current, 3);
    const month = getTaxMonth(period);
    // Hughes: £1,000 + VAT, £200 deducted. A CIS credit note of £100 + VAT gives £20 of the deduction back.
    const bill = raiseBill('Hughes Groundworks Ltd', {
      labour: 1000,
      vat: true,
      rate: 20,
      date: month.start,
    });
    const credit = t.sandbox.enterCreditNote({
      contactId: subs['Hughes Groundworks Ltd'] ?? '',
      date: month.start,
      lineAmountTypes: 'Exclusive',
      lines: [
        { description: 'Overcharge', unitAmount: 100, accountCode: '321', taxType: 'INPUT2' },
        { description: 'CIS deduction at 20%', unitAmount: -20, accountCode: '814', taxType: 'NONE' },
      ],
    });
    expect(credit.total).toBe(100);
    const allocated = t.sandbox.allocateCreditNote(credit.creditNoteId, {
      invoiceId: bill.invoiceId,
      amount: 100,
      date: month.start,
    });
    expect(allocated.bill.amountDue).toBe(900);
    t.sandbox.payInvoice(bill.invoiceId, { amount: 900, date: addDays(month.start, 2) });
    // Patel: £500, £100 deducted, paid; a £50 credit note (£10 of deduction back) refunded in cash that month.
    const patel = raiseBill('A. Patel Plastering', { labour: 500, rate: 20, date: month.start });
    t.sandbox.payInvoice(patel.invoiceId, { amount: 400, date: month.start });
    const refund = t.sandbox.enterCreditNote({
      contactId: subs['A. Patel Plastering'] ?? '',
      date: addDays(month.start, 3),
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Snagging not done', unitAmount: 50, accountCode: '321' },
        { description: 'CIS deduction at 20%', unitAmount: -10, accountCode: '814' },
      ],
    });
    t.sandbox.refundCreditNote(refund.creditNoteId, { amount: 40, date: addDays(month.start, 4) });

    const ret = await readReturn(period);
    expect(ret.lines.map((l) => [l.name, l.grossAmount, l.deductionAmount])).toEqual([
      ['A. Patel Plastering', 450, 90],
      ['Hughes Groundworks Ltd', 900, 180],
    ]);
  });

  it('lets any member fill in a reference, and only an administrator change one that is set', async () => {
    const settings = (await asBella()('GET', '/api/xero/cis/settings')).json() as CisSettings;
    expect(settings).toMatchObject({ utr: '9876543210', canChangeFiledUnder: false });
    const refused = await saveSettings(asBella(), {
      utr: '1212121212',
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
      materialsAccountCodes: ['322', '326'],
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(
      'Only an administrator can change your UTR once set: returns are filed under it. Ask an administrator.',
    );
    const deductions = await saveSettings(asBella(), {
      utr: '9876543210',
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
      materialsAccountCodes: ['322', '326'],
      deductionAccountCode: '816',
    });
    expect(deductions.statusCode).toBe(403);
    expect(deductions.json().message).toContain('the CIS deductions account');
    // Materials accounts and the name on statements are not what a return is filed under.
    const free = await saveSettings(asBella(), {
      contractorName: 'Demo Builders (Contracts) Ltd',
      utr: '9876543210',
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
      materialsAccountCodes: ['322'],
    });
    expect(free.statusCode, free.body).toBe(200);
    const sub = await asBella()('PUT', `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}`, {
      utr: '1111111112',
      verificationNumber: null,
    });
    expect(sub.statusCode).toBe(403);
    expect(sub.json().message).toContain("a subcontractor's UTR");
    const byAdmin = await asOwner()('PUT', `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}`, {
      utr: '1111111112',
      verificationNumber: null,
    });
    expect(byAdmin.statusCode).toBe(200);
    expect(
      ((await asOwner()('GET', '/api/xero/cis/settings')).json() as CisSettings).canChangeFiledUnder,
    ).toBe(true);
  });

  it('prints every field CISR12160 asks on the statement, read back from the PDF', async () => {
    const pdf = await asBella()(
      'GET',
      `/api/xero/cis/statements/${subs['R. Singh Tiling']}?period=${previous}`,
    );
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toContain(`cis-statement-${previous}-r-singh-tiling.pdf`);
    const text = readPdfText(pdf.rawPayload);
    const end = getTaxMonth(previous).end;
    const [y, m, d] = end.split('-').map(Number) as [number, number, number];
    const monthName = new Date(Date.UTC(y, m - 1, d)).toLocaleString('en-GB', {
      month: 'long',
      timeZone: 'UTC',
    });
    expect(text).toEqual(
      expect.arrayContaining([
        'Payment and deduction statement',
        // The contractor's name and employer's tax reference.
        'Demo Builders (Contracts) Ltd',
        '123/AB45678',
        // The end date of the tax month.
        `Tax month ending ${d} ${monthName} ${y}`,
        // The subcontractor's name, UTR and (deducted at 30 %) verification number.
        'R. Singh Tiling',
        '2345678901',
        'V0987654321RS',
        // The gross amount paid, the cost of materials, the amount deducted.
        '£100.00',
        '£0.00',
        '£30.00',
      ]),
    );
    expect(text.join('\n')).not.toMatch(/not set|not recorded/);
    const [size] = await readPdfPageSizes(pdf.rawPayload);
    expect(Math.round(size?.width ?? 0)).toBe(595);
    expect(Math.round(size?.height ?? 0)).toBe(842);
    const all = await asBella()('GET', `/api/xero/cis/statements?period=${previous}`);
    expect(all.statusCode, all.body).toBe(200);
    expect(await readPdfPageSizes(all.rawPayload)).toHaveLength(2);
  });

  it('marks a month filed (who and when, in the activity log); only an administrator undoes it', async () => {
    const bellaCall = asBella();
    const notEnded = await bellaCall('POST', `/api/xero/cis/returns/${current}/filing`, {});
    expect(notEnded.statusCode).toBe(400);
    expect((await bellaCall('POST', `/api/xero/cis/returns/${previous}/filing`, {})).statusCode).toBe(409);
    const ret = (await bellaCall('GET', `/api/xero/cis/returns?period=${previous}`)).json() as CisReturn;
    expect(ret.filedAt).toBe(today);
    const audited = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'cis-returns.filed'), eq(auditLog.target, previous)));
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ username: 'bella', organizationId: buildersId });

    const refused = await bellaCall('DELETE', `/api/xero/cis/returns/${previous}/filing`);
    expect(refused.statusCode).toBe(403);
    const undone = await asOwner()('DELETE', `/api/xero/cis/returns/${previous}/filing`);
    expect(undone.statusCode, undone.body).toBe(200);
    const again = (await bellaCall('GET', `/api/xero/cis/returns?period=${previous}`)).json() as CisReturn;
    expect(again.filing).toBeNull();
    expect(again.changedSinceFiling).toBe(false);
  });

  it('keeps the contractor’s settings checked: formats, accounts, and the deductions account', async () => {
    const call = asOwner();
    const bad = await saveSettings(call, { utr: '12' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(UTR_MESSAGE);
    const unknown = await saveSettings(call, { materialsAccountCodes: ['9999'] });
    expect(unknown.statusCode).toBe(400);
    // Xero's API refuses its system accounts on line items: the CIS Liability system account, Accounts Payable
    // and an expense account cannot hold the deductions.
    for (const code of ['815', '800', '321']) {
      const refused = await saveSettings(call, {
        utr: '9876543210',
        employerReference: '123/AB45678',
        accountsOfficeReference: '123PA00012345',
        deductionAccountCode: code,
      });
      expect(refused.statusCode, code).toBe(400);
      expect(refused.json().message).toContain('cannot hold CIS deductions');
    }
    const badDate = await saveSettings(call, { firstReturnOn: '2020-13-01' });
    expect(badDate.statusCode).toBe(400);
    const future = await saveSettings(call, {
      utr: '9876543210',
      employerReference: '123/AB45678',
      accountsOfficeReference: '123PA00012345',
      firstReturnOn: '2999-01-19',
    });
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toBe('First return date cannot be in the future');
  });

  it('refuses bad input with a clear 400 and changes nothing', async () => {
    const call = asBella();
    for (const period of ['2026-13', 'soon', '', '2026-1'])
      expect((await call('GET', `/api/xero/cis/returns?period=${period}`)).statusCode, period).toBe(400);
    expect((await call('GET', '/api/xero/cis/returns')).statusCode).toBe(400);
    const future = await call('GET', `/api/xero/cis/returns?period=${shiftPeriod(current, -2)}`);
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toBe('That tax month has not begun yet');
    expect((await call('GET', `/api/xero/cis/returns?period=${current}&format=xml`)).statusCode).toBe(400);
    expect((await call('GET', `/api/xero/cis/statements/not-an-id?period=${current}`)).statusCode).toBe(400);
    // A contact not paid that month, and a supplier who is no CIS subcontractor: no statement.
    const unpaid = await call(
      'GET',
      `/api/xero/cis/statements/${subs['D. Walsh Joinery']}?period=${current}`,
    );
    expect(unpaid.statusCode).toBe(404);

    const stone = subs['Stone & Sons Brickwork'] ?? '';
    const bad = await call('PUT', `/api/xero/cis/subcontractors/${stone}`, {
      utr: '123',
      verificationNumber: 'X99',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(UTR_MESSAGE);
    const badVerification = await call('PUT', `/api/xero/cis/subcontractors/${stone}`, {
      utr: '1234567890',
      verificationNumber: 'V12345',
    });
    expect(badVerification.statusCode).toBe(400);
    expect(badVerification.json().message).toContain(VERIFICATION_NUMBER_MESSAGE);
    const [kept] = await t.database.db
      .select()
      .from(cisSubcontractorRefs)
      .where(eq(cisSubcontractorRefs.contactId, stone));
    expect(kept).toBeUndefined();
    const missing = await call('PUT', '/api/xero/cis/subcontractors/00000000-0000-0000-0000-000000000000', {
      utr: null,
      verificationNumber: null,
    });
    expect(missing.statusCode).toBe(404);
    const filedOnFuture = await call('POST', `/api/xero/cis/returns/${previous}/filing`, {
      filedOn: '2999-01-01',
    });
    expect(filedOnFuture.statusCode).toBe(400);
  });

  it('refuses another user’s organisation', async () => {
    const call = callAs(stranger.cookie);
    for (const url of [
      `/api/xero/cis/returns?period=${current}&org=${buildersId}`,
      `/api/xero/cis/months?org=${buildersId}`,
      `/api/xero/cis/statements?period=${current}&org=${buildersId}`,
      `/api/xero/cis/settings?org=${buildersId}`,
    ])
      expect((await call('GET', url)).statusCode, url).toBe(403);
    expect(
      (
        await call('POST', `/api/xero/cis/returns/${previous}/nil-mark?org=${buildersId}`, {
          kind: 'inactive',
        })
      ).statusCode,
    ).toBe(403);
    const shop = await call('GET', `/api/xero/cis/returns?period=${current}`);
    // The stranger's own organisation (the shop) has no subcontractors: its month is nil, none of the builder's.
    expect(shop.statusCode, shop.body).toBe(200);
    expect((shop.json() as CisReturn).nil).toBe(true);
  });

  it('answers 403 when CIS Bills is switched off, and 401 when signed out', async () => {
    await t.database.db
      .update(organizations)
      .set({ featureCisBills: false })
      .where(eq(organizations.id, buildersId));
    try {
      const call = asBella();
      for (const [method, url] of [
        ['GET', `/api/xero/cis/returns?period=${current}`],
        ['GET', '/api/xero/cis/months'],
        ['GET', `/api/xero/cis/statements?period=${current}`],
        ['GET', '/api/xero/cis/settings'],
        ['POST', `/api/xero/cis/returns/${previous}/filing`],
        ['POST', `/api/xero/cis/returns/${previous}/nil-mark`],
      ] as const) {
        const res = await call(method, url, method === 'POST' ? { kind: 'inactive' } : undefined);
        expect(res.statusCode, url).toBe(403);
        expect(res.json().message).toContain('disabled');
      }
      const signedOut = await t.app.inject({ method: 'GET', url: `/api/xero/cis/returns?period=${current}` });
      expect(signedOut.statusCode).toBe(401);
    } finally {
      await enableFeatures(t, buildersId);
    }
  });
});
