import type { ErrorCode } from '@/shared/errors-rules';
import { readCounter, readStorage, removeStorage, SESSION_KEYS, writeCounter, writeStorage } from './storage';

/**
 * Beyond this many 401 responses the stored sign-in progress is cleared (docs/product/shell.md §4
 * Session, §9).
 */
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

/** The server guard's answer when the session is gone (signed out in another tab, expired). */
export const SESSION_ENDED_ANSWER = {
  code: 'UNAUTHENTICATED',
  message: 'Not authenticated',
} as const satisfies { code: ErrorCode; message: string };

type Listener = () => void;
const sessionEndedListeners = new Set<Listener>();

/** Called on every "Not authenticated" 401; the listener decides whether a signed-in user just lost the session. */
export function onSessionEnded(listener: Listener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

export function reportSessionEnded(): void {
  for (const listener of sessionEndedListeners) listener();
}

export function isSessionEndedAnswer(status: number, body: unknown): boolean {
  if (status !== 401 || !body || typeof body !== 'object') return false;
  const record = body as Record<string, unknown>;
  return record.code === SESSION_ENDED_ANSWER.code || record.message === SESSION_ENDED_ANSWER.message;
}

/** Whether the sign-in page should say "Your session has ended" (until the next sign-in). */
export function isSessionExpired(): boolean {
  return readStorage('session', SESSION_KEYS.lastAuthState) === SESSION_EXPIRED;
}

/** A sign-in forgets the ended session. */
export function clearSessionExpired(): void {
  if (isSessionExpired()) removeStorage('session', SESSION_KEYS.lastAuthState);
}
