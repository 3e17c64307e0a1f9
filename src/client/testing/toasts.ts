import { getToasts, subscribeToasts, type ToastItem } from '@/client/lib/toast';

/**
 * Every toast shown from now on, in the order shown (the store's own record, not the DOM). A toast another
 * replaces after 1 s (docs/product/shell.md §9: a second error toast waits 1 s, one toast at a time) can be gone
 * from the page before a test looks on a busy machine; what the person was shown is still known here (issue 46).
 */
export function recordToasts(): { seen: ToastItem[]; stop: () => void } {
  const seen: ToastItem[] = [];
  const ids = new Set<string>();
  const stop = subscribeToasts(() => {
    for (const t of getToasts()) {
      if (!t.open || ids.has(t.id)) continue;
      ids.add(t.id);
      seen.push(t);
    }
  });
  return { seen, stop };
}
