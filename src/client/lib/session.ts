import { readCounter, removeStorage, SESSION_KEYS, writeCounter, writeStorage } from './storage';

/** Beyond this many 401 responses the stored sign-in progress is cleared (spec 000 §4 Session, §9). */
export const UNAUTHORIZED_LIMIT = 5;
export const SESSION_EXPIRED = 'session_expired';

/** Counts a 401; beyond 5 the sign-in progress flag and timestamp are cleared and the session marked expired. */
export function recordUnauthorized(): number {
  const count = readCounter(SESSION_KEYS.unauthorizedCount) + 1;
  writeCounter(SESSION_KEYS.unauthorizedCount, count);
  if (count > UNAUTHORIZED_LIMIT) {
    removeStorage('session', SESSION_KEYS.authInProgress);
    removeStorage('session', SESSION_KEYS.authTimestamp);
    markSessionExpired();
  }
  return count;
}

/** A successful sign-in (or a current-user answer) starts the count again. */
export function resetUnauthorizedCount(): void {
  removeStorage('session', SESSION_KEYS.unauthorizedCount);
}

export function markSessionExpired(): void {
  writeStorage('session', SESSION_KEYS.lastAuthState, SESSION_EXPIRED);
}
