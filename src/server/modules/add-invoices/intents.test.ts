import { and, asc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DraftInvoice } from '../../../shared/add-invoices';
import { getUkToday } from '../../../shared/dates';
import {
  auditLog,
  draftCashAmounts,
  organizations,
  xeroAccounts,
  xeroContacts,
  xeroWrites,
} from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

/**
 * Issue 28 part A, from the outside: two people on one draft on two app instances sharing one database, and
 * an approval whose cash payment is left unsent when the answer to the approval is lost (a crash).
 */
describe('Add Invoices when two people act at once, and across a crash (issue 28)', () => {
  let t: XeroTestApp;
  /** A second instance of the app on the same database and the same Xero. */
  let other: XeroTestApp;
  /** An instance that never retries within a request, so a lost answer reaches the ledger as lost. */
  let impatient: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let carol: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let shopTenant: string;
  let contactId: string;
  let salesCode: string;

  const URL = '/api/xero/draft-invoices/update';

  const send = (
    app: FastifyInstance,
    cookie: string,
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
    key?: string,
  ) =>
    app.inject({
      method,
      url,
      headers: { cookie, origin: TEST_ORIGIN, ...(key ? { 'idempotency-key': key } : {}) },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  const listDrafts = async (refresh = false): Promise<DraftInvoice[]> => {
    const res = await send(
      t.app,
      owner.cookie,
      'GET',
      `/api/xero/draft-invoices${refresh ? '?refresh=true' : ''}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  const shop = () => {
    const org = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    if (!org) throw new Error('no Demo Shop in the sandbox');
    return org;
  };
  /** The payments Xero holds on an invoice, in pence. */
  const paymentsInXero = (id: string) =>
    shop()
      .payments.filter((p) => p.InvoiceID === id && p.Status === 'AUTHORISED')
      .map((p) => p.amount);
  const statusInXero = (id: string) => shop().invoices.find((i) => i.InvoiceID === id)?.Status;

  /** The activity-log lines about an invoice: action, result, who, and the amount they name. */
  const linesAbout = async (id: string) =>
    (
      await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.organizationId, shopId), eq(auditLog.target, id)))
        .orderBy(asc(auditLog.id))
    ).map((l) => [
      l.action,
      l.result,
      l.username,
      (l.detail as { amountPence?: number } | null)?.amountPence ?? null,
    ]);

  const pendingOf = async (id: string) =>
    (
      await t.database.db
        .select()
        .from(draftCashAmounts)
        .where(and(eq(draftCashAmounts.organizationId, shopId), eq(draftCashAmounts.invoiceId, id)))
    )[0]?.amountPence ?? 0;

  async function createDraft(pounds: number): Promise<{ id: string; number: string }> {
    const today = getUkToday();
    const res = await t.parts.xeroHttp.send<{
      Invoices: Array<{ InvoiceID: string; InvoiceNumber: string }>;
    }>(owner.user.id, shopTenant, {
      method: 'PUT',
      path: '/api.xro/2.0/Invoices',
      idempotencyKey: crypto.randomUUID(),
      body: {
        Invoices: [
          {
            Type: 'ACCREC',
            Contact: { ContactID: contactId },
            Date: today,
            DueDate: today,
            LineAmountTypes: 'Inclusive',
            Status: 'DRAFT',
            LineItems: [
              {
                Description: 'Takings',
                Quantity: 1,
                UnitAmount: pounds,
                AccountCode: salesCode,
                TaxType: 'OUTPUT2',
              },
            ],
          },
        ],
      },
    });
    const created = res.data.Invoices[0];
    if (!created) throw new Error('draft not created');
    await listDrafts(true);
    return { id: created.InvoiceID, number: created.InvoiceNumber };
  }

  beforeAll(async () => {
    t = await createXeroTestApp();
    other = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    impatient = await createXeroTestApp({
      database: t.database,
      sandboxInstance: t.sandbox,
      xeroHttp: { maxAttempts: 1 },
    });
    owner = await createConnectedUser(t, 'owner');
    carol = await createConnectedUser(t, 'carol');
    const org = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!org) throw new Error('no Demo Shop');
    shopId = org.organizationId;
    shopTenant = org.tenantId;
    expect(carol.orgs.map((o) => o.organizationId)).toContain(shopId);
    await enableFeatures(t, shopId);
    for (const who of [owner, carol])
      await who.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const ctx = { organizationId: shopId, tenantId: shopTenant, userId: owner.user.id };
    await t.parts.sync.syncAccounts(ctx);
    await t.parts.sync.syncContacts(ctx);
    const accounts = await t.database.db
      .select()
      .from(xeroAccounts)
      .where(eq(xeroAccounts.organizationId, shopId));
    const contacts = await t.database.db
      .select()
      .from(xeroContacts)
      .where(eq(xeroContacts.organizationId, shopId));
    const cash = accounts.find((a) => a.name === 'Cash');
    const sales = accounts.find((a) => a.code === '200');
    const contact = contacts.find((c) => c.name === 'Daily Sales');
    if (!cash || !sales || !contact)
      throw new Error('the seed lacks the cash account, sales account or contact');
    contactId = contact.contactId;
    salesCode = sales.code ?? '200';
    await t.database.db
      .update(organizations)
      .set({
        defaultCashAccountId: cash.accountId,
        defaultSalesAccountId: sales.accountId,
        defaultContactId: contact.contactId,
        defaultVatRateId: 'OUTPUT2',
        defaultTaxStatus: 'Tax inclusive',
      })
      .where(eq(organizations.id, shopId));
  });
  afterAll(async () => {
    await impatient?.close();
    await other?.close();
    await t?.close();
  });
  beforeEach(() => t.sandbox.clearFaults());

  it('two users approve one draft with cash on two instances: one £2 payment in Xero; the other is told who is doing what', async () => {
    // Round 0: both at once. Round 1: Xero slow to answer the approval, so the first is still open.
    for (const round of [0, 1]) {
      const draft = await createDraft(40);
      if (round === 1) t.sandbox.setFaults({ answerDelayMs: 400, pathPrefix: '/api.xro/2.0/Invoices' });
      const item = { id: draft.id, cashAmount: 2, approve: true, pendingCashSeen: 0 };
      const [byOwner, byCarol] = await Promise.all([
        send(t.app, owner.cookie, 'POST', URL, { invoices: [item] }),
        send(other.app, carol.cookie, 'POST', URL, { invoices: [item] }),
      ]);
      t.sandbox.clearFaults();
      expect([byOwner.statusCode, byCarol.statusCode].sort()).toEqual([200, 409]);
      const [won, lost, winner] =
        byOwner.statusCode === 200 ? [byOwner, byCarol, 'owner'] : [byCarol, byOwner, 'carol'];
      expect(won.json()).toEqual({ processed: 1, failed: [] });
      expect([
        `${draft.number} is being approved by ${winner}; try again in a moment.`,
        `${draft.number} is being paid by ${winner}; try again in a moment.`,
        `${draft.number} was approved by ${winner} since this list was loaded. Nothing was changed; refresh the list.`,
      ]).toContain(lost.json().message);
      expect(paymentsInXero(draft.id)).toEqual([200]);
      expect(statusInXero(draft.id)).toBe('AUTHORISED');
      expect(await linesAbout(draft.id)).toEqual([
        ['add-invoices.approve', 'success', winner, null],
        ['add-invoices.cash-payment', 'success', winner, 200],
      ]);
      expect((await listDrafts()).some((d) => d.id === draft.id)).toBe(false);
    }
  });

  it('pending cash saved while another user approves: one is refused with 409, no cash vanishes, screens and log match Xero', async () => {
    for (const round of [0, 1, 2]) {
      const draft = await createDraft(60);
      const save = { id: draft.id, cashAmount: 5, approve: false, pendingCashSeen: 0 };
      const approve = { id: draft.id, cashAmount: 2, approve: true, pendingCashSeen: 0 };
      const [saved, approved] = await Promise.all(
        round === 2
          ? [
              send(other.app, owner.cookie, 'POST', URL, { invoices: [save] }),
              send(t.app, carol.cookie, 'POST', URL, { invoices: [approve] }),
            ]
          : [
              send(t.app, owner.cookie, 'POST', URL, { invoices: [save] }),
              send(other.app, carol.cookie, 'POST', URL, { invoices: [approve] }),
            ],
      );
      expect([saved.statusCode, approved.statusCode].sort()).toEqual([200, 409]);
      const onScreen = (await listDrafts()).find((d) => d.id === draft.id);
      if (approved.statusCode === 200) {
        expect([
          `${draft.number} is being approved by carol; try again in a moment.`,
          `${draft.number} is being paid by carol; try again in a moment.`,
          `${draft.number} was approved by carol since this list was loaded. Nothing was changed; refresh the list.`,
        ]).toContain(saved.json().message);
        expect(paymentsInXero(draft.id)).toEqual([200]);
        expect(onScreen).toBeUndefined();
        expect(await pendingOf(draft.id)).toBe(0);
        expect(await linesAbout(draft.id)).toEqual([
          ['add-invoices.approve', 'success', 'carol', null],
          ['add-invoices.cash-payment', 'success', 'carol', 200],
        ]);
      } else {
        expect([
          `${draft.number} is being given pending cash by owner; try again in a moment.`,
          `The pending cash on ${draft.number} changed since this list was loaded: £5.00 is pending now (saved by owner), not £0.00. Nothing was changed; check the refreshed list and try again.`,
        ]).toContain(approved.json().message);
        expect(paymentsInXero(draft.id)).toEqual([]);
        expect(statusInXero(draft.id)).toBe('DRAFT');
        expect(onScreen?.pendingCashAmount).toBe(5);
        expect(await linesAbout(draft.id)).toEqual([['add-invoices.cash-pending', 'success', 'owner', 500]]);
      }
    }
  });

  it('refuses a change based on a state that has changed, saying what changed, and sends nothing', async () => {
    const draft = await createDraft(50);
    // Owner keeps £5 pending; carol's screen still shows none.
    expect(
      (
        await send(t.app, owner.cookie, 'POST', URL, {
          invoices: [{ id: draft.id, cashAmount: 5, approve: false, pendingCashSeen: 0 }],
        })
      ).statusCode,
    ).toBe(200);
    t.sandbox.clearLedger();
    const stale = await send(other.app, carol.cookie, 'POST', URL, {
      invoices: [{ id: draft.id, cashAmount: 2, approve: true, pendingCashSeen: 0 }],
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toBe(
      `The pending cash on ${draft.number} changed since this list was loaded: £5.00 is pending now (saved by owner), not £0.00. Nothing was changed; check the refreshed list and try again.`,
    );
    expect(t.sandbox.ledger().writes).toEqual([]);
    expect(await pendingOf(draft.id)).toBe(500);

    // Seen as it is now, the approval goes through and pays the typed cash with the pending cash.
    const fresh = await send(other.app, carol.cookie, 'POST', URL, {
      invoices: [{ id: draft.id, cashAmount: 2, approve: true, pendingCashSeen: 5 }],
    });
    expect(fresh.json()).toEqual({ processed: 1, failed: [] });
    expect(paymentsInXero(draft.id)).toEqual([700]);
    expect(await pendingOf(draft.id)).toBe(0);

    // A draft approved meanwhile: cash saved against it on a screen loaded before is refused, not kept.
    const second = await createDraft(30);
    expect(
      (
        await send(t.app, owner.cookie, 'POST', URL, {
          invoices: [{ id: second.id, cashAmount: 0, approve: true }],
        })
      ).statusCode,
    ).toBe(200);
    const late = await send(other.app, carol.cookie, 'POST', URL, {
      invoices: [{ id: second.id, cashAmount: 3, approve: false, pendingCashSeen: 0 }],
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toBe(
      `${second.number} was approved by owner since this list was loaded. Nothing was changed; refresh the list.`,
    );
    expect(await pendingOf(second.id)).toBe(0);
  });

  it('an older screen that does not send pendingCashSeen still works: its approval pays the pending cash too', async () => {
    const draft = await createDraft(50);
    await send(t.app, owner.cookie, 'POST', URL, {
      invoices: [{ id: draft.id, cashAmount: 5, approve: false }],
    });
    const res = await send(other.app, carol.cookie, 'POST', URL, {
      invoices: [{ id: draft.id, cashAmount: 2, approve: true }],
    });
    expect(res.json()).toEqual({ processed: 1, failed: [] });
    expect(paymentsInXero(draft.id)).toEqual([700]);
    expect(await pendingOf(draft.id)).toBe(0);
  });

  it('an approval whose answer is lost keeps its cash recorded; whoever picks it up pays it once, by asking Xero first', async () => {
    const draft = await createDraft(40);
    t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Invoices' });
    const key = crypto.randomUUID();
    const res = await send(
      impatient.app,
      owner.cookie,
      'POST',
      URL,
      {
        invoices: [{ id: draft.id, cashAmount: 7.77, approve: true, pendingCashSeen: 0 }],
      },
      key,
    );
    t.sandbox.clearFaults();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().failed[0].message).toBe(
      `Xero did not confirm the approval of invoice ${draft.number} in time. Ledgerlink is checking with Xero and pays its cash of £7.77 once Xero confirms the approval, never twice; refresh in a minute.`,
    );
    // Xero approved it; the cash is recorded as the approval's next step, not sent, and not logged as paid.
    expect(statusInXero(draft.id)).toBe('AUTHORISED');
    expect(paymentsInXero(draft.id)).toEqual([]);
    const steps = await t.database.db
      .select()
      .from(xeroWrites)
      .where(and(eq(xeroWrites.organizationId, shopId), eq(xeroWrites.targetId, draft.id)))
      .orderBy(asc(xeroWrites.id));
    expect(steps.map((s) => [s.kind, s.state, s.amountPence])).toEqual([
      ['invoice.approve', 'unknown', 4000],
      ['payment', 'pending', 777],
    ]);
    expect(steps[1]?.dependsOn).toBe(steps[0]?.id);
    expect(await linesAbout(draft.id)).toEqual([]);

    // Another instance's reconciler: the approval is found in Xero, then the cash is paid, once.
    await other.parts.ledger.reconcile(0);
    expect(paymentsInXero(draft.id)).toEqual([777]);
    expect(await linesAbout(draft.id)).toEqual([
      ['add-invoices.approve', 'success', 'owner', null],
      ['add-invoices.cash-payment', 'success', 'owner', 777],
    ]);
    // The browser's retry with the same key answers the finished action; nothing more reaches Xero.
    const retried = await send(
      t.app,
      owner.cookie,
      'POST',
      URL,
      {
        invoices: [{ id: draft.id, cashAmount: 7.77, approve: true, pendingCashSeen: 0 }],
      },
      key,
    );
    expect(retried.json()).toEqual({ processed: 1, failed: [] });
    await t.parts.ledger.reconcile(0);
    expect(paymentsInXero(draft.id)).toEqual([777]);
    expect((await listDrafts()).some((d) => d.id === draft.id)).toBe(false);
  });

  it('a cash step Xero refuses after its approval was applied lands in Needs review and is shown to the user who acted', async () => {
    const draft = await createDraft(20);
    t.sandbox.setFaults({ dropAfterWrite: 1, pathPrefix: '/api.xro/2.0/Invoices' });
    await send(impatient.app, owner.cookie, 'POST', URL, {
      invoices: [{ id: draft.id, cashAmount: 4, approve: true, pendingCashSeen: 0 }],
    });
    t.sandbox.clearFaults();
    // Meanwhile a person pays the whole invoice in Xero: the cash step can no longer be paid.
    const cash = (await t.database.db.select().from(organizations).where(eq(organizations.id, shopId)))[0]
      ?.defaultCashAccountId;
    await t.parts.xeroHttp.send(owner.user.id, shopTenant, {
      method: 'PUT',
      path: '/api.xro/2.0/Payments',
      idempotencyKey: crypto.randomUUID(),
      body: {
        Payments: [
          { Invoice: { InvoiceID: draft.id }, Account: { AccountID: cash }, Amount: 20, Date: getUkToday() },
        ],
      },
    });
    await t.parts.ledger.reconcile(0);
    expect(paymentsInXero(draft.id)).toEqual([2000]);
    const [payment] = await t.database.db
      .select()
      .from(xeroWrites)
      .where(and(eq(xeroWrites.targetId, draft.id), inArray(xeroWrites.kind, ['payment'])));
    expect(payment?.state).toBe('needs_review');
    expect(payment?.sentAt).not.toBeNull();

    const unfinished = await send(t.app, owner.cookie, 'GET', '/api/xero/draft-invoices/unfinished');
    expect(unfinished.statusCode).toBe(200);
    expect(unfinished.json()).toEqual([
      {
        writeId: payment?.id,
        invoiceId: draft.id,
        invoiceNumber: draft.number,
        message: expect.stringContaining(
          `The cash payment of £4.00 on ${draft.number} could not be finished (Xero refused it (`,
        ),
      },
    ]);
    expect(unfinished.json()[0].message).toMatch(
      /\)\. Do not pay it again on Pay Invoices: an administrator settles it under Admin → Needs review\.$/,
    );
    // Carol did not act on it: her list does not show it.
    expect((await send(t.app, carol.cookie, 'GET', '/api/xero/draft-invoices/unfinished')).json()).toEqual(
      [],
    );
    const review = await send(t.app, owner.cookie, 'GET', '/api/admin/writes/review');
    expect(review.statusCode, review.body).toBe(200);
    expect(JSON.stringify(review.json())).toContain(String(payment?.id));
  });
});
