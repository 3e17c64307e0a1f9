import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getPeriodOf,
  getTaxMonth,
  shiftPeriod,
  UTR_MESSAGE,
  VERIFICATION_NUMBER_MESSAGE,
  type CisMonthsResponse,
  type CisReturn,
} from '../../../shared/cis-returns';
import { getUkToday } from '../../../shared/dates';
import { auditLog, cisSubcontractorRefs, organizations } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { readPdfPageSizes, readPdfText } from '../../test/pdf-text';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('CIS month-end API (issue 29)', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let bella: Awaited<ReturnType<typeof createConnectedUser>>;
  let stranger: Awaited<ReturnType<typeof createConnectedUser>>;
  let buildersId: number;
  const subs: Record<string, string> = {};
  const today = getUkToday();
  const current = getPeriodOf(today);
  const previous = shiftPeriod(current, 1);

  function callAs(cookie: string) {
    return (method: Method, url: string, body?: unknown) =>
      t.app.inject({
        method,
        url,
        headers: { cookie, origin: TEST_ORIGIN },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
  }

  /** A bill raised in Ledgerlink's CIS Bills, approved at once, on an ordinary direct-costs account. */
  async function raiseBill(contactId: string, amount: number): Promise<string> {
    const res = await callAs(bella.cookie)('POST', '/api/xero/create-bill', {
      contactId,
      date: today,
      reference: '0126',
      lineItems: [{ description: 'Labour', quantity: 1, unitAmount: amount, accountCode: '321' }],
      status: 'AUTHORISED',
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { invoiceID: string }).invoiceID;
  }

  beforeAll(async () => {
    t = await createXeroTestApp({
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    // The builder starts this suite with no bills at all, so every figure below is this suite's own.
    const builders = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!builders) throw new Error('seed changed');
    const billIds = new Set(builders.invoices.filter((i) => i.Type === 'ACCPAY').map((i) => i.InvoiceID));
    builders.invoices = builders.invoices.filter((i) => !billIds.has(i.InvoiceID));
    builders.payments = builders.payments.filter((p) => !billIds.has(p.InvoiceID));
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
  });
  afterAll(() => t.close());

  it('shows what a bookkeeper raised and was paid, in Ledgerlink and by a person in Xero, part payments in proportion', async () => {
    const call = callAs(bella.cookie);
    const hughes = subs['Hughes Groundworks Ltd'] ?? '';
    const patel = subs['A. Patel Plastering'] ?? '';
    const stone = subs['Stone & Sons Brickwork'] ?? '';

    // Nothing paid yet: a nil month.
    const before = await call('GET', `/api/xero/cis/returns?period=${current}`);
    expect(before.statusCode, before.body).toBe(200);
    expect((before.json() as CisReturn).nil).toBe(true);

    // Two bills raised in Ledgerlink (20 % deduction computed by Ledgerlink, no VAT): £1,000 and £500.
    const hughesBill = await raiseBill(hughes, 1000);
    const patelBill = await raiseBill(patel, 500);
    // A person enters a CIS bill in Xero for a 30 % subcontractor: labour on CIS Labour Expense, materials on
    // CIS Materials; Xero computes the deduction on the labour only (£600 × 30 % = £180).
    const stoneBill = t.sandbox.enterBill({
      contactId: stone,
      date: today,
      reference: 'SS-77',
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Brickwork labour', unitAmount: 600, accountCode: '327' },
        { description: 'Bricks and mortar', unitAmount: 150, accountCode: '328' },
      ],
    });
    expect(stoneBill.cisDeduction).toBe(18_000);
    expect(stoneBill.amountDue).toBe(570);

    // Hughes is paid the whole £800 owed, Patel half of the £400 owed, Stone the £570 Xero says is due.
    t.sandbox.payInvoice(hughesBill, { amount: 800, date: today });
    t.sandbox.payInvoice(patelBill, { amount: 200, date: today });
    t.sandbox.payInvoice(stoneBill.invoiceId, { amount: 570, date: today });

    // Stone's verification number is kept by Ledgerlink (Xero's API has none).
    const refs = await call('PUT', `/api/xero/cis/subcontractors/${stone}`, {
      utr: '55555 12345',
      verificationNumber: 'v1234567890ab',
    });
    expect(refs.statusCode, refs.body).toBe(200);
    expect(
      await call('PUT', `/api/xero/cis/subcontractors/${hughes}`, {
        utr: '1111111111',
        verificationNumber: null,
      }),
    ).toMatchObject({ statusCode: 200 });

    const res = await call('GET', `/api/xero/cis/returns?period=${current}&refresh=true`);
    expect(res.statusCode, res.body).toBe(200);
    const ret = res.json() as CisReturn;
    const month = getTaxMonth(current);
    expect(ret).toMatchObject({
      period: current,
      start: month.start,
      end: month.end,
      dueDate: month.dueDate,
      nil: false,
      isCurrent: true,
      filedAt: null,
    });
    expect(ret.lines).toEqual([
      {
        contactId: patel,
        name: 'A. Patel Plastering',
        utr: null,
        verificationNumber: null,
        rate: 20,
        grossAmount: 250,
        materialsAmount: 0,
        deductionAmount: 50,
      },
      {
        contactId: hughes,
        name: 'Hughes Groundworks Ltd',
        utr: '1111111111',
        verificationNumber: null,
        rate: 20,
        grossAmount: 1000,
        materialsAmount: 0,
        deductionAmount: 200,
      },
      {
        contactId: stone,
        name: 'Stone & Sons Brickwork',
        utr: '5555512345',
        verificationNumber: 'V1234567890AB',
        rate: 30,
        grossAmount: 750,
        materialsAmount: 150,
        deductionAmount: 180,
      },
    ]);
    expect(ret.totals).toEqual({ grossAmount: 2000, materialsAmount: 150, deductionAmount: 430 });

    // The CSV says the same.
    const csv = await call('GET', `/api/xero/cis/returns?period=${current}&format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.body.trim().split('\r\n');
    expect(rows).toHaveLength(5);
    expect(rows[3]).toBe(
      '"Stone & Sons Brickwork","5555512345","V1234567890AB","30","750.00","150.00","180.00"',
    );
    expect(rows[4]).toBe('"Total","","","","2000.00","150.00","430.00"');

    // And so does Stone's statement, read back from the PDF.
    const pdf = await call('GET', `/api/xero/cis/statements/${stone}?period=${current}`);
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toContain(`cis-statement-${current}-stone-sons-brickwork.pdf`);
    const text = readPdfText(pdf.rawPayload);
    expect(text).toEqual(
      expect.arrayContaining([
        'Payment and deduction statement',
        'Demo Builders Ltd',
        'Stone & Sons Brickwork',
        '5555512345',
        'V1234567890AB',
        '£750.00',
        '£150.00',
        '£180.00',
      ]),
    );
    const [size] = await readPdfPageSizes(pdf.rawPayload);
    expect(Math.round(size?.width ?? 0)).toBe(595);
    expect(Math.round(size?.height ?? 0)).toBe(842);

    // All the month's statements in one download, a page each.
    const all = await call('GET', `/api/xero/cis/statements?period=${current}`);
    expect(all.statusCode).toBe(200);
    expect(await readPdfPageSizes(all.rawPayload)).toHaveLength(3);
    expect(readPdfText(all.rawPayload)).toEqual(
      expect.arrayContaining(['A. Patel Plastering', 'Hughes Groundworks Ltd', '£250.00', '£1,000.00']),
    );

    // Patel is paid the rest: the month now counts the whole bill.
    t.sandbox.payInvoice(patelBill, { amount: 200, date: today });
    const after = (
      await call('GET', `/api/xero/cis/returns?period=${current}&refresh=true`)
    ).json() as CisReturn;
    expect(after.lines.find((l) => l.contactId === patel)).toMatchObject({
      grossAmount: 500,
      deductionAmount: 100,
    });
  });

  it('opens a month with a warm cache in at most 3 Xero calls', async () => {
    const call = callAs(bella.cookie);
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

  it('says a month without payments is nil, and a nil return is due', async () => {
    const res = await callAs(bella.cookie)('GET', `/api/xero/cis/returns?period=${previous}`);
    expect(res.statusCode).toBe(200);
    const ret = res.json() as CisReturn;
    expect(ret).toMatchObject({ nil: true, nilReturnRequired: true, isCurrent: false, lines: [] });
    expect(ret.totals).toEqual({ grossAmount: 0, materialsAmount: 0, deductionAmount: 0 });
    const csv = await callAs(bella.cookie)('GET', `/api/xero/cis/returns?period=${previous}&format=csv`);
    expect(csv.body).toContain('"Total (nil return: no payments)"');
    const none = await callAs(bella.cookie)('GET', `/api/xero/cis/statements?period=${previous}`);
    expect(none.statusCode).toBe(404);
  });

  it('lists the last year with each month’s state', async () => {
    const res = await callAs(bella.cookie)('GET', '/api/xero/cis/months');
    expect(res.statusCode, res.body).toBe(200);
    const { months } = res.json() as CisMonthsResponse;

    expect(months).toHaveLength(12);
    expect(months[0]).toMatchObject({ period: current, state: 'current', nil: false, subcontractors: 3 });
    expect(months[0]?.deductionAmount).toBe(480);
    expect(months[1]).toMatchObject({ period: previous, nil: true });
  });

  it('marks a month filed (who and when, in the activity log); only an administrator undoes it', async () => {
    const bellaCall = callAs(bella.cookie);
    const notEnded = await bellaCall('POST', `/api/xero/cis/returns/${current}/filing`, {});
    expect(notEnded.statusCode).toBe(400);
    const filed = await bellaCall('POST', `/api/xero/cis/returns/${previous}/filing`, {});
    expect(filed.statusCode, filed.body).toBe(200);
    expect(filed.json()).toMatchObject({ filedOn: today, filedBy: 'bella' });
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
    const undone = await callAs(owner.cookie)('DELETE', `/api/xero/cis/returns/${previous}/filing`);
    expect(undone.statusCode, undone.body).toBe(200);
    const again = (await bellaCall('GET', `/api/xero/cis/returns?period=${previous}`)).json() as CisReturn;
    expect(again.filing).toBeNull();
  });

  it('keeps the contractor’s references and materials accounts in Settings', async () => {
    const call = callAs(bella.cookie);
    const initial = await call('GET', '/api/xero/cis/settings');
    expect(initial.json()).toMatchObject({
      contractorName: null,
      defaultContractorName: 'Demo Builders Ltd',
    });
    const bad = await call('PUT', '/api/xero/cis/settings', {
      contractorName: 'Builders',
      utr: '12',
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: [],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(UTR_MESSAGE);
    const unknown = await call('PUT', '/api/xero/cis/settings', {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: ['9999'],
    });
    expect(unknown.statusCode).toBe(400);
    // The CIS deductions account (issue 42) is an ordinary liability account: Xero's API refuses its system
    // accounts on line items, so the CIS Liability system account and Accounts Payable are refused here first.
    for (const code of ['815', '800', '321']) {
      const refused = await call('PUT', '/api/xero/cis/settings', {
        contractorName: null,
        utr: null,
        employerReference: null,
        accountsOfficeReference: null,
        materialsAccountCodes: [],
        deductionAccountCode: code,
      });
      expect(refused.statusCode, code).toBe(400);
      expect(refused.json().message).toContain('cannot hold CIS deductions');
    }
    expect((await call('GET', '/api/xero/cis/settings')).json()).toMatchObject({
      deductionAccountCode: null,
      reverseCharge: false,
    });
    const saved = await call('PUT', '/api/xero/cis/settings', {
      contractorName: 'Demo Builders (Contracts) Ltd',
      utr: '9876543210',
      employerReference: '123/ab45678',
      accountsOfficeReference: '123PA00012345',
      materialsAccountCodes: ['321'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // Every Ledgerlink bill above was on 321: marked as materials, a bill is all materials and carries no
    // deduction, so the £800 paid to Hughes is 80 % of what is owed on it (£1,000).
    const ret = (await call('GET', `/api/xero/cis/returns?period=${current}`)).json() as CisReturn;
    expect(ret.lines.find((l) => l.name === 'Hughes Groundworks Ltd')).toMatchObject({
      grossAmount: 800,
      materialsAmount: 800,
      deductionAmount: 0,
    });
    const pdf = await call(
      'GET',
      `/api/xero/cis/statements/${subs['Hughes Groundworks Ltd']}?period=${current}`,
    );
    expect(readPdfText(pdf.rawPayload)).toEqual(
      expect.arrayContaining(['Demo Builders (Contracts) Ltd', '123/AB45678', '9876543210']),
    );
    await call('PUT', '/api/xero/cis/settings', {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: [],
    });
  });

  it('refuses bad input with a clear 400 and changes nothing', async () => {
    const call = callAs(bella.cookie);
    for (const period of ['2026-13', 'soon', '', '2026-1'])
      expect((await call('GET', `/api/xero/cis/returns?period=${period}`)).statusCode, period).toBe(400);
    expect((await call('GET', '/api/xero/cis/returns')).statusCode).toBe(400);
    const future = await call('GET', `/api/xero/cis/returns?period=${shiftPeriod(current, -2)}`);
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toBe('That tax month has not begun yet');
    expect((await call('GET', `/api/xero/cis/returns?period=${current}&format=xml`)).statusCode).toBe(400);
    expect((await call('GET', `/api/xero/cis/statements/not-an-id?period=${current}`)).statusCode).toBe(400);
    // A contact not paid that month, and a supplier who is no CIS subcontractor: no statement.
    const unpaid = await call('GET', `/api/xero/cis/statements/${subs['R. Singh Tiling']}?period=${current}`);
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
    expect(kept).toMatchObject({ utr: '5555512345', verificationNumber: 'V1234567890AB' });
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
      const call = callAs(bella.cookie);
      for (const [method, url] of [
        ['GET', `/api/xero/cis/returns?period=${current}`],
        ['GET', '/api/xero/cis/months'],
        ['GET', `/api/xero/cis/statements?period=${current}`],
        ['GET', '/api/xero/cis/settings'],
        ['POST', `/api/xero/cis/returns/${previous}/filing`],
      ] as const) {
        const res = await call(method, url, method === 'POST' ? {} : undefined);
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
