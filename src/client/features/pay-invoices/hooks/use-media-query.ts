import { useSyncExternalStore } from 'react';

/**
 * The mobile breakpoint of docs/product/shell.md §9 / docs/product/features.md §9: under 768 px attachments
 * move below the invoice.
 */
export const WIDE_SCREEN_QUERY = '(min-width: 768px)';

function subscribe(query: string) {
  return (onChange: () => void) => {
    const list = window.matchMedia(query);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  };
}

/** Whether a media query matches, kept in step with the window. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    subscribe(query),
    () => window.matchMedia(query).matches,
    () => true,
  );
}
