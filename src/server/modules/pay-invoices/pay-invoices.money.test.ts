import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, organizations, users, xeroAccounts, xeroInvoices } from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import { createBodyCache } from '../../lib/body-cache';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import type { XeroSync } from '../../xero/sync/sync.service';
import { createWriteLedger, registerWriteKinds, type WriteLedger } from '../../ledger/index';
import type {
  NewPayment,
  PayInvoicesXero,
  StoredPaymentAnswer,
  XeroPaymentFacts,
} from '../../xero/xero-port';
import { createAuditLog } from '../audit/audit';
import { createPayInvoicesRepository } from './pay-invoices.repository';
import { createPayInvoicesService, type PayContext } from './pay-invoices.service';

/**
 * The money rules of Pay Invoices against a small in-memory Xero (the port faked, the real ledger, cache and
 * activity log on a test database): what the screens show is what Xero holds, whatever order answers come in.
 */
interface FakeInvoice {
  invoiceId: string;
  totalPence: number;
  paidPence: number;
  updatedMs: number;
}

/** When the test's invoices were last changed in Xero: an hour before the run, in Xero and in the cache alike. */
const CREATED_MS = Date.now() - 3_600_000;

function createFakeXero() {
  // Xero's clock runs with ours (a fixed start time made the look-up's "changed after it was sent" window miss
  // from 09:02 on the day it was written).
  let clock = Date.now();
  const invoices = new Map<string, FakeInvoice>();
  const payments: Array<XeroPaymentFacts & { invoiceId: string }> = [];
  const calls = { create: 0, find: 0 };
  /** When set, the next create is applied in Xero and its answer is lost (a dropped connection). */
  let loseNextAnswer = false;
  /** When set, the next create waits for this before answering (an answer still on its way). */
  let hold: Promise<void> | null = null;

  const factsOf = (
    p: NewPayment,
    paymentId: string,
    inv: FakeInvoice,
    at: number,
  ): XeroPaymentFacts & { invoiceId: string } => ({
    invoiceId: p.invoiceId,
    paymentId,
    amountPence: p.amountPence,
    accountId: p.accountId,
    date: p.date,
    status: 'AUTHORISED',
    updatedUtc: new Date(at).toISOString(),
    invoice: {
      invoiceId: inv.invoiceId,
      status: inv.totalPence - inv.paidPence === 0 ? 'PAID' : 'AUTHORISED',
      amountDuePence: inv.totalPence - inv.paidPence,
      amountPaidPence: inv.paidPence,
    },
  });

  const port: PayInvoicesXero = {
    // The ledger keeps the service's own shape of an answer.
    readStoredAnswer(raw, xeroId) {
      const r = (raw ?? {}) as Partial<StoredPaymentAnswer>;
      return {
        paymentId: r.paymentId ?? xeroId ?? '',
        amountDuePence: r.amountDuePence ?? null,
        amountPaidPence: r.amountPaidPence ?? null,
        invoiceStatus: r.invoiceStatus ?? null,
        updatedUtc: r.updatedUtc ?? null,
        deleted: r.deleted === true,
      };
    },
    payments: {
      async create(_ctx, payment) {
        calls.create += 1;
        const inv = invoices.get(payment.invoiceId);
        if (!inv) throw new AppError('NOT_FOUND', 'Invoice not found');
        if (payment.amountPence > inv.totalPence - inv.paidPence)
          throw new AppError(
            'XERO_REJECTED',
            'Payment amount exceeds the amount outstanding on this document',
          );
        inv.paidPence += payment.amountPence;
        clock += 1000;
        inv.updatedMs = clock;
        const facts = factsOf(payment, `pay-${payments.length + 1}`, inv, clock);
        payments.push(facts);
        const waiting = hold;
        hold = null;
        if (waiting) await waiting;
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw new Error('socket hang up');
        }
        return facts;
      },
      async findForInvoice(_ctx, invoiceId) {
        calls.find += 1;
        return payments.filter((p) => p.invoiceId === invoiceId);
      },
      async get(_ctx, paymentId) {
        return payments.find((p) => p.paymentId === paymentId) ?? null;
      },
      async delete() {
        return null;
      },
    },
    attachments: {
      async list() {
        return [];
      },
      async get() {
        return { body: Buffer.alloc(0), contentType: null };
      },
    },
  };
  return {
    port,
    invoices,
    payments,
    calls,
    loseNextAnswer: () => {
      loseNextAnswer = true;
    },
    holdNextAnswer: () => {
      let release = () => {};
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
    duePence: (invoiceId: string) => {
      const inv = invoices.get(invoiceId);
      return inv ? inv.totalPence - inv.paidPence : null;
    },
  };
}

describe('Pay Invoices money rules (in-memory Xero)', () => {
  let database: TestDatabase;
  let xero: ReturnType<typeof createFakeXero>;
  let ledger: WriteLedger;
  let service: ReturnType<typeof createPayInvoicesService>;
  let ctx: PayContext;
  const accountId = 'acc-cash';
  let serial = 0;

  /** Puts an invoice in Xero and the same one in the cache, as a sync would. */
  async function newInvoice(totalPence: number): Promise<string> {
    serial += 1;
    const invoiceId = `inv-${serial}`;
    xero.invoices.set(invoiceId, { invoiceId, totalPence, paidPence: 0, updatedMs: CREATED_MS });
    await database.db.insert(xeroInvoices).values({
      organizationId: ctx.organizationId,
      invoiceId,
      type: 'ACCREC',
      invoiceNumber: `INV-${serial}`,
      status: 'AUTHORISED',
      totalPence,
      amountDuePence: totalPence,
      updatedUtc: new Date(CREATED_MS),
    });
    return invoiceId;
  }

  const pay = (invoiceId: string, pence: number, key: string) =>
    service.pay(
      ctx,
      {
        invoiceId,
        invoiceNumber: invoiceId.toUpperCase(),
        accountId,
        amount: pence / 100,
        reference: '',
        isCard: false,
        date: '2026-11-24',
      },
      key,
    );

  /** The balance Refresh Invoice shows, in pence. */
  const shownPence = async (invoiceId: string) =>
    Math.round(
      ((await service.getInvoice(ctx, invoiceId, { refresh: true })).invoice?.amountDue ?? NaN) * 100,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    const [user] = await database.db.insert(users).values({ username: 'cashier' }).returning();
    const [org] = await database.db
      .insert(organizations)
      .values({ tenantId: 'tenant-1', tenantName: 'Demo Shop Ltd' })
      .returning();
    if (!user || !org) throw new Error('seed failed');
    await database.db.insert(xeroAccounts).values({
      organizationId: org.id,
      accountId,
      name: 'Cash',
      type: 'BANK',
      status: 'ACTIVE',
      bankAccountType: 'BANK',
    });
    ctx = { organizationId: org.id, tenantId: 'tenant-1', userId: user.id, username: 'cashier' };
    xero = createFakeXero();
    const log = { warn: () => {} };
    ledger = createWriteLedger({ db: database.db, log });
    const repo = createPayInvoicesRepository(database.db);
    // A read of one invoice from Xero, as the sync service does it.
    const sync = {
      async refreshInvoice(_c: PayContext, invoiceId: string) {
        const readAt = new Date();
        const inv = xero.invoices.get(invoiceId);
        if (!inv) throw new AppError('NOT_FOUND', 'Invoice not found');
        await database.db
          .update(xeroInvoices)
          .set({
            amountDuePence: inv.totalPence - inv.paidPence,
            amountPaidPence: inv.paidPence,
            updatedUtc: new Date(inv.updatedMs),
            syncedAt: new Date(),
          })
          .where(
            and(eq(xeroInvoices.organizationId, ctx.organizationId), eq(xeroInvoices.invoiceId, invoiceId)),
          );
        return readAt;
      },
      async syncAccounts() {},
    } as unknown as XeroSync;
    service = createPayInvoicesService({
      repo,
      sync,
      xero: xero.port,
      ledger,
      audit: createAuditLog(database.db, log),
      bodies: createBodyCache({ maxBytes: 1_000_000 }),
    });
    registerWriteKinds(ledger, service.writeKinds);
  });
  afterAll(() => database.destroy());

  it('a late resend of an old key after a later payment answers and shows the balance Xero has now', async () => {
    const invoiceId = await newInvoice(10_000);
    await pay(invoiceId, 4_000, 'k-card');
    await pay(invoiceId, 1_000, 'k-cash');
    expect(xero.duePence(invoiceId)).toBe(5_000);
    const creates = xero.calls.create;
    const late = await pay(invoiceId, 4_000, 'k-card');
    expect(xero.calls.create).toBe(creates);
    expect(late.amountDue).toBe(50);
    expect(await shownPence(invoiceId)).toBe(5_000);
  });

  it('a second payment while the first is still on its way to Xero is refused; once it is back, it goes', async () => {
    const invoiceId = await newInvoice(10_000);
    const release = xero.holdNextAnswer();
    const first = pay(invoiceId, 3_000, 'k-first');
    // The first payment has reached Xero; its answer has not come back.
    await expect.poll(() => xero.payments.filter((p) => p.invoiceId === invoiceId).length).toBe(1);
    await expect(pay(invoiceId, 2_000, 'k-second')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/ is being paid by \w+; try again in a moment\.$/),
    });
    release();
    await first;
    await pay(invoiceId, 2_000, 'k-second');
    expect(xero.duePence(invoiceId)).toBe(5_000);
    expect(await shownPence(invoiceId)).toBe(5_000);
  });

  it('after a lost answer the next payment is judged on Xero’s balance, and every applied payment is logged once', async () => {
    const invoiceId = await newInvoice(10_000);
    xero.loseNextAnswer();
    await expect(pay(invoiceId, 7_000, 'k-lost')).rejects.toMatchObject({ code: 'XERO_UNAVAILABLE' });
    expect(xero.duePence(invoiceId)).toBe(3_000);
    // The screen still shows £100 due; paying it is refused before anything is sent.
    const creates = xero.calls.create;
    await expect(pay(invoiceId, 10_000, 'k-again')).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    expect(xero.calls.create).toBe(creates);
    expect(await shownPence(invoiceId)).toBe(3_000);
    const lost = await ledger.findByKey(ctx.organizationId, 'k-lost');
    expect(lost?.state).toBe('confirmed');
    const lines = await database.db.select().from(auditLog).where(eq(auditLog.action, 'payment.create'));
    const forLost = lines.filter((l) => (l.detail as { writeId?: number }).writeId === lost?.id);
    expect(forLost.map((l) => [l.result, l.username])).toEqual([['success', 'cashier']]);
  });
});
