import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHmrcSandbox, type HmrcSandbox } from '../../../sandbox/hmrc/hmrc-sandbox';
import {
  getPeriodOf,
  getTaxMonth,
  shiftPeriod,
  type CisMonthsResponse,
  type CisReturn,
} from '../../../shared/cis-returns';
import { addDays, getUkToday } from '../../../shared/dates';
import type { Submission, Verification } from '../../../shared/hmrc-filing';
import { auditLog, hmrcCredentials, hmrcSubmissions, users } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { register } from '../../test/session';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Filing with HMRC (issue 43) end to end through the routes: Ledgerlink against the built-in HMRC sandbox (its
 * own IRmark check and rules) and the Xero sandbox, every answer kind HMRC gives, lost answers, two administrators
 * at once, a rejected return fixed and sent again, statements by email into the outbox.
 */
describe('filing with HMRC (issue 43)', () => {
  let t: XeroTestApp;
  let hmrc: HmrcSandbox;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let bella: Awaited<ReturnType<typeof createConnectedUser>>;
  let stranger: Awaited<ReturnType<typeof createConnectedUser>>;
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

  /** A CIS bill entered in Xero for a month and paid in it: labour (and materials) on Xero's CIS accounts. */
  function billPaidIn(back: number, name: string, labour: number, materials = 0) {
    const month = getTaxMonth(period(back));
    const day = addDays(month.start, 2);
    const bill = t.sandbox.enterBill({
      contactId: subs[name] ?? '',
      date: day,
      reference: `B-${back}-${name.slice(0, 3)}`,
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Labour', unitAmount: labour, accountCode: '327' },
        ...(materials ? [{ description: 'Materials', unitAmount: materials, accountCode: '328' }] : []),
      ],
    });
    t.sandbox.payInvoice(bill.invoiceId, { amount: bill.amountDue, date: day });
  }

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
    const builders = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!builders) throw new Error('seed changed');
    // Only this suite's bills: the seed's history stays out of the returns filed here.
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
    orgId = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    await enableFeatures(t, orgId);

    const scheme = hmrc.scheme;
    const call = callAs(owner.cookie);
    expect(
      (
        await call('PUT', '/api/xero/cis/settings', {
          contractorName: null,
          utr: scheme.utr,
          employerReference: `${scheme.taxOfficeNumber}/${scheme.taxOfficeReference}`,
          accountsOfficeReference: scheme.accountsOfficeReference,
          materialsAccountCodes: [],
        })
      ).statusCode,
    ).toBe(200);
    for (const name of [
      'Hughes Groundworks Ltd',
      'Stone & Sons Brickwork',
      'Northside Electrical Ltd',
      'A. Patel Plastering',
    ]) {
      const registered = hmrc.register().find((r) => r.name === name);
      const res = await call('PUT', `/api/xero/cis/subcontractors/${subs[name]}`, {
        utr: registered?.utr,
        verificationNumber: null,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
    await hmrc.close();
  });

  it('keeps the Government Gateway credentials encrypted, sets them for administrators only, never answers them', async () => {
    const refused = await callAs(bella.cookie)('PUT', '/api/xero/cis/hmrc/credentials', {
      userId: 'X',
      password: 'Y',
    });
    expect(refused.statusCode).toBe(403);
    const saved = await callAs(owner.cookie)('PUT', '/api/xero/cis/hmrc/credentials', {
      userId: hmrc.scheme.senderId,
      password: hmrc.scheme.password,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      configured: true,
      userIdHint: '••••RS01',
      endpoint: 'custom',
      gatewayTest: true,
      mail: 'outbox',
    });
    expect(saved.body).not.toContain(hmrc.scheme.password);
    expect(saved.body).not.toContain(hmrc.scheme.senderId);
    const [row] = await t.database.db
      .select()
      .from(hmrcCredentials)
      .where(eq(hmrcCredentials.organizationId, orgId));
    expect(JSON.stringify(row)).not.toContain(hmrc.scheme.password);
    expect(JSON.stringify(row)).not.toContain(hmrc.scheme.senderId);
    expect(row?.passwordEnc).toMatch(/^v1\./);
  });

  it('verifies subcontractors: matched at 20 %, gross at 0 %, unmatched at 30 % with a lettered number; says where Xero disagrees', async () => {
    const call = callAs(bella.cookie);
    const hughes = await call(
      'POST',
      `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}/verification`,
      { type: 'company' },
    );
    expect(hughes.statusCode, hughes.body).toBe(200);
    expect(hughes.json()).toMatchObject({
      matched: true,
      rate: 20,
      taxTreatment: 'net',
      verifiedBy: 'bella',
      xeroRate: 20,
      disagreesWithXero: false,
    });
    expect((hughes.json() as Verification).verificationNumber).toMatch(/^V\d{10}$/);

    const stone = await call(
      'POST',
      `/api/xero/cis/subcontractors/${subs['Stone & Sons Brickwork']}/verification`,
      {},
    );
    expect(stone.statusCode, stone.body).toBe(200);
    expect(stone.json()).toMatchObject({
      matched: false,
      rate: 30,
      taxTreatment: 'unmatched',
      xeroRate: 30,
      disagreesWithXero: false,
    });
    expect((stone.json() as Verification).verificationNumber).toMatch(/^V\d{10}[A-Z]$/);

    // HMRC now has Northside at the standard rate, while Xero's contact says gross (0 %): the answer says so.
    const northside = hmrc.register().find((r) => r.name === 'Northside Electrical Ltd');
    await fetch(`${hmrc.url}/__hmrc/subcontractors`, {
      method: 'POST',
      body: JSON.stringify({ ...northside, treatment: 'net' }),
    });
    const ns = await call(
      'POST',
      `/api/xero/cis/subcontractors/${subs['Northside Electrical Ltd']}/verification`,
      {},
    );
    expect(ns.json()).toMatchObject({ matched: true, rate: 20, xeroRate: 0, disagreesWithXero: true });

    // Kept: the list shows it, the verified rate is what the deduction reads, and the activity log says who asked.
    const list = await call('GET', '/api/xero/cis/subcontractors/verifications');
    const listed = (
      list.json() as { subcontractors: Array<{ name: string; verification: Verification | null }> }
    ).subcontractors;
    expect(listed.find((s) => s.name === 'Hughes Groundworks Ltd')?.verification?.rate).toBe(20);
    const lines = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'hmrc.subcontractor-verified'));
    expect(lines.filter((l) => l.result === 'success').map((l) => l.username)).toEqual([
      'bella',
      'bella',
      'bella',
    ]);
    expect(hmrc.filed().filter((f) => f.kind === 'verification')).toHaveLength(3);
  });

  it("says HMRC's refusals in words, for each kind of error, and a test without a receipt is still an answer", async () => {
    const call = callAs(bella.cookie);
    const patel = subs['A. Patel Plastering'];
    for (const [kind, words] of [
      ['auth', /Government Gateway user ID or password/],
      ['fatal', /does not follow HMRC’s format/],
      ['irmark', /IRmark does not match/],
      ['business', /employer reference/],
      ['recoverable-1000', /HMRC's system failed.*send it again/],
      ['recoverable-2005', /may or may not have been received/],
      ['recoverable-3000', /HMRC's system failed while processing/],
    ] as const) {
      hmrc.setFaults({ nextAnswer: kind });
      const res = await call('POST', `/api/xero/cis/subcontractors/${patel}/verification`, {
        firstName: 'A',
        surname: 'Patel Plastering',
      });
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(422);
      expect((res.json() as { message: string }).message, kind).toMatch(words);
    }
    hmrc.setFaults({ nextAnswer: 'no-receipt' });
    const ok = await call('POST', `/api/xero/cis/subcontractors/${patel}/verification`, {});
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ matched: true, rate: 20 });
  });

  it('answers "sending" while HMRC is slow, and the answer when it comes', async () => {
    const call = callAs(bella.cookie);
    hmrc.setFaults({ answerDelayMs: 3_600_000 });
    const res = await call(
      'POST',
      `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}/verification`,
      {},
      { 'idempotency-key': 'slow-1' },
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ state: 'sending' });
    // A double click (same key) and another person (another key) meet the same verification.
    expect(
      (
        await call(
          'POST',
          `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}/verification`,
          {},
          { 'idempotency-key': 'slow-1' },
        )
      ).statusCode,
    ).toBe(202);
    expect(
      (
        await callAs(owner.cookie)(
          'POST',
          `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}/verification`,
          {},
        )
      ).statusCode,
    ).toBe(202);
    hmrc.clearFaults();
    hmrc.release();
    const done = await call(
      'GET',
      `/api/xero/cis/subcontractors/${subs['Hughes Groundworks Ltd']}/verification`,
    );
    expect(done.statusCode, done.body).toBe(200);
    expect(
      hmrc.messages().filter((m) => m.messageClass === 'IR-CIS-VERIFY' && m.outcome === 'accepted').length,
    ).toBe(5);
  });

  it('sends the month: accepted with the receipt, marked filed, and never filed twice whoever sends again', async () => {
    billPaidIn(1, 'Hughes Groundworks Ltd', 1000.5);
    billPaidIn(1, 'Stone & Sons Brickwork', 600, 150);
    const call = callAs(bella.cookie);
    const p = period(1);
    const ret = (await call('GET', `/api/xero/cis/returns?period=${p}&refresh=true`)).json() as CisReturn;
    expect(ret.lines.map((l) => l.name)).toEqual(['Hughes Groundworks Ltd', 'Stone & Sons Brickwork']);

    const notTicked = await call('POST', `/api/xero/cis/returns/${p}/submission`, {
      declarations: { ...declarations, verification: false },
    });
    expect(notTicked.statusCode).toBe(422);
    expect(notTicked.json()).toMatchObject({ message: expect.stringContaining('verified with HMRC') });
    expect(hmrc.messages().filter((m) => m.messageClass === 'IR-CIS-CIS300MR')).toHaveLength(0);

    const sent = await call(
      'POST',
      `/api/xero/cis/returns/${p}/submission`,
      { declarations },
      { 'idempotency-key': 'send-1' },
    );
    expect(sent.statusCode, sent.body).toBe(200);
    const submission = sent.json() as Submission;
    expect(submission).toMatchObject({
      state: 'accepted',
      period: p,
      nil: false,
      gatewayTest: true,
      submittedBy: 'bella',
    });
    expect(submission.receipt?.irmark).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(submission.receipt?.hmrcIrmark).toBe(submission.receipt?.irmark);
    expect(submission.receipt?.timestamp).toBeTruthy();
    expect(submission.correction).toContain('CIS online service');
    // What HMRC holds: payments and materials in whole pounds, the deduction in pence, Stone's verification number.
    const [filed] = filedFor(p);
    const stoneNumber = (
      (
        await call('GET', `/api/xero/cis/subcontractors/${subs['Stone & Sons Brickwork']}/verification`)
      ).json() as Verification
    ).verificationNumber;
    expect(filed?.return?.subcontractors).toEqual([
      expect.objectContaining({
        name: 'Hughes Groundworks Ltd',
        payments: `${Math.floor(ret.lines[0]?.grossAmount ?? 0)}.00`,
        deducted: (ret.lines[0]?.deductionAmount ?? 0).toFixed(2),
      }),
      expect.objectContaining({ name: 'Stone & Sons Brickwork', verificationNumber: stoneNumber }),
    ]);

    // The month is filed on the months list and the return, with the receipt kept.
    const months = (await call('GET', '/api/xero/cis/months')).json() as CisMonthsResponse;
    expect(months.months.find((m) => m.period === p)?.state).toBe('filed');
    // Sent again (a double click, another key, another person): the first submission's outcome, nothing new sent.
    for (const [who, key] of [
      [bella, 'send-1'],
      [bella, 'send-2'],
      [owner, 'send-3'],
    ] as const) {
      const again = await callAs(who.cookie)(
        'POST',
        `/api/xero/cis/returns/${p}/submission`,
        { declarations },
        { 'idempotency-key': key },
      );
      expect(again.json()).toMatchObject({ id: submission.id, state: 'accepted' });
    }
    expect(filedFor(p)).toHaveLength(1);
    const got = await call('GET', `/api/xero/cis/returns/${p}/submission`);
    expect(got.json()).toMatchObject({ id: submission.id, state: 'accepted', receipt: submission.receipt });
    // The activity log: sending, then accepted with the receipt.
    const lines = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.target, p)));
    expect(lines.map((l) => l.action)).toEqual(
      expect.arrayContaining(['hmrc.return-sending', 'hmrc.return-accepted', 'cis-returns.filed']),
    );
    // The message kept is without the password.
    const [row] = await t.database.db
      .select()
      .from(hmrcSubmissions)
      .where(eq(hmrcSubmissions.id, submission.id));
    expect(row?.requestXml).not.toContain(hmrc.scheme.password);
    expect(row?.requestXml).toContain('<Value>[redacted]</Value>');
  });

  it('a rejected return says why in words, and once fixed is sent again and accepted', async () => {
    billPaidIn(2, 'Hughes Groundworks Ltd', 400);
    const p = period(2);
    const call = callAs(bella.cookie);
    hmrc.setFaults({ nextAnswer: 'business' });
    const rejected = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({
      state: 'rejected',
      errors: [
        expect.objectContaining({ number: '5005', message: expect.stringContaining('employer reference') }),
      ],
    });
    expect((await call('GET', '/api/xero/cis/months')).json()).toMatchObject({
      months: expect.arrayContaining([
        expect.objectContaining({ period: p, state: expect.not.stringMatching('filed') }),
      ]),
    });
    const fixed = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
    expect(fixed.json()).toMatchObject({ state: 'accepted' });
    expect((fixed.json() as Submission).id).not.toBe((rejected.json() as Submission).id);
    expect(filedFor(p)).toHaveLength(1);
  });

  it('two administrators at once: one return reaches HMRC and both see its outcome', async () => {
    billPaidIn(3, 'Hughes Groundworks Ltd', 300);
    const p = period(3);
    // Names of their own each attempt (CI retries a failed test on the same database).
    const suffix = Date.now().toString(36);
    const second = await register(t.app, `second-admin-${suffix}`);
    await t.database.db.update(users).set({ isAdmin: true }).where(eq(users.id, second.user.id));
    const secondAdmin = await createConnectedUser(t, `second-admin-x-${suffix}`);
    await t.database.db
      .update(users)
      .set({ isAdmin: true })
      .where(eq(users.username, `second-admin-x-${suffix}`));
    const [a, b] = await Promise.all([
      callAs(owner.cookie)(
        'POST',
        `/api/xero/cis/returns/${p}/submission`,
        { declarations },
        { 'idempotency-key': 'admin-a' },
      ),
      callAs(secondAdmin.cookie)(
        'POST',
        `/api/xero/cis/returns/${p}/submission`,
        { declarations },
        { 'idempotency-key': 'admin-b' },
      ),
    ]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    expect((a.json() as Submission).id).toBe((b.json() as Submission).id);
    expect(a.json()).toMatchObject({ state: 'accepted' });
    expect(filedFor(p)).toHaveLength(1);
  });

  it('an acknowledgement or an answer lost on the way is found again, never sent twice', async () => {
    const call = callAs(bella.cookie);
    for (const [back, drop] of [
      [4, 'ack'],
      [5, 'answer'],
    ] as const) {
      billPaidIn(back, 'Hughes Groundworks Ltd', 250);
      const p = period(back);
      hmrc.setFaults({ dropNext: drop });
      const first = await call('POST', `/api/xero/cis/returns/${p}/submission`, { declarations });
      expect(first.statusCode, first.body).toBe(200);
      await expect
        .poll(
          async () =>
            ((await call('GET', `/api/xero/cis/returns/${p}/submission`)).json() as Submission).state,
          { timeout: 30_000, interval: 500 },
        )
        .toBe('accepted');
      expect(filedFor(p), drop).toHaveLength(1);
    }
  });

  it('a nil month with "scheme inactive", and a month not ended cannot be sent', async () => {
    const call = callAs(bella.cookie);
    const p = period(6);
    const nil = await call('POST', `/api/xero/cis/returns/${p}/submission`, {
      declarations: { employmentStatus: false, verification: false, informationCorrect: true },
      inactive: true,
    });
    expect(nil.json()).toMatchObject({ state: 'accepted', nil: true, inactive: true, lines: [] });
    expect(filedFor(p)[0]?.return).toMatchObject({ nil: true, inactive: true });
    const now = await call('POST', `/api/xero/cis/returns/${current}/submission`, { declarations });
    expect(now.statusCode).toBe(422);
  });

  it("emails a subcontractor's statement to the address Xero holds, into the outbox, with the activity log", async () => {
    const call = callAs(bella.cookie);
    const p = period(1);
    const sent = await call(
      'POST',
      `/api/xero/cis/statements/${subs['Hughes Groundworks Ltd']}/email?period=${p}`,
    );
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({
      to: 'accounts@hughes.groundworks.ltd.example',
      via: 'outbox',
      sentBy: 'bella',
    });
    const outbox = (await call('GET', '/api/xero/cis/outbox')).json() as {
      messages: Array<{ id: number; to: string; subject: string; attachments: Array<{ filename: string }> }>;
    };
    const message = outbox.messages[0];
    expect(message).toMatchObject({
      to: 'accounts@hughes.groundworks.ltd.example',
      subject: expect.stringContaining('CIS payment and deduction statement'),
    });
    const pdf = await call('GET', `/api/xero/cis/outbox/${message?.id}/attachments/0`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // Another organisation's member cannot open it, naming this organisation or their own.
    expect(
      (await callAs(stranger.cookie)('GET', `/api/xero/cis/outbox/${message?.id}/attachments/0`)).statusCode,
    ).toBe(403);
    const strangerOrg = stranger.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, strangerOrg);
    const own = await t.app.inject({
      method: 'GET',
      url: `/api/xero/cis/outbox/${message?.id}/attachments/0?org=${strangerOrg}`,
      headers: { cookie: stranger.cookie, origin: TEST_ORIGIN },
    });
    expect(own.statusCode).toBe(404);
    const emails = (await call('GET', `/api/xero/cis/statements/emails?period=${p}`)).json() as {
      emails: Array<{ to: string }>;
    };
    expect(emails.emails.map((e) => e.to)).toEqual(['accounts@hughes.groundworks.ltd.example']);
    const [line] = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'cis-returns.statement-emailed'));
    expect(line?.detail).toMatchObject({ period: p, to: 'accounts@hughes.groundworks.ltd.example' });
    // No address in Xero: said so, nothing sent.
    t.sandbox.editContact(subs['Stone & Sons Brickwork'] ?? '', { email: '' });
    const none = await call(
      'POST',
      `/api/xero/cis/statements/${subs['Stone & Sons Brickwork']}/email?period=${p}`,
    );
    expect(none.statusCode, none.body).toBe(422);
    expect(none.json()).toMatchObject({
      message: expect.stringContaining('Xero holds no email address for Stone & Sons Brickwork'),
    });
  });

  it('shows what is due and when', async () => {
    const res = await callAs(bella.cookie)('GET', '/api/xero/cis/deadlines');
    expect(res.statusCode, res.body).toBe(200);
    const p = period(1);
    expect(res.json()).toMatchObject({
      period: p,
      returnDueDate: getTaxMonth(p).dueDate,
      state: 'filed',
      reminderDate: addDays(getTaxMonth(p).dueDate, -5),
    });
  });

  it("another organisation's member is refused, whatever organisation they name", async () => {
    const res = await callAs(stranger.cookie)('POST', `/api/xero/cis/returns/${period(1)}/submission`, {
      declarations,
    });
    expect(res.statusCode).toBe(403);
  });
});
