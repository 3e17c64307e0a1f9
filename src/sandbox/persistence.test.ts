import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATE_FILE } from './persistence';
import { api, connect, startTestSandbox, tenantByName } from './test/sandbox';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('persistence under dataDir', () => {
  it('keeps demo work, users, connections and tokens across a restart; reset returns to the seed', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-state-'));
    dirs.push(dataDir);
    const first = await startTestSandbox({ dataDir });
    const { tokens, tenants } = await connect(first, { email: 'someone.new@example.com' });
    const shop = tenantByName(tenants, 'Demo Shop Ltd');
    const inv = await api<{ Invoices: { InvoiceID: string; AmountDue: number }[] }>(
      first,
      tokens.access_token,
      shop,
      'GET',
      '/Invoices?page=1&pageSize=1&Statuses=AUTHORISED',
    );
    const target = inv.body.Invoices[0];
    const accounts = await api<{ Accounts: { AccountID: string; Name: string }[] }>(
      first,
      tokens.access_token,
      shop,
      'GET',
      '/Accounts',
    );
    const cash = accounts.body.Accounts.find((a) => a.Name === 'Cash')?.AccountID;
    const paid = await api(first, tokens.access_token, shop, 'PUT', '/Payments', {
      Payments: [{ Invoice: { InvoiceID: target?.InvoiceID }, Account: { AccountID: cash }, Amount: 0.5 }],
    });
    expect(paid.status).toBe(200);
    await first.close();
    expect((await readdir(dataDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(await readdir(dataDir)).toContain(STATE_FILE);

    // Same origin (the issuer) as before, as after a real restart.
    const second = await startTestSandbox({ dataDir, port: Number(new URL(first.url).port) });
    try {
      // Same signing keys and token store: the old access token still works.
      const again = await api<{ Invoices: { AmountDue: number; Payments: unknown[] }[] }>(
        second,
        tokens.access_token,
        shop,
        'GET',
        `/Invoices/${target?.InvoiceID}`,
      );
      expect(again.status).toBe(200);
      expect(again.body.Invoices[0]?.AmountDue).toBeCloseTo((target?.AmountDue ?? 0) - 0.5, 2);
      expect(second.info().users.map((u) => u.email)).toContain('someone.new@example.com');
      const refreshed = await fetch(`${second.url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: 'test-client',
          client_secret: 'test-secret',
        }),
      });
      expect(refreshed.status).toBe(200);

      await second.reset();
      const afterReset = await api(
        second,
        tokens.access_token,
        shop,
        'GET',
        `/Invoices/${target?.InvoiceID}`,
      );
      expect(afterReset.status).toBe(401);
      expect(second.info().users.map((u) => u.email)).not.toContain('someone.new@example.com');
      expect(second.state.orgs[0]?.invoices.find((i) => i.InvoiceID === target?.InvoiceID)?.amountPaid).toBe(
        0,
      );
    } finally {
      await second.close();
    }
  });

  it('reseeds when the stored state was made with another seed', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-state-'));
    dirs.push(dataDir);
    const a = await startTestSandbox({ dataDir, seed: 1 });
    const idA = a.info().orgs[0]?.tenantId;
    await a.close();
    const b = await startTestSandbox({ dataDir, seed: 2 });
    const idB = b.info().orgs[0]?.tenantId;
    await b.close();
    expect(idB).not.toBe(idA);
  });
});
