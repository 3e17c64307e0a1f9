/**
 * Runs `work` once the browser is idle (after the first paint and the page's own requests have started), or
 * after `timeoutMs` at the latest; soon where requestIdleCallback is missing. Returns a cancel function.
 * For downloads nothing on screen waits for: they must not queue in front of the page's API calls.
 */
export function whenIdle(work: () => void, timeoutMs = 2000): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(work, { timeout: timeoutMs });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(work, 200);
  return () => window.clearTimeout(id);
}
