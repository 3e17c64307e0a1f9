/**
 * The connection-trouble banner (docs/product/shell.md §8): after more than 5 server (5xx) or network errors
 * within a 30-minute window, one banner appears until the page is reloaded.
 */
export const CONNECTION_TROUBLE_WINDOW_MS = 30 * 60 * 1000;
export const CONNECTION_TROUBLE_THRESHOLD = 5;

type Listener = () => void;

let failures: number[] = [];
let visible = false;
const listeners = new Set<Listener>();

export function recordConnectionFailure(now: number = Date.now()): void {
  failures = [...failures.filter((t) => now - t < CONNECTION_TROUBLE_WINDOW_MS), now];
  if (!visible && failures.length > CONNECTION_TROUBLE_THRESHOLD) {
    visible = true;
    for (const listener of listeners) listener();
  }
}

export function isConnectionTroubleVisible(): boolean {
  return visible;
}

export function subscribeConnectionTrouble(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function resetConnectionTrouble(): void {
  failures = [];
  visible = false;
  for (const listener of listeners) listener();
}
