import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../../shared/pay-invoices';
import { eq } from 'drizzle-orm';
import { xeroWrites } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

/**
 * One writer per invoice (issue 28), from the outside: two people paying one invoice at the same moment on two
 * app instances sharing one database, and a payment against an approval with cash in flight. One write
 * reaches Xero; the other person is told who is doing what, with a 409, and nothing of theirs is sent.
 */
describe('Pay Invoices when two people act on one invoice at once (issue 28)', () => {
  let t: XeroTestApp;
  /** A second instance of the app on the same database and the same Xero. */
  let other: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let carol: Awaited<ReturnType<typeof createConnectedUser>>;
  let cash = '';
  const taken = new Set<string>();

  const pay = (app: FastifyInstance, cookie: string, invoice: Invoice, amount: number) =>
    app.inject({
      method: 'POST',
      url: '/api/xero/payments',
      headers: { cookie, origin: TEST_ORIGIN, 'idempotency-key': crypto.randomUUID() },
      payload: {
        invoiceId: invoice.invoiceId,
        invoiceNumber: invoice.invoiceNumber,
        accountId: cash,
        amount,
        reference: `Cash payment for ${invoice.invoiceNumber}`,
        isCard: false,
        date: '2026-01-01',
      },
    });

  const paymentsInXero = (invoiceId: string) =>
    t.sandbox
      .ledger()
      .writes.filter(
        (w) => w.kind === 'payment' && w.action === 'create' && w.summary.invoiceId === invoiceId,
      );

  async function takeInvoice(): Promise<Invoice> {
    const invoices = (await owner.call('GET', '/api/xero/invoices?refresh=true')).json() as Invoice[];
    const invoice = invoices.find((i) => i.amountDue > 20 && !taken.has(i.invoiceId));
    if (!invoice) throw new Error('no invoice left to pay');
    taken.add(invoice.invoiceId);
    return invoice;
  }

  beforeAll(async () => {
    t = await createXeroTestApp();
    other = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    owner = await createConnectedUser(t, 'owner');
    carol = await createConnectedUser(t, 'carol');
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('no Demo Shop');
    await enableFeatures(t, shop.organizationId);
    for (const who of [owner, carol])
      await who.call('POST', '/api/xero/set-active-organization', { organizationId: shop.organizationId });
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      cashAccounts: Array<{ accountId: string }>;
    };
    cash = accounts.cashAccounts[0]?.accountId ?? '';
    if (!cash) throw new Error('no cash account');
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it('two users pay one invoice at once on two instances: one payment in Xero; the other is told who is paying', async () => {
    const invoice = await takeInvoice();
    // Xero slow to answer, so the first payment is still open when the second arrives.
    t.sandbox.setFaults({ answerDelayMs: 400, pathPrefix: '/api.xro/2.0/Payments' });
    const [byOwner, byCarol] = await Promise.all([
      pay(t.app, owner.cookie, invoice, 3),
      pay(other.app, carol.cookie, invoice, 3),
    ]);
    t.sandbox.clearFaults();
    expect([byOwner.statusCode, byCarol.statusCode].sort()).toEqual([200, 409]);
    const [lost, winner] = byOwner.statusCode === 200 ? [byCarol, 'owner'] : [byOwner, 'carol'];
    expect(lost.json().message).toBe(
      `${invoice.invoiceNumber} is being paid by ${winner}; try again in a moment.`,
    );
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
    // Once the first is settled, the second person's payment goes, against the balance as it is now.
    const after = await pay(
      lost === byOwner ? t.app : other.app,
      lost === byOwner ? owner.cookie : carol.cookie,
      invoice,
      3,
    );
    expect(after.statusCode, after.body).toBe(200);
    expect(Math.round(after.json().amountDue * 100)).toBe(Math.round(invoice.amountDue * 100) - 600);
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(2);
  });

  it('a payment while an Undo of a payment on the invoice is open is refused, naming who is undoing it', async () => {
    const invoice = await takeInvoice();
    const first = await pay(t.app, owner.cookie, invoice, 2);
    expect(first.statusCode, first.body).toBe(200);
    const paymentId = first.json().paymentId as string;
    t.sandbox.setFaults({ answerDelayMs: 400, pathPrefix: '/api.xro/2.0/Payments' });
    const [undo, byCarol] = await Promise.all([
      t.app.inject({
        method: 'POST',
        url: `/api/xero/payments/${paymentId}/undo`,
        headers: { cookie: owner.cookie, origin: TEST_ORIGIN },
      }),
      // Carol pays once the Undo is on its way to Xero (recorded and sent, its answer not back).
      expect
        .poll(async () =>
          (await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.kind, 'payment.delete'))).map(
            (w) => w.state,
          ),
        )
        .toContain('sent')
        .then(() => pay(other.app, carol.cookie, invoice, 4)),
    ]);
    t.sandbox.clearFaults();
    expect(undo.statusCode, undo.body).toBe(200);
    expect(byCarol.statusCode, byCarol.body).toBe(409);
    expect(byCarol.json().message).toBe(
      `${invoice.invoiceNumber} is being changed (a payment is being undone) by owner; try again in a moment.`,
    );
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
  });

  it('a same-key resend of a payment undone since answers what is true now: not paid, nothing to undo', async () => {
    const invoice = await takeInvoice();
    const key = crypto.randomUUID();
    const payAll = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/xero/payments',
        headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
        payload: {
          invoiceId: invoice.invoiceId,
          invoiceNumber: invoice.invoiceNumber,
          accountId: cash,
          amount: invoice.amountDue,
          reference: `Cash payment for ${invoice.invoiceNumber}`,
          isCard: false,
          date: '2026-01-01',
        },
      });
    const first = await payAll();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ isInvoiceFullyPaid: true, amountDue: 0 });
    const undo = await t.app.inject({
      method: 'POST',
      url: `/api/xero/payments/${first.json().paymentId}/undo`,
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN },
    });
    expect(undo.statusCode, undo.body).toBe(200);
    const again = await payAll();
    expect(again.statusCode, again.body).toBe(200);
    const answer = again.json() as { isInvoiceFullyPaid: boolean; amountDue: number; undoableUntil: string };
    expect(answer).toMatchObject({ isInvoiceFullyPaid: false, amountDue: invoice.amountDue, undone: true });
    // Nothing is left to undo: the answer offers no Undo.
    expect(Date.parse(answer.undoableUntil)).toBeLessThanOrEqual(Date.now());
    expect(paymentsInXero(invoice.invoiceId)).toHaveLength(1);
  });
});
