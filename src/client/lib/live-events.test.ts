import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { applyLiveEvent, LIVE_INVOICES_EVENT } from './live-events';

function clientWith(keys: unknown[][]) {
  const queryClient = new QueryClient();
  for (const key of keys) queryClient.setQueryData(key, 'cached');
  return queryClient;
}
const isStale = (queryClient: QueryClient, key: unknown[]) =>
  queryClient.getQueryState(key)?.isInvalidated === true;

describe('applyLiveEvent', () => {
  const keys = [
    ['org', 1, 'pay-invoices', 'invoices'],
    ['org', 1, 'pay-invoices', 'bank-accounts'],
    ['org', 1, 'add-invoices', 'drafts'],
    ['org', 1, 'cis-bills', 'draft-bills'],
    ['org', 1, 'cis-bills', 'cis-contacts'],
    ['org', 1, 'stock-journal', 'sales', { customerId: 'c' }],
    ['org', 1, 'settings'],
    ['org', 2, 'pay-invoices', 'invoices'],
  ];

  it('marks stale what a change of invoices affects on every screen of that organisation, and announces it', () => {
    const queryClient = clientWith(keys);
    const heard = vi.fn();
    window.addEventListener(LIVE_INVOICES_EVENT, heard);
    applyLiveEvent(queryClient, 1, 'invoices', JSON.stringify({ organizationId: 1, invoices: [] }));
    window.removeEventListener(LIVE_INVOICES_EVENT, heard);
    expect(keys.filter((k) => isStale(queryClient, k))).toEqual([keys[0], keys[2], keys[3], keys[5]]);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it('marks the contact lists stale on a change of contacts', () => {
    const queryClient = clientWith(keys);
    applyLiveEvent(queryClient, 1, 'contacts', JSON.stringify({ organizationId: 1, contactIds: ['x'] }));
    expect(keys.filter((k) => isStale(queryClient, k))).toEqual([keys[4]]);
  });

  it("ignores another organisation's event and anything it cannot read", () => {
    const queryClient = clientWith(keys);
    applyLiveEvent(queryClient, 1, 'invoices', JSON.stringify({ organizationId: 2, invoices: [] }));
    applyLiveEvent(queryClient, 1, 'invoices', 'not json');
    applyLiveEvent(
      queryClient,
      1,
      'invoices',
      JSON.stringify({ organizationId: 1, invoices: [{ invoiceId: 3 }] }),
    );
    expect(keys.filter((k) => isStale(queryClient, k))).toEqual([]);
  });
});
