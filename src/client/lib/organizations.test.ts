import { QueryClient } from '@tanstack/react-query';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { builderOrg, makeConnection, shopOrg } from '@/client/testing/fixtures';
import { server } from '@/client/testing/server';
import { queryKeys } from './query-client';
import { switchOrganization } from './organizations';

function setup(reportOrgAfterPolls: number) {
  const polls: number[] = [];
  const posted: unknown[] = [];
  server.use(
    http.post('*/api/xero/set-active-organization', async ({ request }) => {
      posted.push(await request.json());
      return HttpResponse.json({ ok: true });
    }),
    http.get('*/api/xero/connection', ({ request }) => {
      const url = new URL(request.url);
      polls.push(Date.now());
      expect(url.searchParams.get('org')).toBe('2');
      expect(url.searchParams.get('t')).not.toBeNull();
      expect(request.headers.get('cache-control')).toBe('no-cache');
      const switched = polls.length >= reportOrgAfterPolls;
      return HttpResponse.json(
        makeConnection(switched ? { organizationId: 2, tenantName: 'Acme Builders' } : {}),
      );
    }),
  );
  return { polls, posted };
}

describe('organisation switch protocol (spec 000 §4)', () => {
  it('validates the choice with the spec messages', async () => {
    const client = new QueryClient();
    await expect(switchOrganization(client, [shopOrg, builderOrg], '')).rejects.toThrow(
      'Invalid organization ID',
    );
    await expect(switchOrganization(client, [shopOrg, builderOrg], '99')).rejects.toThrow(
      'Organization with ID 99 not found',
    );
    await expect(
      switchOrganization(client, [shopOrg, { ...builderOrg, connected: false }], '2'),
    ).rejects.toThrow('Organization "Acme Builders" is not connected to Xero');
  });

  it('calls the server, waits 1 s, polls at 200 ms × attempt until the connection matches, then invalidates', async () => {
    vi.useFakeTimers();
    const { polls, posted } = setup(3);
    const client = new QueryClient();
    client.setQueryData(queryKeys.connection, { stale: true });
    client.setQueryData(['org', 1, 'invoices'], ['old']);
    const start = Date.now();
    const pending = switchOrganization(client, [shopOrg, builderOrg], '2');
    await vi.advanceTimersByTimeAsync(0);
    expect(posted).toEqual([{ organizationId: 2 }]);
    expect(client.getQueryState(queryKeys.connection)?.isInvalidated).toBe(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(polls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(polls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(399);
    expect(polls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(polls.map((t) => t - start)).toEqual([1000, 1200, 1600]);
    expect(result.synced).toBe(true);
    expect(result.connection?.tenantName).toBe('Acme Builders');
    expect(client.getQueryState(['org', 1, 'invoices'])?.isInvalidated).toBe(true);
  });

  it('after 20 unsuccessful polls logs a warning and clears the cache', async () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { polls } = setup(Number.POSITIVE_INFINITY);
    const client = new QueryClient();
    client.setQueryData(['org', 1, 'invoices'], ['old']);
    const pending = switchOrganization(client, [shopOrg, builderOrg], 2);
    await vi.advanceTimersByTimeAsync(1000 + (200 * (19 * 20)) / 2 + 10);
    const result = await pending;
    expect(polls).toHaveLength(20);
    expect(result.synced).toBe(false);
    expect(warn).toHaveBeenCalled();
    expect(client.getQueryData(['org', 1, 'invoices'])).toBeUndefined();
    warn.mockRestore();
  });

  it('a server failure carries "Failed to set active organization: {status} {text}"', async () => {
    server.use(
      http.post('*/api/xero/set-active-organization', () =>
        HttpResponse.json({ message: 'Forbidden org' }, { status: 403 }),
      ),
    );
    await expect(switchOrganization(new QueryClient(), [shopOrg, builderOrg], 2)).rejects.toThrow(
      'Failed to set active organization: 403 Forbidden org',
    );
  });
});
