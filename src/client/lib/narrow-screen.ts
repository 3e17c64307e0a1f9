import { useCallback, useSyncExternalStore } from 'react';

/**
 * Below Tailwind's `sm` (640 px) a many-column table does not fit a phone: its rows become cards, as Add
 * Invoices does (issue 17 item 13).
 */
export const NARROW_SCREEN_QUERY = '(max-width: 639.98px)';

/** Whether the window is narrower than `sm`, kept in step with resizes. */
export function useNarrowScreen(): boolean {
  const subscribe = useCallback((onChange: () => void) => {
    const list = window.matchMedia(NARROW_SCREEN_QUERY);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, []);
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(NARROW_SCREEN_QUERY).matches,
    () => false,
  );
}
