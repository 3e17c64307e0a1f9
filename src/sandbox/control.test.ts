import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from './sandbox';
import { api, connect, startTestSandbox } from './test/sandbox';

describe('control: acting in Xero as a person would', () => {
  let sandbox: Sandbox;
  let token: string;
  let tenantId: string;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const { tokens, tenants } = await connect(sandbox, { tenants: ['Demo Shop Ltd'] });
    token = tokens.access_token;
    tenantId = tenants[0]?.tenantId ?? '';
  });
  afterAll(() => sandbox.close());

  it('posts a draft manual journal outside the API, and the change shows to API clients', async () => {
    const accounts = await api<{ Accounts: Array<{ Code?: string; Type: string }> }>(
      sandbox,
      token,
      tenantId,
      'GET',
      '/Accounts',
    );
    const cost = accounts.body.Accounts.find((a) => a.Code === '310');
    const stock = accounts.body.Accounts.find((a) => a.Code === '630');
    const created = await api<{ ManualJournals: Array<{ ManualJournalID: string; Status: string }> }>(
      sandbox,
      token,
      tenantId,
      'PUT',
      '/ManualJournals',
      {
        ManualJournals: [
          {
            Narration: 'Control test',
            Date: '2026-11-01',
            LineAmountTypes: 'NoTax',
            JournalLines: [
              { LineAmount: 10, AccountCode: cost?.Code },
              { LineAmount: -10, AccountCode: stock?.Code },
            ],
          },
        ],
      },
    );
    expect(created.status).toBe(200);
    const id = created.body.ManualJournals[0]?.ManualJournalID ?? '';
    const writesBefore = sandbox.ledger().writes.length;
    const res = await fetch(`${sandbox.url}/__sandbox/manual-journals/${id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'POSTED' }),
    });
    expect(await res.json()).toEqual({ journalId: id, status: 'POSTED' });
    const read = await api<{ ManualJournals: Array<{ Status: string }> }>(
      sandbox,
      token,
      tenantId,
      'GET',
      `/ManualJournals/${id}`,
    );
    expect(read.body.ManualJournals[0]?.Status).toBe('POSTED');
    expect(sandbox.ledger().writes.length).toBe(writesBefore);
    const again = await fetch(`${sandbox.url}/__sandbox/manual-journals/${id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'DELETED' }),
    });
    expect(again.status).toBe(400);
    const missing = await fetch(`${sandbox.url}/__sandbox/manual-journals/nope/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'POSTED' }),
    });
    expect(missing.status).toBe(404);
  });
});
