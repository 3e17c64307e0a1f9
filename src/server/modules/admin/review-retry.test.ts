import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUkToday } from '../../../shared/dates';
import type { Invoice } from '../../../shared/pay-invoices';
import { auditLog, xeroWrites } from '../../db/schema/index';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { fingerprintOf, RETRY_REFUSED_FOUND, type WriteAudit } from '../../ledger/index';

/**
 * "Send again" on the administrators' review list (issue 20 part 4) against the sandbox: a payment held for
 * review that Xero does not have goes to Xero once, through Pay Invoices' own checks, and the held write
 * ends naming the new one; a second click sends nothing; one Xero already has is never sent again.
 */
describe('Admin review list: send a held payment again', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let cash: string;
  let invoices: Invoice[];

  const paymentsInXero = (invoiceId: string) =>
    t.sandbox
      .ledger()
      .writes.filter(
        (w) =>
          w.kind === 'payment' &&
          w.action === 'create' &&
          String(w.summary.invoiceId).toLowerCase() === invoiceId.toLowerCase(),
      );

  /** A payment the ledger ended as needs_review, as a write whose outcome could not be told leaves it. */
  async function heldPayment(invoice: Invoice, pence: number, key: string): Promise<number> {
    const request = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: cash,
      amount: pence / 100,
      // Pay Invoices dates every payment today (UK), whatever the browser sends.
      date: getUkToday(),
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
      requestedPence: pence,
    };
    const audit: WriteAudit = {
      action: 'payment.create',
      target: invoice.invoiceId,
      username: 'owner',
      detail: { amountPence: pence },
    };
    const [row] = await t.database.db
      .insert(xeroWrites)
      .values({
        organizationId: shopId,
        userId: owner.user.id,
        kind: 'payment',
        idempotencyKey: key,
        fingerprint: fingerprintOf('payment', request),
        targetId: invoice.invoiceId,
        amountPence: pence,
        request,
        audit,
        state: 'needs_review',
        attempts: 1,
        sentAt: new Date(Date.now() - 10 * 60_000),
        error: 'Outcome unknown: please check this in Xero.',
      })
      .returning();
    return row?.id ?? 0;
  }

  const dueOf = async (invoiceId: string) => {
    const res = await owner.call('GET', `/api/xero/invoices/${invoiceId}?refresh=true`);
    return Math.round((res.json() as { invoice: { amountDue: number } }).invoice.amountDue * 100);
  };

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('no shop');
    shopId = shop.organizationId;
    await enableFeatures(t, shopId);
    expect(
      (await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId })).statusCode,
    ).toBe(200);
    invoices = ((await owner.call('GET', '/api/xero/invoices')).json() as Invoice[])
      .filter((i) => i.status !== 'PARTIAL' && i.amountDue > 50)
      .sort((a, b) => b.amountDue - a.amountDue);
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      cashAccounts: Array<{ accountId: string; name: string }>;
    };
    cash =
      (accounts.cashAccounts.find((a) => /cash/i.test(a.name)) ?? accounts.cashAccounts[0])?.accountId ?? '';
  });
  afterAll(() => t.close());

  it('sends a payment Xero does not have once, through Pay Invoices, and a second click sends nothing', async () => {
    const invoice = invoices[0];
    if (!invoice) throw new Error('no invoice');
    const dueBefore = await dueOf(invoice.invoiceId);
    const id = await heldPayment(invoice, 1_234, 'held-missing');

    const look = await owner.call('GET', `/api/admin/writes/${id}`);
    expect(look.json()).toMatchObject({ id, canRetry: true, xero: { status: 'missing' } });

    const retried = await owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });
    expect(retried.statusCode).toBe(200);
    const body = retried.json() as {
      state: string;
      error: string;
      retriedAs: { writeId: number; xeroId: string };
    };
    expect(body.state).toBe('failed');
    expect(body.error).toBe(`Sent again by owner as write ${body.retriedAs.writeId}.`);
    const inXero = paymentsInXero(invoice.invoiceId);
    expect(inXero).toHaveLength(1);
    expect(inXero[0]?.id.toLowerCase()).toBe(body.retriedAs.xeroId.toLowerCase());
    expect(await dueOf(invoice.invoiceId)).toBe(dueBefore - 1_234);
    const newWrite = await t.parts.ledger.findById(body.retriedAs.writeId);
    expect(newWrite).toMatchObject({ state: 'confirmed', kind: 'payment', amountPence: 1_234 });

    // The activity log: the held attempt failed (never in Xero), the new one succeeded, and the retry is named.
    const lines = (await t.database.db.select().from(auditLog)).filter(
      (l) =>
        l.target?.toLowerCase() === invoice.invoiceId.toLowerCase() ||
        (l.detail as { writeId?: number } | null)?.writeId === id,
    );
    expect(
      lines
        .filter((l) => l.action === 'payment.create')
        .map((l) => [l.result, (l.detail as { writeId: number }).writeId]),
    ).toEqual(
      expect.arrayContaining([
        ['failure', id],
        ['success', body.retriedAs.writeId],
      ]),
    );
    const settle = lines.filter((l) => l.action === 'admin.write.settle');
    expect(settle).toHaveLength(1);
    expect(settle[0]?.detail).toMatchObject({
      action: 'retry',
      retriedAs: { writeId: body.retriedAs.writeId },
      after: { state: 'failed' },
    });

    // A second click (or a second administrator): the write is settled, nothing more goes to Xero.
    const again = await owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });
    expect(again.statusCode).toBe(409);
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
  });

  it('two administrators clicking "Send again" at once send one payment', async () => {
    const invoice = invoices[3];
    if (!invoice) throw new Error('no invoice');
    const id = await heldPayment(invoice, 2_020, 'held-twice');
    const both = await Promise.all([
      owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' }),
      owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' }),
    ]);
    expect(both.map((r) => r.statusCode)).toContain(200);
    for (const r of both) expect(r.statusCode).toBeLessThan(500);
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
    expect((await t.parts.ledger.findById(id))?.state).toBe('failed');
  });

  it('refuses to send again a payment Xero already has, and sends nothing', async () => {
    const invoice = invoices[1];
    if (!invoice) throw new Error('no invoice');
    const paid = await owner.call('POST', '/api/xero/payments', {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: cash,
      amount: 5.67,
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
      date: '2026-01-01',
    });
    expect(paid.statusCode).toBe(200);
    // A second row for the same payment, held: Xero has a payment it matches that no other write claims.
    // (The payment's own row is made to forget it, so the held row is the one that matches it.)
    const paymentId = (paid.json() as { paymentId: string }).paymentId;
    const forgot = await t.database.db
      .update(xeroWrites)
      .set({ xeroId: null, state: 'failed' })
      .where(eq(xeroWrites.xeroId, paymentId))
      .returning();
    expect(forgot).toHaveLength(1);
    const id = await heldPayment(invoice, 567, 'held-found');
    expect((await owner.call('GET', `/api/admin/writes/${id}`)).json()).toMatchObject({
      xero: { status: 'found', xeroId: paymentId },
    });

    const retried = await owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });
    expect(retried.statusCode).toBe(409);
    expect((retried.json() as { message: string }).message).toBe(RETRY_REFUSED_FOUND);
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
    expect((await t.parts.ledger.findById(id))?.state).toBe('needs_review');
  });

  it("a held payment now larger than what is due is refused with Pay Invoices' own words and stays held", async () => {
    const invoice = invoices[2];
    if (!invoice) throw new Error('no invoice');
    const due = await dueOf(invoice.invoiceId);
    const id = await heldPayment(invoice, due + 10_000, 'held-too-much');
    const retried = await owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });
    expect(retried.statusCode).toBeGreaterThanOrEqual(400);
    expect(retried.statusCode).toBeLessThan(500);
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(0);
    expect((await t.parts.ledger.findById(id))?.state).toBe('needs_review');
  });
});
