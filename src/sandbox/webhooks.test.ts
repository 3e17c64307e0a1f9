import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from './sandbox';
import { api, connect, startTestSandbox } from './test/sandbox';

const KEY = 'sandbox-webhook-key-0123456789';

interface Delivery {
  signatureValid: boolean;
  body: {
    events: Array<{
      resourceId: string;
      eventCategory: string;
      eventType: string;
      tenantId: string;
      tenantType: string;
      resourceUrl: string;
    }>;
    firstEventSequence: number;
    lastEventSequence: number;
    entropy: string;
  };
}

/** A receiver that behaves as Xero asks (200 to a good signature, 401 to a bad one), or fails when told to. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  const state = { failNext: 0, alwaysOk: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = crypto.createHmac('sha256', KEY).update(raw).digest('base64');
      const signatureValid = req.headers['x-xero-signature'] === expected;
      if (state.failNext > 0) {
        state.failNext -= 1;
        res.statusCode = 500;
        return res.end();
      }
      deliveries.push({ signatureValid, body: JSON.parse(raw.toString('utf8')) as Delivery['body'] });
      res.statusCode = signatureValid || state.alwaysOk ? 200 : 401;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/xero/webhooks`;
  return {
    url,
    deliveries,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(ok: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('sandbox webhooks', () => {
  let sandbox: Sandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let shopTenant: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    receiver = await startReceiver();
    const c = await connect(sandbox, { tenants: ['Demo Shop Ltd'] });
    token = c.tokens.access_token;
    shopTenant = c.tenants[0]!.tenantId;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });
  afterEach(() => {
    sandbox.setWebhooks(null);
    receiver.deliveries.length = 0;
    receiver.state.failNext = 0;
    receiver.state.alwaysOk = false;
  });

  const openInvoice = () =>
    sandbox.state.orgs
      .find((o) => o.OrganisationID === shopTenant)!
      .invoices.find(
        (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 500,
      )!;
  const events = () => receiver.deliveries.filter((d) => d.body.events.length > 0);

  it('checks intent to receive first: a correctly and an incorrectly signed empty payload, then sends events', async () => {
    sandbox.setWebhooks({ url: receiver.url, key: KEY, batchMs: 10 });
    await until(() => sandbox.getWebhooks().state === 'active');
    expect(sandbox.getWebhooks()).toMatchObject({ state: 'active', url: receiver.url });
    expect(JSON.stringify(sandbox.getWebhooks())).not.toContain(KEY);
    const checks = receiver.deliveries.filter((d) => d.body.events.length === 0);
    expect(checks.map((d) => d.signatureValid).sort()).toEqual([false, true]);
    expect(checks[0]!.body).toMatchObject({ firstEventSequence: 0, lastEventSequence: 0 });
  });

  it('does not pass a receiver that answers 200 to everything, and sends it no events', async () => {
    receiver.state.alwaysOk = true;
    sandbox.setWebhooks({ url: receiver.url, key: KEY, batchMs: 10, retryBaseMs: 20 });
    await until(() => receiver.deliveries.length >= 4);
    sandbox.payInvoice(openInvoice().InvoiceID, { amount: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sandbox.getWebhooks().state).toBe('validating');
    expect(sandbox.getWebhooks().lastError).toContain('intent to receive failed');
    expect(events()).toEqual([]);
  });

  it('reports a payment made as a person in Xero and one made through the API, signed and numbered, batched', async () => {
    // A window wide enough for both changes on a loaded machine (CI's two lanes: 100 ms split them once).
    sandbox.setWebhooks({ url: receiver.url, key: KEY, batchMs: 2_000 });
    await until(() => sandbox.getWebhooks().state === 'active');
    const inv = openInvoice();
    const due = (inv.total - inv.amountPaid) / 100;
    const paid = sandbox.payInvoice(inv.InvoiceID, { amount: 2 });
    expect(paid.amountDue).toBeCloseTo(due - 2, 2);
    const bank = sandbox.state.orgs
      .find((o) => o.OrganisationID === shopTenant)!
      .accounts.find((a) => a.Type === 'BANK' && a.Status === 'ACTIVE')!;
    const res = await api(sandbox, token, shopTenant, 'PUT', '/Payments', {
      Payments: [
        {
          Invoice: { InvoiceID: inv.InvoiceID },
          Account: { AccountID: bank.AccountID },
          Amount: 1,
          Date: '2026-01-02',
        },
      ],
    });
    expect(res.status).toBe(200);
    await until(() => events().length >= 1);
    const [delivery] = events();
    expect(delivery!.signatureValid).toBe(true);
    // Both changes within the batch window travel in one delivery.
    expect(delivery!.body.events).toHaveLength(2);
    expect(delivery!.body).toMatchObject({ firstEventSequence: 1, lastEventSequence: 2 });
    expect(delivery!.body.events[0]).toMatchObject({
      resourceId: inv.InvoiceID,
      eventCategory: 'INVOICE',
      eventType: 'UPDATE',
      tenantId: shopTenant,
      tenantType: 'ORGANISATION',
    });
    expect(delivery!.body.events[0]!.resourceUrl).toContain(`/api.xro/2.0/Invoices/${inv.InvoiceID}`);
    // Not API calls: the person's payment is not among the API's writes.
    expect(sandbox.ledger().writes.filter((w) => w.kind === 'payment')).toHaveLength(1);
  });

  it('retries a delivery the receiver failed, with a growing pause, and keeps the sequence', async () => {
    sandbox.setWebhooks({ url: receiver.url, key: KEY, batchMs: 10, retryBaseMs: 30 });
    await until(() => sandbox.getWebhooks().state === 'active');
    receiver.state.failNext = 2;
    const started = Date.now();
    sandbox.editContact(
      sandbox.state.orgs.find((o) => o.OrganisationID === shopTenant)!.contacts[0]!.ContactID,
      { email: 'new@example.com' },
    );
    const contactEvents = () =>
      events().filter((d) => d.body.events.some((e) => e.eventCategory === 'CONTACT'));
    await until(() => contactEvents().length >= 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30 + 60);
    // The receiver records a delivery as it arrives, before the sandbox has read its 200: wait for that answer
    // to be taken (issue 46: on a busy machine the state was looked at in between, still "failing").
    await until(() => sandbox.getWebhooks().queued === 0);
    expect(sandbox.getWebhooks()).toMatchObject({ state: 'active', failedAttempts: 2, queued: 0 });
    expect(contactEvents()[0]!.body.events[0]).toMatchObject({
      eventCategory: 'CONTACT',
      eventType: 'UPDATE',
    });
  });

  it('approves, voids and edits invoices as a person would, and refuses what Xero refuses', async () => {
    const org = sandbox.state.orgs.find((o) => o.OrganisationID === shopTenant)!;
    const draft = org.invoices.find(
      (i) => i.Type === 'ACCREC' && i.Status === 'DRAFT' && i.lines.length > 0 && i.DueDate,
    )!;
    const control = (path: string, body: unknown = {}) =>
      fetch(`${sandbox.url}/__sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await (await control(`/invoices/${draft.InvoiceID}/approve`)).json()) as object).toMatchObject({
      status: 'AUTHORISED',
    });
    expect(
      (await (
        await control(`/invoices/${draft.InvoiceID}/edit`, { reference: 'Changed in Xero' })
      ).json()) as object,
    ).toMatchObject({ invoiceId: draft.InvoiceID });
    expect(draft.Reference).toBe('Changed in Xero');
    expect((await (await control(`/invoices/${draft.InvoiceID}/void`)).json()) as object).toMatchObject({
      status: 'VOIDED',
    });
    expect((await control(`/invoices/${draft.InvoiceID}/pay`, { amount: 1 })).status).toBe(400);
    expect((await control(`/invoices/${crypto.randomUUID()}/approve`)).status).toBe(404);
    expect((await control(`/invoices/not-an-id/approve`)).status).toBe(400);
    expect((await control('/webhooks', { url: 'not a url', key: KEY })).status).toBe(400);
  });
});
