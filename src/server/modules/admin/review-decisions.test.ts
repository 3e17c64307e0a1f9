import { and, asc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DraftInvoice } from '../../../shared/add-invoices';
import { getUkToday } from '../../../shared/dates';
import {
  auditLog,
  draftCashAmounts,
  liveEvents,
  organizations,
  xeroAccounts,
  xeroContacts,
  xeroWrites,
} from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { fingerprintOf, type WriteAudit, type WriteKind } from '../../ledger/index';

/**
 * Issue 44: a review decision changes what it says it changes, and a write that never goes to Xero (pending
 * cash) is settled from the database, never "outcome unknown". What a crash leaves is written as the ledger
 * holds it (the kill -9 itself is driven in crash-truth.test.ts); every decision goes through the admin's routes.
 */
describe('Needs review: decisions that change what they say (issue 44)', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let shopTenant: string;
  let contactId: string;
  let salesCode: string;
  let cashAccountId: string;

  const shop = () => {
    const org = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    if (!org) throw new Error('no Demo Shop in the sandbox');
    return org;
  };
  const paymentsInXero = (id: string) =>
    shop()
      .payments.filter((p) => p.InvoiceID === id && p.Status === 'AUTHORISED')
      .map((p) => p.amount);
  const statusInXero = (id: string) => shop().invoices.find((i) => i.InvoiceID === id)?.Status;
  const pendingOf = async (id: string) =>
    (
      await t.database.db
        .select()
        .from(draftCashAmounts)
        .where(and(eq(draftCashAmounts.organizationId, shopId), eq(draftCashAmounts.invoiceId, id)))
    )[0]?.amountPence ?? 0;
  const drafts = async (): Promise<DraftInvoice[]> =>
    (await owner.call('GET', '/api/xero/draft-invoices')).json();
  const onScreen = async (id: string) => (await drafts()).find((d) => d.id === id);
  const reviewList = async () =>
    ((await owner.call('GET', '/api/admin/writes/review')).json() as Array<{ id: number }>).map((w) => w.id);
  const settle = (id: number, action: 'done' | 'cancel' | 'retry') =>
    owner.call('POST', `/api/admin/writes/${id}/settle`, { action });
  const writeOf = async (id: number) =>
    (await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.id, id)))[0];
  const linesAbout = async (id: string, action: string) =>
    (
      await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.target, id), eq(auditLog.action, action)))
        .orderBy(asc(auditLog.id))
    ).map((l) => [l.result, (l.detail as { amountPence?: number } | null)?.amountPence ?? null]);

  async function createDraft(pounds: number): Promise<{ id: string; number: string; totalPence: number }> {
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
    await owner.call('GET', '/api/xero/draft-invoices?refresh=true');
    return { id: created.InvoiceID, number: created.InvoiceNumber, totalPence: pounds * 100 };
  }

  /** A ledger row as a crash (or an older version) left it. */
  async function leftBehind(values: {
    kind: WriteKind;
    key: string;
    targetId: string;
    amountPence: number;
    request: Record<string, unknown>;
    audit: WriteAudit;
    state: 'sent' | 'needs_review' | 'pending';
    error?: string;
    dependsOn?: number;
    sent?: boolean;
  }): Promise<number> {
    const [row] = await t.database.db
      .insert(xeroWrites)
      .values({
        organizationId: shopId,
        userId: owner.user.id,
        kind: values.kind,
        idempotencyKey: values.key,
        fingerprint: fingerprintOf(values.kind, values.request),
        targetId: values.targetId,
        amountPence: values.amountPence,
        request: values.request,
        audit: values.audit,
        document: `invoice:${values.targetId.toLowerCase()}`,
        documentLabel: 'INV',
        state: values.state,
        error: values.error ?? null,
        dependsOn: values.dependsOn ?? null,
        attempts: values.sent === false ? 0 : 1,
        createdAt: new Date(Date.now() - 10 * 60_000),
        sentAt: values.sent === false ? null : new Date(Date.now() - 10 * 60_000),
        instanceId: 'killed-instance',
      })
      .returning();
    return row?.id ?? 0;
  }

  const pendingCashRow = (draft: { id: string; number: string; totalPence: number }, key: string) => ({
    kind: 'cash.pending' as const,
    key,
    targetId: draft.id,
    amountPence: 410,
    request: { invoiceId: draft.id, amountPence: 410, limitPence: draft.totalPence },
    audit: {
      action: 'add-invoices.cash-pending',
      target: draft.id,
      username: 'owner',
      detail: { invoiceNumber: draft.number, amountPence: 410, pendingBeforePence: 0 },
    },
  });

  /** An approval with its cash step, as the intent of "approve with £5.00 cash" records them. */
  async function heldApprovalWithCash(
    draft: { id: string; number: string; totalPence: number },
    key: string,
  ): Promise<{ approval: number; cash: number }> {
    const approval = await leftBehind({
      kind: 'invoice.approve',
      key: `${key}:approve:${draft.id}`,
      targetId: draft.id,
      amountPence: draft.totalPence,
      request: { InvoiceID: draft.id, Status: 'AUTHORISED' },
      audit: { action: 'add-invoices.approve', target: draft.id, username: 'owner', detail: {} },
      state: 'needs_review',
      error: 'Outcome unknown: please check this in Xero.',
    });
    const cash = await leftBehind({
      kind: 'payment',
      key: `${key}:payment:${draft.id}`,
      targetId: draft.id,
      amountPence: 500,
      request: {
        invoiceId: draft.id,
        invoiceNumber: draft.number,
        accountId: cashAccountId,
        amount: 5,
        date: getUkToday(),
        reference: `Cash payment for ${draft.number}`,
        isCard: false,
        requestedPence: 500,
        fromPendingPence: 0,
      },
      audit: {
        action: 'add-invoices.cash-payment',
        target: draft.id,
        username: 'owner',
        detail: {
          invoiceNumber: draft.number,
          amountPence: 500,
          fromPendingPence: 0,
          accountId: cashAccountId,
        },
      },
      state: 'needs_review',
      error: `Not sent: it waits on write ${approval} (invoice.approve), whose outcome is not known.`,
      dependsOn: approval,
      sent: false,
    });
    return { approval, cash };
  }

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    const org = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!org) throw new Error('no Demo Shop');
    shopId = org.organizationId;
    shopTenant = org.tenantId;
    await enableFeatures(t, shopId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
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
    cashAccountId = cash.accountId;
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
  afterAll(() => t?.close());
  beforeEach(() => t.sandbox.clearFaults());

  it('pending cash left in flight by a crash is settled from the database, never held as "outcome unknown"', async () => {
    // Saved before the crash (the draft shows it), its write left sent: the reconciler confirms it.
    const saved = await createDraft(40);
    await t.database.db
      .insert(draftCashAmounts)
      .values({ organizationId: shopId, invoiceId: saved.id, amountPence: 410, userId: owner.user.id });
    const savedId = await leftBehind({ ...pendingCashRow(saved, 'crash-saved:pending:x'), state: 'sent' });
    // Not saved before the crash: the reconciler fails it, saying so.
    const lost = await createDraft(40);
    const lostId = await leftBehind({ ...pendingCashRow(lost, 'crash-lost:pending:x'), state: 'sent' });

    await t.parts.ledger.reconcile(0);
    expect(await reviewList()).toEqual([]);
    expect(await writeOf(savedId)).toMatchObject({ state: 'confirmed' });
    expect(await writeOf(lostId)).toMatchObject({
      state: 'failed',
      error: 'Not saved: Ledgerlink stopped before saving it.',
    });
    expect((await onScreen(saved.id))?.pendingCashAmount).toBe(4.1);
    expect((await onScreen(lost.id))?.pendingCashAmount).toBe(0);
    expect(await linesAbout(saved.id, 'add-invoices.cash-pending')).toEqual([['success', 410]]);
    expect(await linesAbout(lost.id, 'add-invoices.cash-pending')).toEqual([['failure', 410]]);
  });

  it('cancelling held pending cash takes it off the draft; entering it again and approving pays it once', async () => {
    const draft = await createDraft(40);
    await t.database.db
      .insert(draftCashAmounts)
      .values({ organizationId: shopId, invoiceId: draft.id, amountPence: 410, userId: owner.user.id });
    const key = 'held-cash';
    const held = await leftBehind({
      ...pendingCashRow(draft, `${key}:pending:${draft.id}`),
      state: 'needs_review',
      error: 'Outcome unknown: please check this in Xero.',
    });
    const look = (await owner.call('GET', `/api/admin/writes/${held}`)).json() as { xero: unknown };
    expect(look.xero).toEqual({ status: 'found', xeroId: null, keptBy: 'ledgerlink' });

    expect((await settle(held, 'cancel')).statusCode).toBe(200);
    expect(await pendingOf(draft.id)).toBe(0);
    expect((await onScreen(draft.id))?.pendingCashAmount).toBe(0);

    // The browser resends the first request with its old key: answered as cancelled, nothing saved.
    const resent = await t.app.inject({
      method: 'POST',
      url: '/api/xero/draft-invoices/update',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
      payload: { invoices: [{ id: draft.id, cashAmount: 4.1, approve: false }] },
    });
    expect(resent.json()).toMatchObject({ processed: 0, failed: [{ id: draft.id }] });
    expect(await pendingOf(draft.id)).toBe(0);

    // As the advice says: entered again, then approved. One £4.10 payment, not £8.20.
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/xero/draft-invoices/update',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': 'held-cash-again' },
      payload: { invoices: [{ id: draft.id, cashAmount: 4.1, approve: false, pendingCashSeen: 0 }] },
    });
    expect(again.json()).toEqual({ processed: 1, failed: [] });
    expect((await onScreen(draft.id))?.pendingCashAmount).toBe(4.1);
    const approve = await t.app.inject({
      method: 'POST',
      url: '/api/xero/draft-invoices/update',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': 'held-cash-approve' },
      payload: { invoices: [{ id: draft.id, cashAmount: 0, approve: true, pendingCashSeen: 4.1 }] },
    });
    expect(approve.json()).toEqual({ processed: 1, failed: [] });
    expect(paymentsInXero(draft.id)).toEqual([410]);
  });

  it('marking held pending cash done saves it when Ledgerlink does not have it, once', async () => {
    const draft = await createDraft(40);
    const held = await leftBehind({
      ...pendingCashRow(draft, 'held-missing:pending:x'),
      state: 'needs_review',
      error: 'Outcome unknown: please check this in Xero.',
    });
    expect(((await owner.call('GET', `/api/admin/writes/${held}`)).json() as { xero: unknown }).xero).toEqual(
      {
        status: 'missing',
        keptBy: 'ledgerlink',
      },
    );
    expect((await settle(held, 'retry')).statusCode).toBe(409);
    expect((await settle(held, 'done')).statusCode).toBe(200);
    expect(await pendingOf(draft.id)).toBe(410);
    expect((await settle(held, 'done')).statusCode).toBe(409);
    expect(await pendingOf(draft.id)).toBe(410);
  });

  it('"Send again" on a held approval pays the cash that waited on it, once', async () => {
    const draft = await createDraft(50);
    const { approval, cash } = await heldApprovalWithCash(draft, 'held-approval-retry');
    const res = await settle(approval, 'retry');
    expect(res.statusCode, res.body).toBe(200);
    expect(statusInXero(draft.id)).toBe('AUTHORISED');
    expect(paymentsInXero(draft.id)).toEqual([500]);
    expect(await writeOf(cash)).toMatchObject({ state: 'confirmed' });
    // The list screens show Xero's figures without a refresh, once the catch-up has read them.
    await t.parts.catchUp.run();
    const invoice = (await owner.call('GET', `/api/xero/invoices/${draft.id}`)).json() as {
      invoice: { amountDue: number };
    };
    expect(invoice.invoice.amountDue).toBe(45);
    expect((await onScreen(draft.id)) ?? null).toBeNull();
  });

  it('"Mark done" on a held approval Xero has releases its cash; "Cancel" fails the cash with it', async () => {
    const done = await createDraft(30);
    const marked = await heldApprovalWithCash(done, 'held-approval-done');
    const inXero = shop().invoices.find((i) => i.InvoiceID === done.id);
    if (!inXero) throw new Error('no draft in Xero');
    inXero.Status = 'AUTHORISED';
    inXero.updatedMs = Date.now();
    expect((await settle(marked.approval, 'done')).statusCode).toBe(200);
    expect(paymentsInXero(done.id)).toEqual([500]);
    expect(await writeOf(marked.cash)).toMatchObject({ state: 'confirmed' });

    const cancelled = await createDraft(30);
    const held = await heldApprovalWithCash(cancelled, 'held-approval-cancel');
    expect((await settle(held.approval, 'cancel')).statusCode).toBe(200);
    expect(await writeOf(held.cash)).toMatchObject({ state: 'failed' });
    expect(await reviewList()).not.toContain(held.cash);
    expect(paymentsInXero(cancelled.id)).toEqual([]);
    expect(await linesAbout(cancelled.id, 'add-invoices.cash-payment')).toEqual([['failure', 500]]);
  });

  it('a cancel while another administrator is sending the write again is refused, naming them; Xero gets it once', async () => {
    const draft = await createDraft(20);
    const { approval } = await heldApprovalWithCash(draft, 'held-race');
    // Xero is slow to answer, so the "Send again" is still on its way when the cancel arrives.
    t.sandbox.setFaults({ answerDelayMs: 400, pathPrefix: '/api.xro/2.0/Invoices' });
    const retrying = settle(approval, 'retry');
    for (let i = 0; i < 500 && !(await writeOf(approval))?.reviewClaimBy; i++)
      await new Promise((r) => setImmediate(r));
    const cancel = await settle(approval, 'cancel');
    expect(cancel.statusCode).toBe(409);
    expect((cancel.json() as { message: string }).message).toBe(
      'owner is sending this change again just now: refresh in a moment to see how it ended.',
    );
    expect((await retrying).statusCode).toBe(200);
    t.sandbox.clearFaults();
    expect(statusInXero(draft.id)).toBe('AUTHORISED');
    expect(paymentsInXero(draft.id)).toEqual([500]);
    // Settled: a late cancel or a second "Send again" changes nothing.
    expect((await settle(approval, 'cancel')).statusCode).toBe(409);
    expect((await settle(approval, 'retry')).statusCode).toBe(409);
    expect(paymentsInXero(draft.id)).toEqual([500]);
  });

  it('an approval resent while its first attempt is still on its way is answered "already being processed", never "not approved"', async () => {
    const draft = await createDraft(25);
    const key = 'in-flight-approval';
    const { approval } = await heldApprovalWithCash(draft, key);
    // Not held: sent a moment ago by this very instance, which is alive (as the soak's resend met it).
    await t.database.db
      .update(xeroWrites)
      .set({ state: 'sent', error: null, sentAt: new Date(), instanceId: t.parts.ledger.instanceId })
      .where(eq(xeroWrites.id, approval));
    await t.database.db
      .update(xeroWrites)
      .set({ state: 'pending', error: null })
      .where(eq(xeroWrites.dependsOn, approval));
    const resent = await t.app.inject({
      method: 'POST',
      url: '/api/xero/draft-invoices/update',
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'idempotency-key': key },
      payload: { invoices: [{ id: draft.id, cashAmount: 5, approve: true }] },
    });
    expect(resent.statusCode, resent.body).toBe(409);
    expect((resent.json() as { message: string }).message).toBe(
      'This change is already being processed. Refresh in a moment to see the result.',
    );
    expect(Number(resent.headers['retry-after'])).toBeGreaterThan(0);
    expect(paymentsInXero(draft.id)).toEqual([]);
  });

  it('a payment the reconciler finds in Xero reaches the cached list and the open screens without a refresh', async () => {
    const draft = await createDraft(60);
    // Approved with £6.00 cash in Xero; the answers were lost (a crash) and the cache still shows the draft.
    const inXero = shop().invoices.find((i) => i.InvoiceID === draft.id);
    if (!inXero) throw new Error('no draft in Xero');
    inXero.Status = 'AUTHORISED';
    inXero.updatedMs = Date.now();
    const approval = await leftBehind({
      kind: 'invoice.approve',
      key: `crash-approve:approve:${draft.id}`,
      targetId: draft.id,
      amountPence: 6000,
      request: { InvoiceID: draft.id, Status: 'AUTHORISED' },
      audit: { action: 'add-invoices.approve', target: draft.id, username: 'owner', detail: {} },
      state: 'sent',
    });
    await leftBehind({
      kind: 'payment',
      key: `crash-approve:payment:${draft.id}`,
      targetId: draft.id,
      amountPence: 600,
      request: {
        invoiceId: draft.id,
        invoiceNumber: draft.number,
        accountId: cashAccountId,
        amount: 6,
        date: getUkToday(),
        reference: `Cash payment for ${draft.number}`,
        isCard: false,
        requestedPence: 600,
        fromPendingPence: 0,
      },
      audit: {
        action: 'add-invoices.cash-payment',
        target: draft.id,
        username: 'owner',
        detail: { amountPence: 600 },
      },
      state: 'pending',
      dependsOn: approval,
      sent: false,
    });
    const [lastEvent] = await t.database.db.select().from(liveEvents).orderBy(asc(liveEvents.id));
    const since = lastEvent?.id ?? 0;
    await t.parts.ledger.reconcile(0);
    expect(paymentsInXero(draft.id)).toEqual([600]);
    await t.parts.catchUp.run();
    const invoice = (await owner.call('GET', `/api/xero/invoices/${draft.id}`)).json() as {
      invoice: { amountDue: number };
    };
    expect(invoice.invoice.amountDue).toBe(54);
    const told = await t.database.db
      .select()
      .from(liveEvents)
      .where(and(eq(liveEvents.organizationId, shopId), gt(liveEvents.id, since)));
    const changes = told.flatMap(
      (e) =>
        (e.payload as { invoices: Array<{ invoiceId: string; after: { amountDuePence: number } }> }).invoices,
    );
    expect(changes.find((c) => c.invoiceId === draft.id)?.after.amountDuePence).toBe(5400);
    // Nothing left for the catch-up: the next pass reads nothing.
    expect(await t.parts.catchUp.run()).toBe(0);
  });
});
