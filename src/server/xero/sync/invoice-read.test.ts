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
