import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentContent } from '../../../sandbox/accounting/attachments';
import type { AttachmentRec } from '../../../sandbox/state';
import type { Invoice } from '../../../shared/pay-invoices';
import { attachmentBlobs, attachmentFiles, attachmentLists, xeroInvoices } from '../../db/schema/index';
import { as } from '../../test/session';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { ATTACHMENT_LIST_MAX_AGE_MS, createAttachmentStore } from './attachment-store';
import { createAttachmentStoreRepository } from './attachment-store.repository';

type User = Awaited<ReturnType<typeof createConnectedUser>>;

/**
 * Attachments fetched from Xero once and kept (issue 19, egress): content-addressed bytes in the database with a
 * size budget, per-invoice lists reused while current. Xero's downloads and list reads are counted in the
 * sandbox's call ledger.
 */
describe('Pay Invoices attachment store', { timeout: 90_000 }, () => {
  let t: XeroTestApp;
  let owner: User;
  let shopId: number;
  let tenantId: string;
  /** Outstanding invoices with one attachment, with the sandbox's record of it. */
  let withFiles: { invoice: Invoice; file: AttachmentRec }[];
  let next = 0;
  const take = (predicate: (f: AttachmentRec) => boolean = () => true) => {
    for (; next < withFiles.length; next += 1) {
      const candidate = withFiles[next];
      if (candidate && predicate(candidate.file)) {
        next += 1;
        return candidate;
      }
    }
    throw new Error('ran out of invoices with attachments');
  };

  /** Xero calls of this organisation to an endpoint (`download`: a file's bytes; `list`: an invoice's list). */
  const xeroCalls = (kind: 'download' | 'list') => {
    const rows = t.sandbox
      .ledger()
      .calls.filter(
        (c) =>
          c.tenantId === tenantId &&
          c.method === 'GET' &&
          (kind === 'download'
            ? c.endpoint.endsWith('/Attachments/:Attachment')
            : c.endpoint.endsWith('/Attachments')),
      );
    return {
      count: rows.reduce((n, c) => n + c.count, 0),
      bytes: rows.reduce((n, c) => n + c.bytes, 0),
    };
  };
  const urlOf = (x: { invoice: Invoice; file: AttachmentRec }) =>
    `/api/xero/invoices/${x.invoice.invoiceId}/attachments/${x.file.AttachmentID}/content`;
  const shop = () => {
    const org = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    if (!org) throw new Error('no shop in the sandbox');
    return org;
  };
  const clearStore = async () => {
    await t.database.db.delete(attachmentBlobs);
    await t.database.db.delete(attachmentLists);
  };
  /** An app on the same database and sandbox, as another instance or a restart, with its own settings. */
  const instance = (env: Record<string, string> = {}) =>
    createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox, env });

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    const org = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!org) throw new Error('no shop');
    shopId = org.organizationId;
    tenantId = org.tenantId;
    await enableFeatures(t, shopId);
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const res = await owner.call('GET', '/api/xero/invoices');
    expect(res.statusCode).toBe(200);
    const invoices = res.json() as Invoice[];
    withFiles = invoices.flatMap((invoice) => {
      const files = shop().attachments.filter((a) => a.InvoiceID === invoice.invoiceId.toLowerCase());
      return files.length === 1 && files[0] ? [{ invoice, file: files[0] }] : [];
    });
    expect(withFiles.length).toBeGreaterThan(12);
  });
  afterAll(() => t.close());

  it('viewing an attachment twice downloads it from Xero once: same bytes, same type, one list read', async () => {
    const x = take((f) => f.MimeType === 'application/pdf');
    const before = { download: xeroCalls('download'), list: xeroCalls('list') };
    const first = await owner.call('GET', urlOf(x));
    expect(first.statusCode).toBe(200);
    const afterFirst = xeroCalls('download');
    const second = await owner.call('GET', urlOf(x));
    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.rawPayload.equals(attachmentContent(x.file))).toBe(true);
    expect(second.headers['content-type']).toContain('application/pdf');
    expect(second.headers['content-length']).toBe(String(first.rawPayload.length));
    expect(second.headers['content-disposition']).toBe(first.headers['content-disposition']);
    const download = await owner.call('GET', `${urlOf(x)}?download=true`);
    expect(download.headers['content-disposition']).toMatch(/^attachment; filename="/);
    expect(download.rawPayload.equals(first.rawPayload)).toBe(true);
    // The list of the screen is the kept one too.
    const list = await owner.call('GET', `/api/xero/invoices/${x.invoice.invoiceId}/attachments`);
    expect(list.json()).toEqual([
      {
        attachmentId: x.file.AttachmentID,
        name: x.file.FileName,
        mimeType: 'application/pdf',
        url: urlOf(x),
      },
    ]);
    expect(xeroCalls('download').count - before.download.count).toBe(1);
    expect(xeroCalls('list').count - before.list.count).toBe(1);
    const bytes = afterFirst.bytes - before.download.bytes;
    expect(bytes).toBe(first.rawPayload.length);
    expect(xeroCalls('download').bytes - before.download.bytes).toBe(bytes);
    console.warn(`attachment viewed 3 times: ${bytes} bytes downloaded from Xero (was ${3 * bytes})`);
  });

  it('after a restart on the same database the kept file and list are served: no Xero call', async () => {
    const x = take((f) => f.MimeType === 'image/png');
    const first = await owner.call('GET', urlOf(x));
    expect(first.statusCode).toBe(200);
    const before = { download: xeroCalls('download').count, list: xeroCalls('list').count };
    const restarted = await instance();
    try {
      const again = await as(restarted.app, owner.cookie)('GET', urlOf(x));
      expect(again.statusCode).toBe(200);
      expect(again.headers['content-type']).toContain('image/png');
      expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    } finally {
      await restarted.close();
    }
    expect(xeroCalls('download').count).toBe(before.download);
    expect(xeroCalls('list').count).toBe(before.list);
  });

  it('the same file on two invoices is stored once', async () => {
    const a = take((f) => f.MimeType === 'image/png');
    const b = take((f) => f.MimeType === 'image/png');
    // Two receipts with the same picture (the sandbox draws a PNG from its title).
    a.file.title = 'Same receipt';
    b.file.title = 'Same receipt';
    const resA = await owner.call('GET', urlOf(a));
    const resB = await owner.call('GET', urlOf(b));
    expect(resA.statusCode).toBe(200);
    expect(resB.rawPayload.equals(resA.rawPayload)).toBe(true);
    const mappings = await t.database.db
      .select()
      .from(attachmentFiles)
      .where(eq(attachmentFiles.organizationId, shopId));
    const ofThese = mappings.filter((m) =>
      [a.file.AttachmentID, b.file.AttachmentID].includes(m.attachmentId),
    );
    expect(ofThese).toHaveLength(2);
    expect(ofThese[0]?.sha256).toBe(ofThese[1]?.sha256);
    const blobs = await t.database.db
      .select({ sha256: attachmentBlobs.sha256 })
      .from(attachmentBlobs)
      .where(eq(attachmentBlobs.sha256, ofThese[0]?.sha256 ?? ''));
    expect(blobs).toHaveLength(1);
  });

  it('past the budget the least recently used files go (with their mappings); a file over a quarter of it is not kept', async () => {
    await clearStore();
    const five = [0, 1, 2, 3, 4].map(() => take((f) => f.MimeType === 'image/png'));
    const sizes = five.map((x) => attachmentContent(x.file).length);
    const max = Math.max(...sizes);
    // Four files fit, five do not; each is within a quarter of the budget.
    const budget = 4 * max;
    expect(sizes.reduce((s, n) => s + n, 0)).toBeGreaterThan(budget);
    const small = await instance({ ATTACHMENT_STORE_MB: ((budget + 0.5) / 1048576).toFixed(12) });
    try {
      expect(small.config.attachmentStore.maxBytes).toBe(budget);
      const call = as(small.app, owner.cookie);
      const view = async (x: (typeof five)[number]) => {
        const before = xeroCalls('download').count;
        const res = await call('GET', urlOf(x));
        expect(res.statusCode).toBe(200);
        expect(res.rawPayload.equals(attachmentContent(x.file))).toBe(true);
        return xeroCalls('download').count - before;
      };
      const [a, b, c, d, e] = five as [
        (typeof five)[0],
        (typeof five)[0],
        (typeof five)[0],
        (typeof five)[0],
        (typeof five)[0],
      ];
      for (const x of [a, b, c, d]) expect(await view(x)).toBe(1);
      expect(await view(a)).toBe(0); // a is now the most recently used
      expect(await view(e)).toBe(1); // over budget: b, the least recently used, goes
      const kept = await t.database.db.select({ size: attachmentBlobs.size }).from(attachmentBlobs);
      expect(kept.reduce((s, r) => s + r.size, 0)).toBeLessThanOrEqual(budget);
      expect(kept).toHaveLength(4);
      const mappingOfB = await t.database.db
        .select()
        .from(attachmentFiles)
        .where(
          and(
            eq(attachmentFiles.organizationId, shopId),
            eq(attachmentFiles.attachmentId, (b as (typeof five)[0]).file.AttachmentID),
          ),
        );
      expect(mappingOfB).toHaveLength(0);
      expect(await view(a)).toBe(0);
      expect(await view(b as (typeof five)[0])).toBe(1);

      // A file larger than a quarter of the budget is served, never kept.
      const big = take((f) => f.MimeType === 'application/pdf');
      const tiny = await instance({
        ATTACHMENT_STORE_MB: (((attachmentContent(big.file).length * 4 - 4) / 1048576) as number).toFixed(12),
      });
      try {
        const callTiny = as(tiny.app, owner.cookie);
        const before = xeroCalls('download').count;
        for (let i = 0; i < 2; i++) expect((await callTiny('GET', urlOf(big))).statusCode).toBe(200);
        expect(xeroCalls('download').count - before).toBe(2);
      } finally {
        await tiny.close();
      }
    } finally {
      await small.close();
    }
  });

  it('ATTACHMENT_STORE_MB=0 keeps nothing: every view downloads', async () => {
    await clearStore();
    const off = await instance({ ATTACHMENT_STORE_MB: '0' });
    try {
      expect(off.config.attachmentStore.maxBytes).toBe(0);
      const x = take();
      const call = as(off.app, owner.cookie);
      const before = xeroCalls('download').count;
      const first = await call('GET', urlOf(x));
      const second = await call('GET', urlOf(x));
      expect(second.statusCode).toBe(200);
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      expect(xeroCalls('download').count - before).toBe(2);
      expect(await t.database.db.select().from(attachmentBlobs)).toHaveLength(0);
    } finally {
      await off.close();
    }
  });

  it('the list is reused while the invoice is unchanged and young; Refresh Invoice, a moved UpdatedDateUTC or age read it again', async () => {
    const x = take();
    const listUrl = `/api/xero/invoices/${x.invoice.invoiceId}/attachments`;
    const lists = () => xeroCalls('list').count;
    const start = lists();
    expect((await owner.call('GET', listUrl)).statusCode).toBe(200);
    expect((await owner.call('GET', listUrl)).statusCode).toBe(200);
    expect(lists() - start).toBe(1);

    // Refresh Invoice (the screen's button): the next look reads Xero's list again.
    const refreshed = await owner.call('POST', '/api/xero/invoices/refresh', {
      invoiceId: x.invoice.invoiceId,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    await owner.call('GET', listUrl);
    expect(lists() - start).toBe(2);

    // The cached invoice changed (a sync or webhook brought a newer UpdatedDateUTC).
    const row = and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.invoiceId, x.invoice.invoiceId));
    await t.database.db.update(xeroInvoices).set({ updatedUtc: new Date() }).where(row);
    await owner.call('GET', listUrl);
    await owner.call('GET', listUrl);
    expect(lists() - start).toBe(3);

    // Older than the limit: Xero may attach a file without moving UpdatedDateUTC.
    await t.database.db
      .update(attachmentLists)
      .set({ fetchedAt: new Date(Date.now() - ATTACHMENT_LIST_MAX_AGE_MS - 1000) })
      .where(eq(attachmentLists.organizationId, shopId));
    await owner.call('GET', listUrl);
    expect(lists() - start).toBe(4);
  });

  it('a file Xero replaced under the same id (another ContentLength) is downloaded again after a refresh', async () => {
    const x = take((f) => f.MimeType === 'image/png');
    const first = await owner.call('GET', urlOf(x));
    const before = xeroCalls('download').count;
    x.file.title = `${x.file.title} (corrected copy with a longer title)`;
    expect(attachmentContent(x.file).length).not.toBe(first.rawPayload.length);
    await owner.call('POST', '/api/xero/invoices/refresh', { invoiceId: x.invoice.invoiceId });
    const second = await owner.call('GET', urlOf(x));
    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(attachmentContent(x.file))).toBe(true);
    expect(xeroCalls('download').count - before).toBe(1);
  });

  it("keeps organisations apart: another organisation's user cannot read a kept attachment", async () => {
    const x = take();
    const mine = await owner.call('GET', urlOf(x));
    expect(mine.statusCode).toBe(200);
    const before = xeroCalls('download').count;
    const stranger = await createConnectedUser(t, 'stranger', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    await enableFeatures(t, stranger.orgs[0]?.organizationId ?? 0);
    // Their own organisation has no such invoice; naming the shop is refused.
    const own = await stranger.call('GET', urlOf(x));
    expect(own.statusCode).toBe(404);
    const named = await stranger.call('GET', `${urlOf(x)}?org=${shopId}`);
    expect(named.statusCode).toBe(403);
    for (const res of [own, named]) expect(res.rawPayload.includes(mine.rawPayload)).toBe(false);
    expect(xeroCalls('download').count).toBe(before);
    // The mapping is the shop's alone.
    const mappings = await t.database.db
      .select({ organizationId: attachmentFiles.organizationId })
      .from(attachmentFiles)
      .where(eq(attachmentFiles.attachmentId, x.file.AttachmentID));
    expect(mappings).toEqual([{ organizationId: shopId }]);

    // Below the routes: the same attachment id and length asked for another organisation is not the shop's
    // mapping, so that organisation's Xero is asked (and its answer kept under its own mapping).
    const otherOrg = stranger.orgs[0]?.organizationId ?? 0;
    const asked: string[] = [];
    const store = createAttachmentStore({
      repo: createAttachmentStoreRepository(t.database.db),
      maxBytes: 1_000_000,
      xero: {
        list: () => Promise.resolve([]),
        get: (ctx, _invoiceId, attachmentId) => {
          asked.push(`${ctx.tenantId}:${attachmentId}`);
          return Promise.resolve({ body: Buffer.alloc(mine.rawPayload.length, 1), contentType: 'image/png' });
        },
      },
    });
    const item = {
      attachmentId: x.file.AttachmentID,
      fileName: x.file.FileName,
      mimeType: x.file.MimeType,
      contentLength: mine.rawPayload.length,
    };
    const theirs = await store.content(
      { organizationId: otherOrg, userId: stranger.user.id, tenantId: 'builders' },
      x.invoice.invoiceId,
      item,
    );
    expect(asked).toEqual([`builders:${x.file.AttachmentID}`]);
    expect(theirs.fromStore).toBe(false);
    expect(theirs.body.equals(mine.rawPayload)).toBe(false);
    const ours = await store.content(
      { organizationId: shopId, userId: owner.user.id, tenantId },
      x.invoice.invoiceId,
      item,
    );
    expect(ours.fromStore).toBe(true);
    expect(ours.body.equals(mine.rawPayload)).toBe(true);
  });
});
