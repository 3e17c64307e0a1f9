import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, getUkToday } from '../../../shared/dates';
import { getStockJournalReference, splitSalesPeriod, type SalesPeriod } from '../../../shared/stock-journal';
import { organizations, xeroWrites } from '../../db/schema/index';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { fingerprintOf, RETRY_REFUSED_FOUND, withoutWriteMark, type WriteKind } from '../../ledger/index';
import { JOURNAL_MESSAGES } from '../stock-journal/stock-journal.service';

/**
 * "Send again" on Admin → Needs review covers every write kind (issue 28): approvals, bills and their
 * approvals and deletions, as payments. A held write Xero does not have goes to Xero once and the held write
 * ends naming the new one; Xero is asked first, and one Xero already has is refused.
 */
describe('Admin review list: send a held approval or bill again', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let buildersId: number;

  const statusInXero = (invoiceId: string) =>
    t.sandbox.state.orgs.flatMap((o) => o.invoices).find((i) => i.InvoiceID === invoiceId)?.Status;

  /** A write the ledger ended as needs_review, as a write whose outcome could not be told leaves it. */
  async function held(
    organizationId: number,
    kind: WriteKind,
    targetId: string,
    request: Record<string, unknown>,
    key: string,
  ): Promise<number> {
    const [row] = await t.database.db
      .insert(xeroWrites)
      .values({
        organizationId,
        userId: owner.user.id,
        kind,
        idempotencyKey: key,
        fingerprint: fingerprintOf(kind, request),
        targetId,
        amountPence: 10_000,
        request,
        audit: { action: kind, target: targetId, username: 'owner' },
        state: 'needs_review',
        attempts: 1,
        sentAt: new Date(Date.now() - 10 * 60_000),
        error: 'Outcome unknown: please check this in Xero.',
      })
      .returning();
    return row?.id ?? 0;
  }

  const retry = (id: number) => owner.call('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });

  async function expectSentOnce(id: number) {
    const look = await owner.call('GET', `/api/admin/writes/${id}`);
    expect(look.json()).toMatchObject({ id, canRetry: true, xero: { status: 'missing' } });
    const res = await retry(id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { state: string; error: string; retriedAs: { writeId: number } };
    expect(body.state).toBe('failed');
    expect(body.error).toBe(`Sent again by owner as write ${body.retriedAs.writeId}.`);
    expect(await t.parts.ledger.findById(body.retriedAs.writeId)).toMatchObject({
      state: 'confirmed',
    });
    // Settled: a second click is refused and sends nothing.
    expect((await retry(id)).statusCode).toBe(409);
    return body.retriedAs.writeId;
  }

  async function expectRefused(id: number) {
    const res = await retry(id);
    expect(res.statusCode).toBe(409);
    expect((res.json() as { message: string }).message).toBe(RETRY_REFUSED_FOUND);
  }

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    const builders = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
    if (!shop || !builders) throw new Error('the demo organisations are not connected');
    [shopId, buildersId] = [shop.organizationId, builders.organizationId];
    await enableFeatures(t, shopId);
    await enableFeatures(t, buildersId);
  });
  afterAll(() => t.close());

  it('approves a held draft invoice once, and refuses once Xero has it approved', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const drafts = (await owner.call('GET', '/api/xero/draft-invoices')).json() as Array<{ id: string }>;
    const draft = drafts[0]?.id;
    if (!draft) throw new Error('the seed has no draft invoice');
    const request = { InvoiceID: draft, Status: 'AUTHORISED', DueDate: getUkToday() };
    await expectSentOnce(await held(shopId, 'invoice.approve', draft, request, 'held-approval'));
    expect(statusInXero(draft)).toBe('AUTHORISED');
    await expectRefused(await held(shopId, 'invoice.approve', draft, request, 'held-approval-again'));
  });

  it('approves and deletes held draft bills once, refuses what Xero has, and creates a held bill once', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: buildersId });
    const bills = (await owner.call('GET', '/api/xero/draft-bills')).json() as Array<{ invoiceID: string }>;
    const accounts = (await owner.call('GET', '/api/xero/direct-costs-accounts')).json() as Array<{
      id: string;
      code: string;
    }>;
    const [toApprove, toDelete] = bills.map((b) => b.invoiceID);
    const account = accounts[0];
    if (!toApprove || !toDelete || !account) throw new Error('the seed has no draft bills or accounts');

    const approval = { invoiceId: toApprove, defaultAccountId: account.id, codedLines: false };
    await expectSentOnce(await held(buildersId, 'bill.approve', toApprove, approval, 'held-bill-approval'));
    expect(statusInXero(toApprove)).toBe('AUTHORISED');
    await expectRefused(await held(buildersId, 'bill.approve', toApprove, approval, 'held-bill-approval-2'));

    const deletion = { invoiceId: toDelete };
    await expectSentOnce(await held(buildersId, 'bill.delete', toDelete, deletion, 'held-bill-deletion'));
    expect(statusInXero(toDelete)).toBe('DELETED');
    await expectRefused(await held(buildersId, 'bill.delete', toDelete, deletion, 'held-bill-deletion-2'));

    const contactId = t.sandbox.state.orgs
      .flatMap((o) => o.invoices)
      .find((i) => i.InvoiceID === toApprove)?.ContactID;
    if (!contactId) throw new Error('the bill has no contact');
    const record = {
      contactId,
      date: getUkToday(),
      reference: '0999',
      status: 'DRAFT',
      totalPence: 10_000,
      lineAmountTypes: 'NoTax',
      lines: [
        { description: 'Labour', quantity: 1, unitPence: 10_000, accountCode: account.code, taxType: null },
      ],
    };
    const before = t.sandbox.state.orgs.flatMap((o) => o.invoices).filter((i) => i.InvoiceNumber === '0999');
    expect(before).toHaveLength(0);
    const id = await held(buildersId, 'bill.create', contactId, record, 'held-bill-create');
    await expectSentOnce(id);
    const created = t.sandbox.state.orgs.flatMap((o) => o.invoices).filter((i) => i.InvoiceNumber === '0999');
    expect(created.map((i) => [i.Type, i.Status])).toEqual([['ACCPAY', 'DRAFT']]);
  });

  it('posts a held stock journal once, and refuses while Xero has a journal for its period', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const shop = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    const daily = shop?.contacts.find((c) => c.Name === 'Daily Sales');
    const stock = shop?.accounts.find((a) => a.Code === '630');
    const cost = shop?.accounts.find((a) => a.Code === '310');
    if (!shop || !daily || !stock || !cost) throw new Error('the seed lacks Daily Sales or the accounts');
    await t.database.db
      .update(organizations)
      .set({
        defaultStockJournalContactId: daily.ContactID,
        defaultStockJournalStockAccountId: stock.AccountID,
        defaultStockJournalCostAccountId: cost.AccountID,
        defaultStockJournalMarginRate: '1.35',
        defaultStockJournalPostingStatus: 'draft',
      })
      .where(eq(organizations.id, shopId));
    const today = getUkToday();
    const sales = (
      await owner.call(
        'GET',
        `/api/xero/sales?customerId=${daily.ContactID}&fromDate=${addDays(today, -120)}&toDate=${today}`,
      )
    ).json() as SalesPeriod[];
    const period = sales.flatMap((p) => splitSalesPeriod(p)).filter((p) => p.netTotal > 0)[0];
    if (!period) throw new Error('no week with sales');
    const posted = await owner.call('POST', '/api/xero/stock-journal', {
      periodStart: period.periodStart,
      periodEnd: period.periodEnd,
      netAmount: period.netTotal,
      contactId: daily.ContactID,
      stockAccountId: stock.AccountID,
      costAccountId: cost.AccountID,
      marginRate: 1.35,
      reference: getStockJournalReference(period.periodStart, period.periodEnd),
    });
    expect(posted.statusCode, posted.body).toBe(201);
    const [first] = await t.database.db
      .select()
      .from(xeroWrites)
      .where(and(eq(xeroWrites.organizationId, shopId), eq(xeroWrites.kind, 'journal.create')));
    if (!first?.xeroId || !first.targetId) throw new Error('the journal was not recorded');
    // A person deletes it in Xero: the period is free, and the held copy of the write is not in Xero.
    t.sandbox.setJournalStatus(first.xeroId, 'DELETED');
    const request = first.request as Record<string, unknown>;
    const liveJournals = () =>
      shop.journals.filter(
        // Each write carries its own mark after the period's reference (issue 28).
        (j) =>
          withoutWriteMark(j.Narration) === withoutWriteMark(String(request.narration)) &&
          j.Status !== 'DELETED' &&
          j.Status !== 'VOIDED',
      );
    expect(liveJournals()).toHaveLength(0);

    await expectSentOnce(await held(shopId, 'journal.create', first.targetId, request, 'held-journal'));
    expect(liveJournals()).toHaveLength(1);

    // Xero has a journal for the period now: a second held copy is never posted.
    const again = await retry(
      await held(shopId, 'journal.create', first.targetId, request, 'held-journal-2'),
    );
    expect(again.statusCode).toBe(409);
    expect((again.json() as { message: string }).message).toBe(JOURNAL_MESSAGES.alreadyExists);
    expect(liveJournals()).toHaveLength(1);
  });
});
