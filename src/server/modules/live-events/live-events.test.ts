import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xeroInvoices } from '../../db/schema/index';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

const KEY = 'test-webhook-key-0123456789abcdef';

/** Reads server-sent events from a live stream until `stop` says enough or the time is up. */
async function readEvents(
  res: Response,
  stop: (events: Array<{ id: string; event: string; data: unknown }>) => boolean,
  ms = 5000,
) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id: string; event: string; data: unknown }> = [];
  let buffer = '';
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline && !stop(events)) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now())),
      ]);
      if (!chunk || chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':') && l.includes(': '))
            .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
        );
        if (fields.data)
          events.push({
            id: fields.id ?? '',
            event: fields.event ?? 'message',
            data: JSON.parse(fields.data) as unknown,
          });
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

describe('GET /api/events', () => {
  let t: XeroTestApp;
  let base: string;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let builder: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let tenantId: string;

  beforeAll(async () => {
    t = await createXeroTestApp({ env: { XERO_WEBHOOK_KEY: KEY } });
    owner = await createConnectedUser(t, 'live.owner', {
      email: 'owner@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    builder = await createConnectedUser(t, 'live.builder', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    const shop = owner.orgs[0]!;
    shopId = shop.organizationId;
    tenantId = shop.tenantId;
    await enableFeatures(t, shopId);
    await enableFeatures(t, builder.orgs[0]!.organizationId);
    await t.parts.sync.syncInvoices(
      { organizationId: shopId, tenantId, userId: owner.user.id },
      { key: 'sales-open' },
    );
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);
  afterAll(() => t.close());

  const open = (cookie: string | null, query = '', headers: Record<string, string> = {}) =>
    fetch(`${base}/api/events${query}`, {
      headers: { accept: 'text/event-stream', ...(cookie ? { cookie } : {}), ...headers },
    });

  async function payInXero(pence: number) {
    const [cached] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')))
      .limit(1);
    const inXero = t.sandbox.state.orgs
      .find((o) => o.OrganisationID === tenantId)!
      .invoices.find((i) => i.InvoiceID === cached!.invoiceId)!;
    inXero.amountPaid += pence;
    inXero.updatedMs = Math.max(Date.now(), inXero.updatedMs + 1000);
    const body = JSON.stringify({
      events: [
        {
          resourceUrl: `https://api.xero.com/api.xro/2.0/Invoices/${inXero.InvoiceID}`,
          resourceId: inXero.InvoiceID,
          eventDateUtc: new Date(inXero.updatedMs).toISOString(),
          eventType: 'UPDATE',
          eventCategory: 'INVOICE',
          tenantId,
          tenantType: 'ORGANISATION',
        },
      ],
      firstEventSequence: 1,
      lastEventSequence: 1,
      entropy: crypto.randomBytes(6).toString('hex'),
    });
    const res = await fetch(`${base}/api/xero/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-xero-signature': crypto.createHmac('sha256', KEY).update(body).digest('base64'),
      },
      body,
    });
    expect(res.status).toBe(200);
    return { invoiceId: inXero.InvoiceID, amountDuePence: cached!.amountDuePence - pence };
  }

  it("refuses the signed-out (401), another tenant's organisation (403) and a request that is not for a stream (400)", async () => {
    expect((await open(null)).status).toBe(401);
    expect((await open(builder.cookie, `?org=${shopId}`)).status).toBe(403);
    const plain = await fetch(`${base}/api/events`, { headers: { cookie: owner.cookie } });
    expect(plain.status).toBe(400);
  });

  it("carries a change Xero reported to the open screens of the organisation, and not to another organisation's", async () => {
    const mine = await open(owner.cookie, `?org=${shopId}`);
    expect(mine.status).toBe(200);
    expect(mine.headers.get('content-type')).toContain('text/event-stream');
    const theirs = await open(builder.cookie);
    expect(theirs.status).toBe(200);
    const started = Date.now();
    const [paid, received, other] = await Promise.all([
      new Promise((resolve) => setTimeout(resolve, 200)).then(() => payInXero(150)),
      readEvents(mine, (e) => e.length > 0),
      readEvents(theirs, () => false, 2500),
    ]);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(received[0]).toMatchObject({
      event: 'invoices',
      data: {
        organizationId: shopId,
        invoices: [{ invoiceId: paid.invoiceId, after: { amountDuePence: paid.amountDuePence } }],
      },
    });
    expect(other).toEqual([]);
  });

  it('resumes after a reconnect: Last-Event-ID gets the events the browser missed, once', async () => {
    const first = await open(owner.cookie);
    const seen = await readEvents(first, () => true, 300);
    expect(seen).toEqual([]);
    // The browser is away while Xero reports two changes.
    const before = await open(owner.cookie);
    const live = readEvents(before, (e) => e.length >= 1);
    await payInXero(10);
    const [one] = await live;
    await payInXero(20);
    const resumed = await open(owner.cookie, '', { 'last-event-id': one!.id });
    const missed = await readEvents(resumed, (e) => e.length >= 1, 3000);
    expect(missed).toHaveLength(1);
    expect(Number(missed[0]!.id)).toBeGreaterThan(Number(one!.id));
  });

  it('names where a stream starts, so a screen that saw no event resumes from there and misses nothing', async () => {
    // The opening block: an id and no data (the browser keeps the id as its last event id).
    const reader = (await open(owner.cookie)).body!.getReader();
    let opening = '';
    while (!opening.includes('\n\n')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      opening += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    const startsAfter = /^id: (\d+)$/m.exec(opening)?.[1];
    expect(startsAfter, opening).toMatch(/^\d+$/);
    expect(opening).not.toMatch(/^data:/m);
    // The connection drops (a server killed and started again) and Xero reports a change before the browser is
    // back: its reconnect carries the opening id, and the change reaches it.
    const paid = await payInXero(7);
    const resumed = await open(owner.cookie, '', { 'last-event-id': startsAfter! });
    const missed = await readEvents(resumed, (e) => e.length >= 1, 3000);
    expect(missed).toMatchObject([
      { event: 'invoices', data: { invoices: [{ invoiceId: paid.invoiceId }] } },
    ]);
  });

  // Two instances share one PostgreSQL: the change applied by one reaches a stream open on the other (NOTIFY).
  it.skipIf(!process.env.TEST_DATABASE_URL)('fans out across instances on PostgreSQL', async () => {
    const second = await createXeroTestApp({
      env: { XERO_WEBHOOK_KEY: KEY },
      database: t.database,
      sandboxInstance: t.sandbox,
    });
    try {
      const otherBase = await second.app.listen({ port: 0, host: '127.0.0.1' });
      const stream = await fetch(`${otherBase}/api/events`, {
        headers: { accept: 'text/event-stream', cookie: owner.cookie },
      });
      expect(stream.status).toBe(200);
      const [paid, received] = await Promise.all([
        new Promise((resolve) => setTimeout(resolve, 200)).then(() => payInXero(5)),
        readEvents(stream, (e) => e.length > 0),
      ]);
      expect(received[0]).toMatchObject({
        event: 'invoices',
        data: { invoices: [{ invoiceId: paid.invoiceId }] },
      });
    } finally {
      await second.close();
    }
  });
});
