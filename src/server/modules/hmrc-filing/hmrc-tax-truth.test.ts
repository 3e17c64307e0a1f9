import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHmrcSandbox, type HmrcSandbox } from '../../../sandbox/hmrc/hmrc-sandbox';
import type { OrgRec } from '../../../sandbox/state';
import type { CisContact, DraftBill } from '../../../shared/cis-bills';
import {
  getPeriodOf,
  getTaxMonth,
  shiftPeriod,
  type CisMonthsResponse,
  type CisReturn,
} from '../../../shared/cis-returns';
import { addDays, getUkToday } from '../../../shared/dates';
import {
  getTaxYearOf,
  type SubcontractorStatus,
  type Submission,
  type Verification,
} from '../../../shared/hmrc-filing';
import { cisReturnFilings, xeroInvoices } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { readPdfText } from '../../test/pdf-text';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Filing with HMRC (issue 43) on top of the CIS tax truth (issue 42), through the routes against the built-in HMRC
 * and the Xero sandbox: HMRC's verified rate is the rate a contact is given on CIS Bills and CIS Returns; one rule
 * decides what may be filed, by hand or sent to HMRC; an accepted return is filed as sent, with HMRC's receipt;
 * and HMRC's rule for who must be verified, before the next payment and for a month's payments.
 */
describe('filing with HMRC on the CIS tax truth (issues 42 and 43)', () => {
  let t: XeroTestApp;
  let hmrc: HmrcSandbox;
  let builders: OrgRec;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let bella: Awaited<ReturnType<typeof createConnectedUser>>;
  let orgId = 0;
  const subs: Record<string, string> = {};
  const today = getUkToday();
  const current = getPeriodOf(today);
  const period = (back: number) => shiftPeriod(current, back);
  const declarations = { employmentStatus: true, verification: true, informationCorrect: true };

  const callAs =
    (cookie: string) =>
    (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url: `${url}${url.includes('?') ? '&' : '?'}org=${orgId}`,
        headers: { cookie, origin: TEST_ORIGIN, ...headers },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
  const call = (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    callAs(bella.cookie)(method, url, body, headers);

  /** A bill a person entered in Xero and paid on `day`: labour on `account` (327 is Xero's CIS Labour). */
  function billPaidOn(day: string, name: string, labour: number, account = '327') {
    const bill = t.sandbox.enterBill({
      contactId: subs[name] ?? '',
      date: day,
      reference: `B-${day}-${name.slice(0, 3)}-${labour}`,
      lineAmountTypes: 'NoTax',
      lines: [{ description: 'Labour', unitAmount: labour, accountCode: account }],
    });
    t.sandbox.payInvoice(bill.invoiceId, { amount: bill.amountDue, date: day });
    return bill.invoiceId;
  }
  const inMonth = (back: number) => addDays(getTaxMonth(period(back)).start, 2);

  async function setTreatment(name: string, treatment: 'gross' | 'net' | 'unmatched') {
    const registered = hmrc.register().find((r) => r.name === name);
    const res = await fetch(`${hmrc.url}/__hmrc/subcontractors`, {
      method: 'POST',
      body: JSON.stringify({ ...registered, treatment }),
    });
    expect(res.status).toBe(200);
  }
  async function verify(name: string, body: Record<string, unknown> = {}): Promise<Verification> {
    const res = await call('POST', `/api/xero/cis/subcontractors/${subs[name]}/verification`, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Verification;
  }
  async function setUtr(name: string) {
    const registered = hmrc.register().find((r) => r.name === name);
    const res = await callAs(owner.cookie)('PUT', `/api/xero/cis/subcontractors/${subs[name]}`, {
      utr: registered?.utr,
      verificationNumber: null,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const getReturn = async (p: string, refresh = true) => {
    const res = await call('GET', `/api/xero/cis/returns?period=${p}${refresh ? '&refresh=true' : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CisReturn;
  };
  const statuses = async (p: string | null = null) => {
    const res = await call('GET', `/api/xero/cis/subcontractors/verifications${p ? `?period=${p}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const list = (res.json() as { subcontractors: SubcontractorStatus[] }).subcontractors;
    return (name: string) => list.find((s) => s.name === name);
  };
  const returnsSent = () => hmrc.messages().filter((m) => m.messageClass === 'IR-CIS-CIS300MR').length;
  const filedFor = (p: string) =>
    hmrc.filed().filter((f) => f.kind === 'return' && f.return?.periodEnd === getTaxMonth(p).end);

  beforeAll(async () => {
    hmrc = await startHmrcSandbox({ pollIntervalSeconds: 0 });
    t = await createXeroTestApp({
      env: { HMRC_ENDPOINT: hmrc.submissionUrl, HMRC_VENDOR_ID: '4321' },
      hmrcWaitMs: { verify: 2_000, submit: 2_000 },
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    const found = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!found) throw new Error('seed changed');
    builders = found;
    // Only this suite's bills: the seed's history stays out of the months and the payments read here.
    const billIds = new Set(builders.invoices.filter((i) => i.Type === 'ACCPAY').map((i) => i.InvoiceID));
    builders.invoices = builders.invoices.filter((i) => !billIds.has(i.InvoiceID));
    builders.payments = builders.payments.filter((p) => !billIds.has(p.InvoiceID));
    for (const c of builders.contacts) subs[c.Name] = c.ContactID;

    owner = await createConnectedUser(t, 'owner');
    bella = await createConnectedUser(t, 'bella', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    orgId = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    await enableFeatures(t, orgId);
    const scheme = hmrc.scheme;
    const settings = await callAs(owner.cookie)('PUT', '/api/xero/cis/settings', {
      contractorName: null,
      utr: scheme.utr,
      employerReference: `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
      accountsOfficeReference: scheme.accountsOfficeReference,
      materialsAccountCodes: [],
      deductionAccountCode: '814',
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const saved = await callAs(owner.cookie)('PUT', '/api/xero/cis/hmrc/credentials', {
      userId: scheme.senderId,
      password: scheme.password,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    for (const name of [
      'Hughes Groundworks Ltd',
      'Northside Electrical Ltd',
      'J. Murphy Roofing',
      'R. Singh Tiling',
      'Coastal Drylining Ltd',
      'Bright Spark Electrics',
      'A. Patel Plastering',
    ])
      await setUtr(name);
  });
  afterAll(async () => {
    await t?.close();
    await hmrc?.close();
  });

  it("gives a verified contact HMRC's rate on CIS Bills: the bill is deducted at it, and Xero's other rate is said", async () => {
    // HMRC now has Northside at the standard rate, while Xero's contact says gross payment status (0 %).
    await setTreatment('Northside Electrical Ltd', 'net');
    expect(await verify('Northside Electrical Ltd', { type: 'company' })).toMatchObject({
      matched: true,
      rate: 20,
      xeroRate: 0,
      disagreesWithXero: true,
    });
    const checked = await call('POST', '/api/xero/cis-contacts/check', {
      contactIds: [subs['Northside Electrical Ltd'], subs['Hughes Groundworks Ltd']],
    });
    expect(checked.statusCode, checked.body).toBe(200);
    expect((checked.json() as CisContact[])[0]).toMatchObject({
      cisRate: 20,
      hasValidUTR: true,
      xeroCisRate: 0,
      verified: { rate: 20, matched: true },
    });
    const listed = (await call('GET', '/api/xero/cis-contacts')).json() as CisContact[];
    expect(listed.find((c) => c.name === 'Northside Electrical Ltd')).toMatchObject({ cisRate: 20 });
    // An unverified contact keeps Xero's rate, and says nothing of HMRC.
    const hughes = listed.find((c) => c.name === 'Hughes Groundworks Ltd');
    expect(hughes?.cisRate).toBe(20);
    expect(hughes?.verified ?? null).toBeNull();

    // A bill raised from CIS Bills: £1,000 labour + 20 % VAT, deducted at HMRC's 20 % on the labour alone.
    const created = await call('POST', '/api/xero/create-bill', {
      contactId: subs['Northside Electrical Ltd'],
      date: today,
      reference: 'V-0001',
      lineItems: [{ description: 'Rewiring', quantity: 1, unitAmount: 1000, accountCode: '321' }],
      status: 'DRAFT',
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = (created.json() as { invoiceID: string }).invoiceID;
    const invoice = builders.invoices.find((i) => i.InvoiceID === id);
    // What Xero holds (the sandbox keeps pence): the labour, and the deduction as a line of its own.
    expect(invoice?.lines.map((l) => [l.AccountCode, l.Description, l.lineAmount])).toEqual([
      ['321', 'Rewiring', 100_000],
      ['814', 'CIS deduction at 20%', -20_000],
    ]);
    const drafts = (await call('GET', '/api/xero/draft-bills')).json() as DraftBill[];
    expect(drafts.find((d) => d.invoiceID === id)).toMatchObject({
      cisRate: 20,
      cisDeduction: 200,
      vatAmount: 200,
      total: 1200,
      amountDue: 1000,
    });
  });

  it("gives a verified contact HMRC's rate on CIS Returns: a bill paid without a deduction owes it at that rate, and the line quotes HMRC's verification number", async () => {
    // HMRC cannot match J. Murphy (30 %), while Xero's contact says 20 %.
    await setTreatment('J. Murphy Roofing', 'unmatched');
    const murphy = await verify('J. Murphy Roofing');
    expect(murphy).toMatchObject({ matched: false, rate: 30, xeroRate: 20, disagreesWithXero: true });
    expect(murphy.verificationNumber).toMatch(/^V\d{10}[A-Z]$/);
    // A bill a person keyed into Xero on an ordinary account, paid in full: nothing withheld.
    billPaidOn(inMonth(1), 'J. Murphy Roofing', 500, '321');
    const ret = await getReturn(period(1));
    const line = ret.lines.find((l) => l.name === 'J. Murphy Roofing');
    expect(line).toMatchObject({
      rate: 30,
      grossAmount: 500,
      deductionAmount: 0,
      verificationNumber: murphy.verificationNumber,
    });
    expect(line?.flags.map((f) => f.code)).toEqual(['nothing-deducted']);
    expect(line?.flags[0]?.message).toContain('at 30 % £150.00 should have been deducted');
    expect(
      ret.checks.find((c) => c.code === 'verification-number' && c.contactId === line?.contactId),
    ).toMatchObject({ ok: true });
    const csv = await call('GET', `/api/xero/cis/returns?period=${period(1)}&format=csv`);
    expect(csv.body).toContain(`"${murphy.verificationNumber}"`);
  });

  it('refuses to send a return exactly when marking it filed would be refused, naming what is missing; a 30 % subcontractor verified from Ledgerlink has its number', async () => {
    const p = period(2);
    billPaidOn(inMonth(2), 'K. Nowak Carpentry', 300);
    billPaidOn(inMonth(2), 'R. Singh Tiling', 500);
    const before = returnsSent();
    const missingBoth = [
      'UTR of K. Nowak Carpentry',
      'Verification number of R. Singh Tiling (deducted at 30 %)',
    ];

    const sent = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(sent.statusCode, sent.body).toBe(422);
    const refusal = sent.json() as { message: string; missing: Array<{ label: string; code: string }> };
    expect(refusal.message).toBe(
      `This return cannot be sent to HMRC yet. Missing: ${missingBoth.join('; ')}.`,
    );
    const marked = await callAs(owner.cookie)('POST', `/api/xero/cis/returns/${p}/filing`, {});
    expect(marked.statusCode, marked.body).toBe(422);
    expect((marked.json() as { message: string }).message).toBe(
      `This return cannot be filed yet. Missing: ${missingBoth.join('; ')}.`,
    );
    expect((marked.json() as { missing: unknown }).missing).toEqual(refusal.missing);
    expect(returnsSent()).toBe(before);

    // A statement without every reference is refused, by download and by email, saying what is missing in words.
    const nowakPdf = await call('GET', `/api/xero/cis/statements/${subs['K. Nowak Carpentry']}?period=${p}`);
    expect(nowakPdf.statusCode).toBe(422);
    const nowakMail = await call(
      'POST',
      `/api/xero/cis/statements/${subs['K. Nowak Carpentry']}/email?period=${p}`,
    );
    expect(nowakMail.statusCode, nowakMail.body).toBe(422);
    expect((nowakMail.json() as { message: string }).message).toBe(
      'A statement must carry every reference HMRC asks for (CISR12160). Missing: UTR of K. Nowak Carpentry.',
    );

    // R. Singh verified from Ledgerlink: HMRC's lettered number is on the return, its checks, CSV and statement.
    const singh = await verify('R. Singh Tiling');
    expect(singh).toMatchObject({ matched: false, rate: 30 });
    const ret = await getReturn(p);
    expect(ret.lines.find((l) => l.name === 'R. Singh Tiling')?.verificationNumber).toBe(
      singh.verificationNumber,
    );
    expect(ret.checks.filter((c) => !c.ok).map((c) => c.label)).toEqual(['UTR of K. Nowak Carpentry']);
    const csv = await call('GET', `/api/xero/cis/returns?period=${p}&format=csv`);
    expect(csv.body).toContain(`"${singh.verificationNumber}"`);
    const pdf = await call('GET', `/api/xero/cis/statements/${subs['R. Singh Tiling']}?period=${p}`);
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(readPdfText(pdf.rawPayload).join(' ')).toContain(singh.verificationNumber ?? '(none)');
    const still = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(still.statusCode).toBe(422);
    expect((still.json() as { message: string }).message).toBe(
      'This return cannot be sent to HMRC yet. Missing: UTR of K. Nowak Carpentry.',
    );
    expect(returnsSent()).toBe(before);

    // Everything set: sent, accepted, and the month is filed with HMRC's receipt on the return and the months list.
    await setUtr('K. Nowak Carpentry');
    const accepted = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const submission = accepted.json() as Submission;
    expect(submission.state).toBe('accepted');
    expect(filedFor(p)[0]?.return?.subcontractors).toEqual([
      expect.objectContaining({ name: 'K. Nowak Carpentry' }),
      expect.objectContaining({ name: 'R. Singh Tiling', verificationNumber: singh.verificationNumber }),
    ]);
    const filed = await getReturn(p, false);
    expect(filed.filing).toMatchObject({
      source: 'hmrc',
      filedBy: 'bella',
      receipt: { irmark: submission.receipt?.irmark, correlationId: submission.correlationId },
    });
    expect(filed.filing?.lines?.find((l) => l.name === 'R. Singh Tiling')?.verificationNumber).toBe(
      singh.verificationNumber,
    );
    expect(filed.changedSinceFiling).toBe(false);
    const months = (await call('GET', '/api/xero/cis/months')).json() as CisMonthsResponse;
    expect(months.months.find((m) => m.period === p)).toMatchObject({
      state: 'filed',
      filing: { source: 'hmrc', receipt: { irmark: submission.receipt?.irmark } },
    });
  });

  it('files a return as HMRC accepted it, whatever moved while HMRC answered; no one marks it by hand meanwhile', async () => {
    const p = period(3);
    billPaidOn(inMonth(3), 'Hughes Groundworks Ltd', 400);
    hmrc.setFaults({ answerDelayMs: 3_600_000 });
    const sent = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(sent.json()).toMatchObject({ state: 'sending' });
    // While HMRC has it: marking the month filed by hand is refused, saying why.
    const marked = await callAs(owner.cookie)('POST', `/api/xero/cis/returns/${p}/filing`, {});
    expect(marked.statusCode, marked.body).toBe(409);
    expect((marked.json() as { message: string }).message).toContain(
      'This return is on its way to HMRC (sent by bella',
    );
    // A payment lands in the month meanwhile.
    billPaidOn(inMonth(3), 'Hughes Groundworks Ltd', 100);
    hmrc.clearFaults();
    hmrc.release();
    await expect
      .poll(
        async () => ((await call('GET', `/api/xero/cis/returns/${p}/submission`)).json() as Submission).state,
        { timeout: 30_000, interval: 250 },
      )
      .toBe('accepted');
    const ret = await getReturn(p);
    expect(ret.filing?.source).toBe('hmrc');
    // Filed as sent (£400), the live figures beside it (£500), the change said.
    expect(ret.filing?.totals).toMatchObject({ grossAmount: 400 });
    expect(ret.totals).toMatchObject({ grossAmount: 500 });
    expect(ret.changedSinceFiling).toBe(true);
    expect(ret.changes).toEqual([
      expect.objectContaining({ name: 'Hughes Groundworks Ltd', kind: 'changed' }),
    ]);
  });

  it("keeps HMRC's receipt on a month another instance marked filed by hand while HMRC answered", async () => {
    const p = period(4);
    billPaidOn(inMonth(4), 'Hughes Groundworks Ltd', 250);
    hmrc.setFaults({ answerDelayMs: 3_600_000 });
    const sent = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(sent.json()).toMatchObject({ state: 'sending' });
    // The mark lands between the check and HMRC's answer (another instance, a moment before the send was seen).
    await t.database.db.insert(cisReturnFilings).values({
      organizationId: orgId,
      period: p,
      filedOn: today,
      filedByName: 'owner',
      source: 'manual',
      lines: [],
      totals: { grossAmount: 250, materialsAmount: 0, deductionAmount: 50 },
      deductionPence: 5000,
    });
    hmrc.clearFaults();
    hmrc.release();
    let submission: Submission | null = null;
    await expect
      .poll(
        async () => {
          submission = (await call('GET', `/api/xero/cis/returns/${p}/submission`)).json() as Submission;
          return submission.state;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe('accepted');
    const ret = await getReturn(p, false);
    expect(ret.filing).toMatchObject({
      source: 'manual',
      receipt: { irmark: (submission as Submission | null)?.receipt?.irmark },
    });
  });

  it("applies HMRC's rule for who must be verified: before the next payment (CIS Bills) and for a month's payments (CIS Returns), from payments the cache no longer holds", async () => {
    const year = getTaxYearOf(today);
    const threeYearsAgo = `${year - 3}-07-10`;
    const twoYearsAgo = `${year - 2}-07-10`;
    const old = [
      billPaidOn(threeYearsAgo, 'Coastal Drylining Ltd', 200),
      billPaidOn(twoYearsAgo, 'Bright Spark Electrics', 200),
    ];
    // Counted for the return, then dropped from the cache as its clean-up drops old paid bills (decision 042).
    await getReturn(getPeriodOf(twoYearsAgo));
    await t.database.db
      .delete(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, orgId), inArray(xeroInvoices.invoiceId, old)));

    const now = await statuses();
    expect(now('Coastal Drylining Ltd')).toMatchObject({
      lastPaidOn: threeYearsAgo,
      needsVerification: true,
      reason:
        'Not paid in this tax year or the two before it: HMRC asks for the subcontractor to be verified again.',
    });
    expect(now('Bright Spark Electrics')).toMatchObject({
      lastPaidOn: twoYearsAgo,
      needsVerification: false,
      reason: null,
    });
    expect(now('A. Patel Plastering')).toMatchObject({
      lastPaidOn: null,
      needsVerification: true,
      reason: 'Not paid before: HMRC asks contractors to verify a new subcontractor before paying them.',
    });
    // Paid recently, or verified (a verification counts as the first contact with HMRC): nothing asked.
    expect(now('Hughes Groundworks Ltd')?.needsVerification).toBe(false);
    expect(now('Northside Electrical Ltd')?.needsVerification).toBe(false);
    await verify('A. Patel Plastering');
    expect((await statuses())('A. Patel Plastering')?.needsVerification).toBe(false);

    // For a month's payments: what stood before the month, and verifications made by its end.
    const bright = await statuses(getPeriodOf(twoYearsAgo));
    expect(bright('Bright Spark Electrics')).toMatchObject({
      needsVerification: true,
      reason: expect.stringContaining('Not paid before this month'),
    });
    const hughesFirst = await statuses(period(4));
    expect(hughesFirst('Hughes Groundworks Ltd')?.needsVerification).toBe(true);
    const hughesAgain = await statuses(period(3));
    expect(hughesAgain('Hughes Groundworks Ltd')?.needsVerification).toBe(false);
    // R. Singh was verified today: not by the end of period(2), whose payment came first.
    expect((await statuses(period(2)))('R. Singh Tiling')?.needsVerification).toBe(true);
    expect((await statuses(current))('R. Singh Tiling')?.needsVerification).toBe(false);
  });
});
