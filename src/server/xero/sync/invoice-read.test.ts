import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DraftInvoice } from '../../../shared/add-invoices';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { xeroTimeSent } from './invoice-read';

/**
 * Issue 32: a view's "what changed?" read asks Xero for the invoices changed since the view was read, not since
 * the newest invoice in it. The drafts' newest is often weeks old while payments on other sales invoices went on
 * since; after approving drafts, the screen's refresh used to download all of those again (most of the bytes of
 * "Approve 50 drafts with cash", bench/results.md §1).
 */
describe('the reads of a view after its first', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId = 0;

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'reader', { tenants: ['Demo Shop Ltd'] });
    shopId = owner.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, shopId);
  });
  afterAll(() => t?.close());

  const listDrafts = async (refresh = false): Promise<DraftInvoice[]> => {
    const res = await owner.call('GET', `/api/xero/draft-invoices${refresh ? '?refresh=true' : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  /** The invoices Xero's answers to GET /Invoices carried while `act` ran. */
  async function invoicesReadDuring(act: () => Promise<unknown>): Promise<string[]> {
    const send = vi.spyOn(t.parts.xeroHttp, 'send');
    try {
      await act();
      const read: string[] = [];
      for (const [i, call] of send.mock.calls.entries()) {
        const request = call[2];
        if (request.method !== 'GET' || !request.path.endsWith('/Invoices')) continue;
        const answer = (await send.mock.results[i]?.value) as {
          data?: { Invoices?: Array<{ InvoiceID: string }> };
        };
        read.push(...(answer.data?.Invoices ?? []).map((inv) => inv.InvoiceID));
      }
      return read;
    } finally {
      send.mockRestore();
    }
  }

  it('after approving drafts, the refresh reads only the invoices changed since the list was read, and shows what a person changed in Xero meanwhile', async () => {
    const shop = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    if (!shop) throw new Error('no Demo Shop in the sandbox');
    // The case this is about: sales invoices paid in Xero since the newest draft was last changed, as a
    // business's do every day.
    const open = shop.invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED').slice(0, 25);
    expect(open).toHaveLength(25);
    for (const inv of open) t.sandbox.payInvoice(inv.InvoiceID, { amount: '0.01' });
    const sales = shop.invoices.filter((i) => i.Type === 'ACCREC');
    const newestDraft = Math.max(...sales.filter((i) => i.Status === 'DRAFT').map((i) => i.updatedMs));
    expect(sales.filter((i) => i.updatedMs > newestDraft).length).toBeGreaterThanOrEqual(25);
    // A minute later (on Xero's clock, which dates its answers) the person opens Add Invoices.
    t.sandbox.advanceClock(60);

    const drafts = await listDrafts();
    const [ours1, ours2, approvedByPerson, deletedByPerson] = drafts;
    if (!ours1 || !ours2 || !approvedByPerson || !deletedByPerson) throw new Error('too few drafts');

    const approved = await owner.call('POST', '/api/xero/draft-invoices/update', {
      invoices: [ours1, ours2].map((d) => ({ id: d.id, cashAmount: 0, approve: true })),
      organizationId: shopId,
    });
    expect(approved.json()).toEqual({ processed: 2, failed: [] });
    // A person in Xero's web app, between the approval and the refresh.
    t.sandbox.approveInvoice(approvedByPerson.id);
    t.sandbox.voidInvoice(deletedByPerson.id);

    let refreshed: DraftInvoice[] = [];
    const read = await invoicesReadDuring(async () => {
      refreshed = await listDrafts(true);
    });
    const gone = [ours1, ours2, approvedByPerson, deletedByPerson].map((d) => d.id);
    expect(refreshed.map((d) => d.id)).toEqual(drafts.map((d) => d.id).filter((id) => !gone.includes(id)));
    // Exactly the four invoices changed since the list was read: nothing else was downloaded again.
    expect([...new Set(read)].sort()).toEqual([...gone].sort());
  });

  it("dates a read by Xero's clock no later than the call was sent", () => {
    const sent = new Date('2026-11-27T10:00:00.200Z');
    const answered = new Date('2026-11-27T10:00:01.700Z');
    const headers = new Headers({ date: 'Fri, 27 Nov 2026 10:00:06 GMT' });
    // Xero's clock 5 s ahead of ours: its date, less the 1.5 s the call took.
    expect(xeroTimeSent(headers, sent, answered)?.toISOString()).toBe('2026-11-27T10:00:04.500Z');
    expect(xeroTimeSent(new Headers(), sent, answered)).toBeNull();
    expect(xeroTimeSent(new Headers({ date: 'not a date' }), sent, answered)).toBeNull();
  });
});

/**
 * Issue 28, the soak's last cause: the cache holds invoices a view's read of the whole view did not write (a
 * write's answer, a read of one invoice, another view, a restored backup). Bills raised on CIS Bills are kept as
 * Xero answered them, drafts; approved or deleted in Xero afterwards, unseen (no live updates, or the restore
 * took the app's own approval back), they stayed drafts in the cache. The first read of the draft bills asks Xero
 * for its drafts only, so it never said otherwise, and every refresh after asks only what changed since.
 */
describe("a view's first read of Xero", () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'bookkeeper', { tenants: ['Demo Builders Ltd'] });
    await enableFeatures(t, owner.orgs[0]?.organizationId ?? 0);
  });
  afterAll(() => t?.close());

  it('does not list as drafts the bills the cache holds from their creation that Xero holds approved or deleted', async () => {
    const builders = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    const contactId = builders?.contacts.find((c) => c.Name === 'Hughes Groundworks Ltd')?.ContactID;
    if (!builders || !contactId) throw new Error('no Demo Builders subcontractor in the sandbox');
    const raised = await owner.call('POST', '/api/xero/create-bills', {
      bills: [0, 1, 2, 3].map((i) => ({
        id: `bill-${i}`,
        contactId,
        date: '2026-11-20',
        reference: '0725',
        lineItems: [{ description: `Labour ${i}`, quantity: 1, unitAmount: 300 + i, accountCode: '321' }],
        status: 'DRAFT',
      })),
    });
    const [approved, deleted, vanished, kept] = (
      raised.json() as { results: Array<{ invoiceID?: string }> }
    ).results.map((r) => r.invoiceID ?? '');
    if (!approved || !deleted || !vanished || !kept) throw new Error(`bills not raised: ${raised.body}`);
    // A person in Xero's web app approves one and deletes another; Xero no longer has a third at all.
    t.sandbox.approveInvoice(approved);
    t.sandbox.voidInvoice(deleted);
    builders.invoices.splice(
      builders.invoices.findIndex((i) => i.InvoiceID === vanished),
      1,
    );

    const send = vi.spyOn(t.parts.xeroHttp, 'send');
    const first = await owner.call('GET', '/api/xero/draft-bills');
    const reads = send.mock.calls.filter((c) => c[2].path === '/api.xro/2.0/Invoices').length;
    send.mockRestore();
    const listed = (first.json() as Array<{ invoiceID: string; status: string }>).map((b) => b.invoiceID);
    expect(listed).not.toContain(approved);
    expect(listed).not.toContain(deleted);
    expect(listed).not.toContain(vanished);
    expect(listed).toContain(kept);
    const xeroDrafts = builders.invoices.filter((i) => i.Type === 'ACCPAY' && i.Status === 'DRAFT');
    expect(listed.length).toBe(xeroDrafts.length);
    // The drafts in one read, and the three bills Xero did not list among them read again, in one more.
    expect(reads).toBe(2);
    const refreshed = (await owner.call('GET', '/api/xero/draft-bills?refresh=true')).json() as Array<{
      invoiceID: string;
    }>;
    expect(refreshed.map((b) => b.invoiceID)).toEqual(listed);
  });
});
