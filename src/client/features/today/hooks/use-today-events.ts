import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { env } from '@/client/config/env';
import { todayKeys } from '../api/query-keys';

/** A stream the server refused (signed out) is tried again after this long. */
const REOPEN_MS = 10_000;

/**
 * Keeps the Today page's rows live while it is open (issue 47): `GET /api/practice/events` names the rows that
 * changed (a change made in Xero, a read finished, a draft approved in another tab) and the page asks for its
 * rows again, which costs the server no Xero call. The browser reconnects a dropped stream by itself; one the
 * server refused is opened again a little later, and the rows are asked for again on reconnecting, since a
 * change may have been missed meanwhile (and once when it first opens, for the changes before it).
 */
export function useTodayEvents(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const origin = env.apiOrigin ?? window.location.origin;
    const refetch = () => void queryClient.invalidateQueries({ queryKey: todayKeys.rows });
    const open = () => {
      const current = new EventSource(new URL('/api/practice/events', origin).toString(), {
        withCredentials: Boolean(env.apiOrigin),
      });
      source = current;
      current.addEventListener('rows', refetch);
      // Rows that changed before the stream was open (the first answer came before it) are asked for again.
      current.onopen = refetch;
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
  }, [enabled, queryClient]);
}
