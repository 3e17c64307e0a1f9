/**
 * Browser storage keys of docs/product/shell.md §3. Every access is guarded: storage can be unavailable
 * (private mode, blocked cookies) and the app must keep working without it.
 */
export const SESSION_KEYS = {
  /** "true" while a Xero authorisation is in progress. */
  authInProgress: 'xero_auth_in_progress',
  /** Epoch ms when that authorisation started. */
  authTimestamp: 'xero_auth_timestamp',
  /** "true" when the authorisation in progress is a reconnection. */
  reconnecting: 'xero_reconnecting',
  cancelUrl: 'xero_cancel_url',
  returnUrl: 'xero_return_url',
  /** "session_expired", "interrupted", "cancelled"… */
  lastAuthState: 'last_auth_state',
  /** Counter of 401 responses (docs/product/shell.md §4 Session). */
  unauthorizedCount: 'auth_error_count',
  /** Counter of global errors and unhandled rejections (docs/product/shell.md §4 Crash recovery). */
  globalErrorCount: 'global_error_count',
  /** Set when the Xero authorisation was cancelled; cleared after 10 s on /xero-cancel. */
  cancelNotification: 'xero_auth_cancelled',
} as const;

export const LOCAL_KEYS = {
  theme: 'theme',
  /**
   * Default bill account, bill VAT rate, stock journal contact and margin rate (docs/product/shell.md §3).
   */
  savedDefaults: 'xero_saved_defaults',
  /**
   * The organisations whose removal in Xero this browser has already said ("id:since", issue 45 item 2): the
   * background watch may notice a removal before the page does, and it is said once either way.
   */
  removalsSaid: 'xero_removals_said',
} as const;

type Area = 'session' | 'local';

function area(which: Area): Storage | null {
  try {
    return which === 'session' ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}

export function readStorage(which: Area, key: string): string | null {
  try {
    return area(which)?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStorage(which: Area, key: string, value: string): void {
  try {
    area(which)?.setItem(key, value);
  } catch {
    // Storage full or blocked: the value is a convenience only.
  }
}

export function removeStorage(which: Area, key: string): void {
  try {
    area(which)?.removeItem(key);
  } catch {
    // ignore
  }
}

export function clearAllStorage(): void {
  try {
    window.sessionStorage.clear();
  } catch {
    // ignore
  }
  try {
    window.localStorage.clear();
  } catch {
    // ignore
  }
}

export function readCounter(key: string): number {
  const n = Number.parseInt(readStorage('session', key) ?? '0', 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export function writeCounter(key: string, value: number): void {
  writeStorage('session', key, String(value));
}
