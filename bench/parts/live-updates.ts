/**
 * Part 1, live updates (issue 18): the app with a webhook key, the sandbox sending webhooks to it as Xero does
 * (signed, batched every 250 ms, as demo mode), and screens open on GET /api/events. Counts, in the sandbox's
 * call ledger, the Xero calls a batch of changes made "as a person in Xero" costs before every open screen has
 * it, and a standard refresh with nothing changed; times a change from the sandbox to an open stream.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { Sandbox } from '../../src/sandbox/sandbox';
import { buildApp } from '../../src/server/app';
import { createUsersRepository } from '../../src/server/modules/auth/auth.repository';
import { ensureBootstrapAdmin } from '../../src/server/modules/auth/auth.service';
import { createTestDatabase } from '../../src/server/test/database';
import type { Invoice } from '../../src/shared/pay-invoices';
import {
  ApiClient,
  benchConfig,
  connectXero,
  countTenantCalls,
  enableAllFeatures,
  sandboxEndpoints,
  setActiveOrganization,
  signIn,
  UNPACED_GATE,
} from '../lib/harness';

const SHOP = 'Demo Shop Ltd';

export interface LiveSample {
  /** Xero calls per batch of changes, until every open screen had all of them. */
  callsPerBatch: number[];
  /** Changes per batch and screens open. */
  changesPerBatch: number;
  screens: number;
  /** Xero calls of each standard refresh with nothing changed, webhooks healthy. */
  refreshCalls: number[];
  /** Milliseconds from a change made in the sandbox to the event on an open stream. */
  changeToScreenMs: number[];
}

/** An open screen: GET /api/events read as a browser's EventSource would, remembering the invoices it was told of. */
function openStream(base: string, cookie: string, origin: string) {
  const seen = new Map<string, number>();
  const waiters = new Set<() => void>();
  const controller = new AbortController();
  const ready = (async () => {
    const res = await fetch(`${base}/api/events`, {
      headers: { accept: 'text/event-stream', cookie, origin },
      signal: controller.signal,
    });
    if (!res.ok || !res.body) throw new Error(`GET /api/events answered ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .find((l) => l.startsWith('data: '))
            ?.slice(6);
          if (!block.includes('event: invoices') || !data) continue;
          const at = performance.now();
          const payload = JSON.parse(data) as { invoices: Array<{ invoiceId: string }> };
          for (const inv of payload.invoices) seen.set(inv.invoiceId.toLowerCase(), at);
          for (const wake of waiters) wake();
        }
      }
    })();
  })();
  return {
    ready,
    seen,
    /** Resolves with the moment the stream was told of every invoice named. */
    async waitFor(invoiceIds: string[], timeoutMs = 15_000): Promise<number> {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const times = invoiceIds.map((id) => seen.get(id.toLowerCase()));
        if (times.every((t) => t !== undefined)) return Math.max(...(times as number[]));
        if (performance.now() > deadline) throw new Error('a change did not reach an open screen in 15 s');
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 200);
        });
      }
    },
    close: () => controller.abort(),
  };
}

export async function measureLiveUpdates(
  sandbox: Sandbox,
  dataDir: string,
  options: { screens: number; batches: number; changesPerBatch: number; refreshes: number; timings: number },
): Promise<LiveSample> {
  const key = crypto.randomBytes(32).toString('base64');
  const database = await createTestDatabase();
  const config = benchConfig(dataDir, { XERO_WEBHOOK_KEY: key });
  await ensureBootstrapAdmin({
    users: createUsersRepository(database.db),
    admin: config.admin,
    demo: false,
    dataDir,
    print: () => undefined,
  });
  const app = await buildApp({
    config,
    database,
    xero: sandboxEndpoints(sandbox.url, config),
    logger: false,
    clientDir: path.join(dataDir, 'no-client'),
    xeroHttp: { gate: UNPACED_GATE },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const streams: Array<ReturnType<typeof openStream>> = [];
  try {
    const client = new ApiClient(base);
    await signIn(client);
    const orgs = await connectXero(client, sandbox);
    await enableAllFeatures(client, orgs);
    const shop = orgs.find((o) => o.tenantName === SHOP);
    if (!shop) throw new Error('the demo shop was not connected');
    await setActiveOrganization(client, shop);
    await client.call('GET', '/api/xero/invoices');

    sandbox.setWebhooks({ url: `${base}/api/xero/webhooks`, key });
    const deadline = Date.now() + 15_000;
    while (sandbox.getWebhooks().state !== 'active') {
      if (Date.now() > deadline) throw new Error(`webhooks not active: ${sandbox.getWebhooks().lastError}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The list was read before webhooks began: one refresh catches up (decision 018, "Fallback").
    let invoices = (await client.call('GET', '/api/xero/invoices?refresh=true')).json<Invoice[]>();
    const health = (await client.call('GET', '/api/user-organizations')).json<
      Array<{ tenantId: string; liveUpdates?: { state: string } }>
    >();
    if (health.find((o) => o.tenantId === shop.tenantId)?.liveUpdates?.state !== 'live')
      throw new Error('live updates are not on for the shop');

    const refreshCalls: number[] = [];
    for (let i = 0; i < options.refreshes; i++) {
      sandbox.clearLedger();
      invoices = (await client.call('GET', '/api/xero/invoices?refresh=true')).json<Invoice[]>();
      refreshCalls.push(countTenantCalls(sandbox, shop.tenantId).total);
    }

    for (let i = 0; i < options.screens; i++) {
      const stream = openStream(base, client.cookie, client.origin);
      await stream.ready;
      streams.push(stream);
    }
    // Invoices with room for many small payments, each changed by one person's payment at a time.
    const payable = invoices.filter((i) => i.amountDue > 5).sort((a, b) => b.amountDue - a.amountDue);
    let next = 0;
    const take = () => {
      const invoice = payable[next % payable.length];
      next += 1;
      if (!invoice) throw new Error('no invoice to change');
      return invoice.invoiceId;
    };

    const callsPerBatch: number[] = [];
    for (let b = 0; b < options.batches; b++) {
      const ids = Array.from({ length: options.changesPerBatch }, take);
      for (const s of streams) for (const id of ids) s.seen.delete(id.toLowerCase());
      const delivered = sandbox.getWebhooks().delivered;
      sandbox.clearLedger();
      for (const id of ids) sandbox.payInvoice(id, { amount: '0.01' });
      await Promise.all(streams.map((s) => s.waitFor(ids)));
      const batches = sandbox.getWebhooks().delivered - delivered;
      callsPerBatch.push(countTenantCalls(sandbox, shop.tenantId).total / Math.max(1, batches));
    }

    const changeToScreenMs: number[] = [];
    for (let i = 0; i < options.timings; i++) {
      const id = take();
      for (const s of streams) s.seen.delete(id.toLowerCase());
      const started = performance.now();
      sandbox.payInvoice(id, { amount: '0.01' });
      const seenAt = await streams[0]!.waitFor([id]);
      changeToScreenMs.push(seenAt - started);
    }
    return {
      callsPerBatch,
      changesPerBatch: options.changesPerBatch,
      screens: options.screens,
      refreshCalls,
      changeToScreenMs,
    };
  } finally {
    for (const s of streams) s.close();
    sandbox.setWebhooks(null);
    await app.close();
    await database.close();
  }
}
