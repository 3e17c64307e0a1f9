import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import {
  liveContactsEventSchema,
  liveInvoicesEventSchema,
  type LiveInvoicesEvent,
} from '@/shared/live-events';
import { env } from '@/client/config/env';
import { connectionQueryOptions } from './connection';

/** Window event re-announcing a change of invoices, for a screen that words it (Pay Invoices' notice). */
export const LIVE_INVOICES_EVENT = 'ledgerlink:live-invoices';

/**
 * Queries made stale by a change of invoices in Xero: [feature, part] under ['org', orgId]
 * (docs/code-style.md §2).
 */
const INVOICE_QUERIES: ReadonlyArray<readonly [string, string]> = [
  ['pay-invoices', 'invoices'],
  ['add-invoices', 'drafts'],
  ['cis-bills', 'draft-bills'],
  ['cis-returns', 'months'],
  ['cis-returns', 'return'],
  ['stock-journal', 'sales'],
  ['stock-journal', 'entries'],
];
/** Queries made stale by a change of contacts in Xero. */
const CONTACT_QUERIES: ReadonlyArray<readonly [string, string]> = [
  ['cis-bills', 'cis-contacts'],
  ['add-invoices', 'defaults'],
  ['stock-journal', 'customers'],
];
/** A stream the server refused (signed out, feature off) is tried again after this long. */
const REOPEN_MS = 10_000;

function invalidate(
  queryClient: QueryClient,
  orgId: number,
  parts: ReadonlyArray<readonly [string, string]>,
) {
  for (const [feature, part] of parts)
    void queryClient.invalidateQueries({ queryKey: ['org', orgId, feature, part] });
}

/** Handles one event of the stream: the queries it makes stale are invalidated, invoice changes re-announced. */
export function applyLiveEvent(queryClient: QueryClient, orgId: number, kind: string, data: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return;
  }
  if (kind === 'invoices') {
    const event = liveInvoicesEventSchema.safeParse(parsed);
    if (!event.success || event.data.organizationId !== orgId) return;
    window.dispatchEvent(new CustomEvent<LiveInvoicesEvent>(LIVE_INVOICES_EVENT, { detail: event.data }));
    invalidate(queryClient, orgId, INVOICE_QUERIES);
  } else if (kind === 'contacts') {
    const event = liveContactsEventSchema.safeParse(parsed);
    if (!event.success || event.data.organizationId !== orgId) return;
    invalidate(queryClient, orgId, CONTACT_QUERIES);
  }
}

/**
 * Keeps the screens of the active organisation up to date while mounted: one EventSource on
 * `GET /api/events?org=…` (docs/decisions/018-webhooks.md). The browser reconnects it by itself after a
 * dropped connection and sends Last-Event-ID, so nothing published meanwhile is lost; a stream the server
 * refused is opened again a little later, from the last event seen.
 */
export function useLiveEvents(): void {
  const queryClient = useQueryClient();
  const { data: connection } = useQuery({ ...connectionQueryOptions() });
  const orgId = connection?.organizationId ?? null;
  useEffect(() => {
    if (orgId === null || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let lastEventId = '';
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const origin = env.apiOrigin ?? window.location.origin;
    const open = () => {
      const url = new URL('/api/events', origin);
      url.searchParams.set('org', String(orgId));
      if (lastEventId) url.searchParams.set('lastEventId', lastEventId);
      const current = new EventSource(url.toString(), { withCredentials: Boolean(env.apiOrigin) });
      source = current;
      const on = (kind: string) => (event: MessageEvent<string>) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        applyLiveEvent(queryClient, orgId, kind, event.data);
      };
      current.addEventListener('invoices', on('invoices'));
      current.addEventListener('contacts', on('contacts'));
      current.onerror = () => {
        if (current.readyState !== EventSource.CLOSED || stopped) return;
        reopen = setTimeout(open, REOPEN_MS);
      };
    };
    open();
    return () => {
      stopped = true;
      if (reopen) clearTimeout(reopen);
      source?.close();
    };
  }, [orgId, queryClient]);
}
