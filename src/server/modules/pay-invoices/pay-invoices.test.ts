import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../../shared/pay-invoices';
import { auditLog, organizations, xeroSyncState, xeroWrites } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

type Owner = Awaited<ReturnType<typeof createConnectedUser>>;

/** Xero API calls the sandbox counted for one organisation. */
function callsFor(t: XeroTestApp, tenantId: string): number {
  return t.sandbox.ledger().totals.byTenant[tenantId] ?? 0;
}

function paymentWrites(t: XeroTestApp) {
  return t.sandbox.ledger().writes.filter((w) => w.kind === 'payment');
}

async function openShop(t: XeroTestApp, username: string, email = 'owner@demoshop.example') {
  const user = await createConnectedUser(t, username, { email });
  const shop = user.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
  if (!shop) throw new Error('no shop');
  await enableFeatures(t, shop.organizationId);
  const active = await user.call('POST', '/api/xero/set-active-organization', {
    organizationId: shop.organizationId,
  });
  expect(active.statusCode).toBe(200);
  return { user, shop };
}

function payAs(t: XeroTestApp, cookie: string, app = t.app) {
  return (body: Record<string, unknown>, key?: string) =>
    app.inject({
      method: 'POST',
      url: '/api/xero/payments',
      headers: { cookie, origin: TEST_ORIGIN, ...(key ? { 'idempotency-key': key } : {}) },
      payload: body,
    });
}

function paymentOf(invoice: Invoice, accountId: string, amount: number, isCard: boolean) {
  return {
    invoiceId: invoice.invoiceId,
    invoiceNumber: invoice.invoiceNumber,
    accountId,
    amount,
    reference: `${isCard ? 'Card' : 'Cash'} payment for ${invoice.invoiceNumber}`,
    isCard,
    date: '2026-01-01',
  };
}

describe('Pay Invoices API', { timeout: 90_000 }, () => {
  let t: XeroTestApp;
  let owner: Owner;
  let shopId: number;
  let tenantId: string;
  let invoices: Invoice[];
  let card: string;
  let cash: string;
  let current: string;
  let pay: ReturnType<typeof payAs>;
  /** Hands out a different untouched invoice to each test. */
  let nextIndex = 0;
  const takeInvoice = (predicate: (i: Invoice) => boolean = () => true): Invoice => {
    for (; nextIndex < invoices.length; nextIndex += 1) {
      const candidate = invoices[nextIndex];
      if (candidate && candidate.status !== 'PARTIAL' && predicate(candidate)) {
        nextIndex += 1;
        return candidate;
      }
    }
    throw new Error('ran out of invoices');
  };

  beforeAll(async () => {
    // These tests spend more than Xero's 60 calls a minute between them, and would wait out a minute window
    // (the force refresh waited 55 s); they count calls, not the limit (http.test.ts, shared-gate.test.ts and
    // the sandbox's limits-faults.test.ts keep that), so the limits are raised here as in cis-bills.test.ts.
    t = await createXeroTestApp({
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    const opened = await openShop(t, 'owner');
    owner = opened.user;
    shopId = opened.shop.organizationId;
    tenantId = opened.shop.tenantId;
    pay = payAs(t, owner.cookie);
  });
  afterAll(() => t.close());

  it('lists outstanding sales invoices: the first visit syncs, later visits read the cache, a standard refresh costs one call', async () => {
    const before = callsFor(t, tenantId);
    const first = await owner.call('GET', '/api/xero/invoices');
    expect(first.statusCode).toBe(200);
    invoices = first.json();
    expect(invoices.length).toBeGreaterThan(50);
    for (const invoice of invoices) {
      expect(['AUTHORISED', 'SENT', 'PARTIAL']).toContain(invoice.status);
      expect(invoice.amountDue).toBeGreaterThan(0);
      expect(invoice.currency).toBe('GBP');
    }
    expect(invoices.some((i) => i.status === 'PARTIAL')).toBe(true);
    expect(invoices.some((i) => i.attachments[0]?.attachmentId === 'placeholder')).toBe(true);
    expect(callsFor(t, tenantId) - before).toBe(1);

    const cached = callsFor(t, tenantId);
    expect((await owner.call('GET', '/api/xero/invoices')).json()).toHaveLength(invoices.length);
    expect(callsFor(t, tenantId) - cached).toBe(0);

    const refreshed = await owner.call('GET', '/api/xero/invoices?refresh=true');
    expect(refreshed.json()).toHaveLength(invoices.length);
    expect(callsFor(t, tenantId) - cached).toBe(1);
    // Invoices with nothing paid first, largest first, so each test gets a clean one.
    invoices.sort((a, b) => b.amountDue - a.amountDue);
  });

  it('a refresh another instance finished after this one was asked for serves it; a full resync is not served by an incremental one', async () => {
    // As if another instance's sync, running when this request arrived, let go of the lease just before this
    // instance asked for it: its finish time is after this request's arrival.
    const later = new Date(Date.now() + 60_000);
    const finishedLater = () =>
      t.database.db
        .update(xeroSyncState)
        .set({ lastSyncAt: later })
        .where(
          and(eq(xeroSyncState.organizationId, shopId), eq(xeroSyncState.resource, 'invoices:sales-open')),
        );
    await finishedLater();
    const before = callsFor(t, tenantId);
    expect((await owner.call('GET', '/api/xero/invoices?refresh=true')).statusCode).toBe(200);
    expect(callsFor(t, tenantId) - before).toBe(0);
    const full = await owner.call('POST', '/api/xero/invoices/refresh', {});
    expect(full.statusCode).toBe(200);
    expect(callsFor(t, tenantId) - before).toBeGreaterThan(0);
  });

  it('splits bank accounts into card and cash lists, keyed on AccountID, without archived accounts', async () => {
    const res = await owner.call('GET', '/api/xero/bank-accounts');
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      creditCardAccounts: { accountId: string; name: string }[];
      cashAccounts: { accountId: string; name: string }[];
    };
    expect(body.creditCardAccounts.map((a) => a.name)).toEqual(['Business Credit Card']);
    expect(body.cashAccounts.map((a) => a.name)).toEqual(['Business Current Account', 'Cash']);
    // Xero's own account numbers, as the spec's bank account entity carries them.
    expect(body.creditCardAccounts[0]).toMatchObject({ bankAccountNumber: '4929 **** **** 7781' });
    expect(body.cashAccounts.map((a) => (a as { bankAccountNumber?: string }).bankAccountNumber)).toEqual([
      '20-45-77 43518862',
      'Till float',
    ]);
    card = body.creditCardAccounts[0]?.accountId ?? '';
    current = body.cashAccounts[0]?.accountId ?? '';
    cash = body.cashAccounts[1]?.accountId ?? '';
    const calls = callsFor(t, tenantId);
    await owner.call('GET', '/api/xero/bank-accounts');
    expect(callsFor(t, tenantId) - calls).toBe(0);
    await owner.call('GET', '/api/xero/bank-accounts?refresh=true');
    expect(callsFor(t, tenantId) - calls).toBe(1);
  });

  it('refreshes one invoice with its payments', async () => {
    const partial = invoices.find((i) => i.status === 'PARTIAL');
    if (!partial) throw new Error('no part-paid invoice in the seed');
    const res = await owner.call('GET', `/api/xero/invoices/${partial.invoiceId}?refresh=true`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.message).toBe('Invoice refreshed from Xero');
    expect(body.invoice).toMatchObject({
      invoiceId: partial.invoiceId,
      amountDue: partial.amountDue,
      status: 'PARTIAL',
    });
    expect(body.payments.length).toBeGreaterThan(0);
    const viaPost = await owner.call('POST', '/api/xero/invoices/refresh', { invoiceId: partial.invoiceId });
    expect(viaPost.statusCode).toBe(200);
    expect(viaPost.json().invoice.invoiceId).toBe(partial.invoiceId);
    const missing = await owner.call(
      'GET',
      '/api/xero/invoices/00000000-0000-4000-8000-000000000000?refresh=true',
    );
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Invoice not found in Xero');
    const bad = await owner.call('GET', '/api/xero/invoices/not-a-guid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Invalid invoice ID');
  });

  it('lists attachments and streams their content through the server with the file type', async () => {
    const withFiles = invoices.filter((i) => i.attachments[0]?.attachmentId === 'placeholder');
    const seen = new Set<string>();
    for (const invoice of withFiles.slice(0, 12)) {
      const res = await owner.call('GET', `/api/xero/invoices/${invoice.invoiceId}/attachments`);
      expect(res.statusCode).toBe(200);
      const list = res.json() as { attachmentId: string; name: string; mimeType: string; url: string }[];
      expect(list.length).toBeGreaterThan(0);
      for (const file of list) {
        expect(file.url).toBe(
          `/api/xero/invoices/${invoice.invoiceId}/attachments/${file.attachmentId}/content`,
        );
        if (seen.has(file.mimeType)) continue;
        seen.add(file.mimeType);
        const content = await owner.call('GET', file.url);
        expect(content.statusCode).toBe(200);
        expect(content.headers['content-type']).toContain(file.mimeType);
        expect(content.headers['content-disposition']).toContain('inline');
        // Opened in a tab of its own: the page headers (the API answers' CSP would allow it nothing), never cached.
        expect(String(content.headers['content-security-policy'])).toContain("img-src 'self' data: blob:");
        expect(content.headers['cache-control']).toBe('no-store');
        const bytes = content.rawPayload;
        if (file.mimeType === 'image/png') expect(bytes.subarray(1, 4).toString()).toBe('PNG');
        if (file.mimeType === 'application/pdf') expect(bytes.subarray(0, 4).toString()).toBe('%PDF');
        expect(bytes.toString('latin1')).not.toMatch(/Bearer|access_token/);
        const download = await owner.call('GET', `${file.url}?download=true`);
        expect(download.headers['content-disposition']).toMatch(/^attachment; filename="/);
      }
    }
    expect([...seen].sort()).toEqual(['application/pdf', 'image/png']);
    const unknown = await owner.call(
      'GET',
      `/api/xero/invoices/${withFiles[0]?.invoiceId}/attachments/00000000-0000-4000-8000-000000000000/content`,
    );
    expect(unknown.statusCode).toBe(404);
  });

  it('pays an invoice in full by card: ledger first, Xero once, the cache follows Xero, audited', async () => {
    const invoice = takeInvoice();
    const res = await pay(paymentOf(invoice, card, invoice.amountDue, true), crypto.randomUUID());
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ isInvoiceFullyPaid: true, amountDue: 0 });
    expect(body.paymentId).toMatch(/^[0-9a-f-]{36}$/);
    const written = paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId);
    expect(written).toHaveLength(1);
    expect(written[0]?.summary).toMatchObject({
      accountId: card,
      amount: invoice.amountDue,
      invoiceStatus: 'PAID',
    });
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    expect(list.find((i) => i.invoiceId === invoice.invoiceId)).toBeUndefined();
    const [write] = await t.database.db
      .select()
      .from(xeroWrites)
      .where(eq(xeroWrites.xeroId, body.paymentId));
    expect(write).toMatchObject({ kind: 'payment', state: 'confirmed', targetId: invoice.invoiceId });
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'payment.create'));
    expect(audits.some((a) => a.target === invoice.invoiceId && a.result === 'success')).toBe(true);
  });

  it('pays one invoice with a card part and a cash part in at most 3 Xero calls, as the screen does it', async () => {
    const invoice = takeInvoice((i) => i.amountDue > 20);
    const cardPart = Math.round(invoice.amountDue * 60) / 100;
    const cashPart = Math.round((invoice.amountDue - cardPart) * 100) / 100;
    const before = callsFor(t, tenantId);
    const first = await pay(paymentOf(invoice, card, cardPart, true), crypto.randomUUID());
    expect(first.json()).toMatchObject({ isInvoiceFullyPaid: false, amountDue: cashPart });
    // After each non-last payment the screen refreshes the invoice (docs/product/features.md §4).
    const between = await owner.call('GET', `/api/xero/invoices/${invoice.invoiceId}?refresh=true`);
    expect(between.json().invoice.amountDue).toBe(cashPart);
    const second = await pay(paymentOf(invoice, cash, cashPart, false), crypto.randomUUID());
    expect(second.json()).toMatchObject({ isInvoiceFullyPaid: true, amountDue: 0 });
    expect(callsFor(t, tenantId) - before).toBeLessThanOrEqual(3);
    const written = paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId);
    expect(written.map((w) => [w.summary.accountId, w.summary.amount])).toEqual([
      [card, cardPart],
      [cash, cashPart],
    ]);
  });

  it('pays part of an invoice and lists it as PARTIAL with the new amount due', async () => {
    const invoice = takeInvoice((i) => i.amountDue > 10);
    const res = await pay(paymentOf(invoice, current, 5, false));
    expect(res.json()).toMatchObject({ isInvoiceFullyPaid: false });
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    const after = list.find((i) => i.invoiceId === invoice.invoiceId);
    expect(after).toMatchObject({ status: 'PARTIAL' });
    expect(Math.round((after?.amountDue ?? 0) * 100)).toBe(Math.round(invoice.amountDue * 100) - 500);
  });

  it('refuses more than the amount due (plus the 1p tolerance) and payments on paid invoices, with the texts the screen maps', async () => {
    const invoice = takeInvoice();
    const before = paymentWrites(t).length;
    const over = await pay(paymentOf(invoice, card, Math.round(invoice.amountDue * 100 + 2) / 100, true));
    expect(over.statusCode).toBe(422);
    expect(over.json().message).toContain('exceeds the invoice balance');
    // A penny over is within the tolerance: Xero is sent the amount due and the invoice is paid.
    const penny = await pay(paymentOf(invoice, card, Math.round(invoice.amountDue * 100 + 1) / 100, true));
    expect(penny.statusCode, penny.body).toBe(200);
    expect(penny.json().isInvoiceFullyPaid).toBe(true);
    const again = await pay(paymentOf(invoice, card, 1, true));
    expect(again.statusCode).toBe(422);
    expect(again.json().message).toContain('already fully paid');
    expect(paymentWrites(t).length - before).toBe(1);
  });

  it('answers 4xx with a clear message for bad payment requests, never a 5xx', async () => {
    const invoice = invoices[invoices.length - 1] as Invoice;
    const good = paymentOf(invoice, card, 1, true);
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ ...good, amount: 0 }, 400, /greater than 0/],
      [{ ...good, amount: -5 }, 400, /greater than 0/],
      [{ ...good, amount: 1.005 }, 400, /2 decimals/],
      [{ ...good, invoiceId: '' }, 400, /invoiceId/],
      [{ ...good, extra: true }, 400, /extra|Unrecognized/i],
      [{ ...good, accountId: '00000000-0000-4000-8000-000000000000' }, 400, /cannot take payments/],
      [{ ...good, invoiceId: '00000000-0000-4000-8000-000000000000' }, 404, /Invoice not found/],
    ];
    for (const [body, status, message] of cases) {
      const res = await pay(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().message).toMatch(message);
    }
    const longKey = await pay(good, 'k'.repeat(129));
    expect(longKey.statusCode).toBe(400);
    expect(longKey.json().message).toContain('Idempotency-Key');
  });

  it('replays a repeated Idempotency-Key instead of paying twice, and refuses the key for another payment', async () => {
    const invoice = takeInvoice();
    const key = crypto.randomUUID();
    const body = paymentOf(invoice, card, invoice.amountDue, true);
    const first = await pay(body, key);
    const second = await pay(body, key);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
    const other = await pay({ ...body, amount: 1 }, key);
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toContain('Idempotency-Key');
  });

  it('with Xero applying a payment and then dropping the connection, the retry inside the request does not pay twice', async () => {
    const invoice = takeInvoice();
    t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Payments' });
    try {
      const res = await pay(paymentOf(invoice, card, invoice.amountDue, true), crypto.randomUUID());
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().isInvoiceFullyPaid).toBe(true);
    } finally {
      t.sandbox.clearFaults();
    }
    expect(t.sandbox.ledger().faults.dropped).toBeGreaterThan(0);
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
  });

  it('when the answer is lost for good, the browser retrying with the same key gets the payment Xero has, not a second one', async () => {
    // A second instance that never retries inside a request, so the lost answer reaches the browser.
    const impatient = await createXeroTestApp({
      database: t.database,
      sandboxInstance: t.sandbox,
      xeroHttp: { maxAttempts: 1 },
    });
    try {
      const invoice = takeInvoice();
      const key = crypto.randomUUID();
      const body = paymentOf(invoice, card, invoice.amountDue, true);
      t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Payments' });
      const lost = await payAs(t, owner.cookie, impatient.app)(body, key);
      t.sandbox.clearFaults();
      expect(lost.statusCode).toBe(502);
      expect(lost.json()).toMatchObject({ writeState: 'unknown' });
      expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);

      const retried = await pay(body, key);
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json().isInvoiceFullyPaid).toBe(true);
      const again = await pay(body, key);
      expect(again.json()).toEqual(retried.json());
      expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
      const [write] = await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.idempotencyKey, key));
      expect(write).toMatchObject({ state: 'confirmed', xeroId: retried.json().paymentId });
    } finally {
      t.sandbox.clearFaults();
      await impatient.close();
    }
  });

  it('reconciliation settles a lost payment by looking it up in Xero', async () => {
    const impatient = await createXeroTestApp({
      database: t.database,
      sandboxInstance: t.sandbox,
      xeroHttp: { maxAttempts: 1 },
    });
    try {
      const invoice = takeInvoice();
      const key = crypto.randomUUID();
      t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Payments' });
      const lost = await payAs(t, owner.cookie, impatient.app)(paymentOf(invoice, cash, 3, false), key);
      t.sandbox.clearFaults();
      expect(lost.statusCode).toBe(502);
      const counts = await t.parts.ledger.reconcile(0);
      expect(counts.confirmed).toBeGreaterThanOrEqual(1);
      const [write] = await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.idempotencyKey, key));
      const made = paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId);
      expect(made).toHaveLength(1);
      expect(write).toMatchObject({ state: 'confirmed', xeroId: made[0]?.id });
      // The browser retrying now gets the payment reconciliation found, whichever module's finder found it.
      const retried = await pay(paymentOf(invoice, cash, 3, false), key);
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json()).toMatchObject({ paymentId: made[0]?.id, isInvoiceFullyPaid: false });
      expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
    } finally {
      t.sandbox.clearFaults();
      await impatient.close();
    }
  });

  /** What Xero holds as the invoice's amount due, in pence, asked of Xero itself. */
  async function xeroDuePence(invoiceId: string): Promise<number> {
    const { data } = await t.parts.xeroHttp.send<{ Invoices: Array<{ AmountDue: number }> }>(
      owner.user.id,
      tenantId,
      {
        method: 'GET',
        path: `/api.xro/2.0/Invoices/${invoiceId}`,
      },
    );
    return Math.round((data.Invoices[0]?.AmountDue ?? NaN) * 100);
  }

  /** The amount due the screens show: the single invoice on refresh, and its row in the list. */
  async function shownDuePence(invoiceId: string): Promise<{ single: number; list: number | null }> {
    const single = await owner.call('GET', `/api/xero/invoices/${invoiceId}?refresh=true`);
    expect(single.statusCode, single.body).toBe(200);
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    const row = list.find((i) => i.invoiceId === invoiceId);
    return {
      single: Math.round(single.json().invoice.amountDue * 100),
      list: row ? Math.round(row.amountDue * 100) : null,
    };
  }

  it('a late resend of an old Idempotency-Key after a later payment never rolls the shown balance back', async () => {
    const invoice = takeInvoice((i) => i.amountDue > 20);
    const cardKey = crypto.randomUUID();
    const cardBody = paymentOf(invoice, card, 10, true);
    const first = await pay(cardBody, cardKey);
    expect(first.statusCode, first.body).toBe(200);
    const cashed = await pay(paymentOf(invoice, cash, 3, false), crypto.randomUUID());
    expect(cashed.statusCode, cashed.body).toBe(200);
    const truth = await xeroDuePence(invoice.invoiceId);
    expect(truth).toBe(Math.round(invoice.amountDue * 100) - 1300);

    // A second tab (or a proxy, or a request resumed after a crash) sends the card payment again.
    const late = await pay(cardBody, cardKey);
    expect(late.statusCode, late.body).toBe(200);
    expect(late.json().paymentId).toBe(first.json().paymentId);
    // The answer and every screen tell Xero's balance now, not the one stored with the card payment.
    expect(Math.round(late.json().amountDue * 100)).toBe(truth);
    expect(await shownDuePence(invoice.invoiceId)).toEqual({ single: truth, list: truth });
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(2);

    // Paying what the screen shows settles the invoice, once.
    const rest = await pay(paymentOf(invoice, cash, truth / 100, false), crypto.randomUUID());
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ isInvoiceFullyPaid: true, amountDue: 0 });
    expect(await xeroDuePence(invoice.invoiceId)).toBe(0);
  });

  it('a late resend after the cache was refreshed from Xero and after a restart leaves the newer balance too', async () => {
    const invoice = takeInvoice((i) => i.amountDue > 20);
    const key = crypto.randomUUID();
    const body = paymentOf(invoice, card, 4, true);
    expect((await pay(body, key)).statusCode).toBe(200);
    expect((await pay(paymentOf(invoice, cash, 2, false), crypto.randomUUID())).statusCode).toBe(200);
    const truth = await xeroDuePence(invoice.invoiceId);
    const restarted = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    try {
      const late = await payAs(t, owner.cookie, restarted.app)(body, key);
      expect(late.statusCode, late.body).toBe(200);
      expect(Math.round(late.json().amountDue * 100)).toBe(truth);
    } finally {
      await restarted.close();
    }
    expect(await shownDuePence(invoice.invoiceId)).toEqual({ single: truth, list: truth });
  });

  it('refuses a new payment on an invoice whose earlier payment is still on its way to Xero, with a clear message', async () => {
    const invoice = takeInvoice((i) => i.amountDue > 20);
    // Another tab's payment: recorded and sent, Xero's answer not back yet.
    await t.database.db.insert(xeroWrites).values({
      organizationId: shopId,
      userId: owner.user.id,
      kind: 'payment',
      idempotencyKey: `in-flight-${invoice.invoiceId}`,
      fingerprint: 'x',
      targetId: invoice.invoiceId,
      amountPence: 500,
      state: 'sent',
      sentAt: new Date(),
      request: { invoiceId: invoice.invoiceId, accountId: cash, date: '2026-01-01' },
    });
    const calls = callsFor(t, tenantId);
    const refused = await pay(paymentOf(invoice, cash, 5, false), crypto.randomUUID());
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      // One writer per invoice (issue 28): the refusal names who is paying; this row names nobody.
      `${invoice.invoiceNumber} is being paid by another user; try again in a moment.`,
    );
    expect(callsFor(t, tenantId)).toBe(calls);
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(0);

    // Its answer was lost and Xero never got it: the next payment settles it by look-up, then goes ahead.
    await t.database.db
      .update(xeroWrites)
      .set({ state: 'unknown' })
      .where(eq(xeroWrites.idempotencyKey, `in-flight-${invoice.invoiceId}`));
    const next = await pay(paymentOf(invoice, cash, 5, false), crypto.randomUUID());
    expect(next.statusCode, next.body).toBe(200);
    const [settled] = await t.database.db
      .select()
      .from(xeroWrites)
      .where(eq(xeroWrites.idempotencyKey, `in-flight-${invoice.invoiceId}`));
    expect(settled?.state).toBe('failed');
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
  });

  it("two payments on one invoice at the same moment: each is sent or refused as busy, Xero holds the ones answered 200, the balance shown is Xero's", async () => {
    const invoice = takeInvoice((i) => i.amountDue > 20);
    const [a, b] = await Promise.all([
      pay(paymentOf(invoice, cash, 2, false), crypto.randomUUID()),
      pay(paymentOf(invoice, card, 3, true), crypto.randomUUID()),
    ]);
    const statuses = [a?.statusCode, b?.statusCode].sort();
    const made = paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId);
    expect(made).toHaveLength(statuses.filter((s) => s === 200).length);
    for (const s of statuses) expect([200, 409]).toContain(s);
    const truth = await xeroDuePence(invoice.invoiceId);
    expect(await shownDuePence(invoice.invoiceId)).toEqual({ single: truth, list: truth });
  });

  it("a payment whose answer was lost is read back before the next one: the balance shown is Xero's, and it is logged once", async () => {
    const impatient = await createXeroTestApp({
      database: t.database,
      sandboxInstance: t.sandbox,
      xeroHttp: { maxAttempts: 1 },
    });
    try {
      const invoice = takeInvoice((i) => i.amountDue > 20);
      const key = crypto.randomUUID();
      t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Payments' });
      const lost = await payAs(t, owner.cookie, impatient.app)(paymentOf(invoice, cash, 7, false), key);
      t.sandbox.clearFaults();
      expect(lost.statusCode).toBe(502);
      const truth = await xeroDuePence(invoice.invoiceId);
      expect(truth).toBe(Math.round(invoice.amountDue * 100) - 700);
      // The screen refreshes the invoice: Xero's balance, with the lost cash in it.
      expect((await shownDuePence(invoice.invoiceId)).single).toBe(truth);
      // The user pays the balance the screen showed before: refused, nothing paid twice.
      const again = await pay(paymentOf(invoice, cash, invoice.amountDue, false), crypto.randomUUID());
      expect(again.statusCode).toBe(422);
      expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
      const [write] = await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.idempotencyKey, key));
      expect(write?.state).toBe('confirmed');
      const retried = await pay(paymentOf(invoice, cash, 7, false), key);
      expect(retried.statusCode, retried.body).toBe(200);
      await t.parts.ledger.reconcile(0);
      const lines = (
        await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'payment.create'))
      ).filter((l) => (l.detail as { writeId?: number } | null)?.writeId === write?.id);
      expect(lines.map((l) => [l.result, l.username])).toEqual([['success', 'owner']]);
    } finally {
      t.sandbox.clearFaults();
      await impatient.close();
    }
  });

  it('one finder per kind of write: registering a second one fails', () => {
    expect(() => t.parts.ledger.registerFinder('payment', async () => null, 'find')).toThrow(
      /already registered/,
    );
  });

  it('undoes a payment just made by this user, once, and only within the window', async () => {
    const invoice = takeInvoice();
    const paid = (await pay(paymentOf(invoice, card, invoice.amountDue, true), crypto.randomUUID())).json();
    const calls = callsFor(t, tenantId);
    const undo = await owner.call('POST', `/api/xero/payments/${paid.paymentId}/undo`);
    expect(undo.statusCode, undo.body).toBe(200);
    expect(undo.json()).toMatchObject({ invoiceId: invoice.invoiceId, amountDue: invoice.amountDue });
    expect(callsFor(t, tenantId) - calls).toBe(1);
    expect(
      t.sandbox
        .ledger()
        .writes.filter((w) => w.kind === 'payment' && w.action === 'delete' && w.id === paid.paymentId),
    ).toHaveLength(1);
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    expect(list.find((i) => i.invoiceId === invoice.invoiceId)?.amountDue).toBe(invoice.amountDue);
    // A second Undo replays the first answer; Xero is not asked again.
    const twice = await owner.call('POST', `/api/xero/payments/${paid.paymentId}/undo`);
    expect(twice.statusCode).toBe(200);
    expect(
      t.sandbox.ledger().writes.filter((w) => w.action === 'delete' && w.id === paid.paymentId),
    ).toHaveLength(1);

    const later = takeInvoice();
    const old = (await pay(paymentOf(later, card, 2, true))).json();
    await t.database.db
      .update(xeroWrites)
      .set({ completedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(xeroWrites.xeroId, old.paymentId));
    const tooLate = await owner.call('POST', `/api/xero/payments/${old.paymentId}/undo`);
    expect(tooLate.statusCode).toBe(409);
    expect(tooLate.json().message).toContain('can no longer be undone');
    const unknown = await owner.call('POST', '/api/xero/payments/00000000-0000-4000-8000-000000000000/undo');
    expect(unknown.statusCode).toBe(404);
  });

  it('keeps organisations apart: another user cannot read or pay what is not theirs', async () => {
    const colleague = await openShop(t, 'colleague', 'staff@demoshop.example');
    const invoice = takeInvoice();
    const paid = (await pay(paymentOf(invoice, card, 1, true))).json();
    const notTheirs = await colleague.user.call('POST', `/api/xero/payments/${paid.paymentId}/undo`);
    expect(notTheirs.statusCode).toBe(403);

    const stranger = await createConnectedUser(t, 'stranger', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    const builders = stranger.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, builders);
    const asStranger = payAs(t, stranger.cookie);
    for (const [method, url] of [
      ['GET', `/api/xero/invoices?org=${shopId}`],
      ['GET', `/api/xero/bank-accounts?org=${shopId}`],
      ['GET', `/api/xero/invoices/${invoice.invoiceId}?org=${shopId}`],
    ] as const) {
      const res = await stranger.call(method, url);
      expect(res.statusCode, url).toBe(403);
      expect(res.body).not.toContain(invoice.invoiceNumber);
    }
    // Their own organisation has no such invoice or payment.
    expect((await stranger.call('GET', `/api/xero/invoices/${invoice.invoiceId}`)).statusCode).toBe(404);
    expect(
      (await stranger.call('GET', `/api/xero/invoices/${invoice.invoiceId}/attachments`)).statusCode,
    ).toBe(404);
    expect((await stranger.call('POST', `/api/xero/payments/${paid.paymentId}/undo`)).statusCode).toBe(404);
    const theft = await asStranger(paymentOf(invoice, card, 1, true));
    expect(theft.statusCode).toBeGreaterThanOrEqual(400);
    expect(theft.statusCode).toBeLessThan(500);
    expect(paymentWrites(t).filter((w) => w.summary.invoiceId === invoice.invoiceId)).toHaveLength(1);
  });

  it('refuses every endpoint with 403 when the feature is switched off', async () => {
    await t.database.db
      .update(organizations)
      .set({ featurePayInvoices: false })
      .where(eq(organizations.id, shopId));
    try {
      const invoice = invoices[0] as Invoice;
      const requests: ['GET' | 'POST', string, unknown?][] = [
        ['GET', '/api/xero/invoices'],
        ['GET', '/api/xero/invoices?refresh=true'],
        ['POST', '/api/xero/invoices/refresh'],
        ['GET', `/api/xero/invoices/${invoice.invoiceId}?refresh=true`],
        ['GET', `/api/xero/invoices/${invoice.invoiceId}/attachments`],
        ['GET', '/api/xero/bank-accounts'],
        ['POST', '/api/xero/payments', paymentOf(invoice, card, 1, true)],
        ['POST', '/api/xero/payments/00000000-0000-4000-8000-000000000000/undo'],
      ];
      for (const [method, url, body] of requests) {
        const res = await owner.call(method, url, body);
        expect(res.statusCode, url).toBe(403);
        expect(res.json().message).toBe(
          'Pay Invoices is disabled for this organization. Please contact an administrator to enable it.',
        );
      }
    } finally {
      await t.database.db
        .update(organizations)
        .set({ featurePayInvoices: true })
        .where(eq(organizations.id, shopId));
    }
  });

  it('a force refresh drops the cache, reads the view again and returns the count', async () => {
    const res = await owner.call('POST', '/api/xero/invoices/refresh');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const list = (await owner.call('GET', '/api/xero/invoices')).json() as Invoice[];
    expect(body).toEqual({ count: list.length, message: `${list.length} invoices loaded from Xero` });
    expect(list.length).toBeGreaterThan(50);
  });

  it('asks for sign-in first', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/xero/invoices' });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('Not authenticated');
  });
});
