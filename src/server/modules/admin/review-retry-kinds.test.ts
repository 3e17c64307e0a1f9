import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUkToday } from '../../../shared/dates';
import { xeroWrites } from '../../db/schema/index.ts';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { fingerprintOf, RETRY_REFUSED_FOUND, type WriteKind } from '../../xero/write-ledger';

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
    expect(await t.app.services.ledger.findById(body.retriedAs.writeId)).toMatchObject({ state: 'confirmed' });
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
});
