import { errorCodeOf, type ErrorCode } from '@/shared/errors-rules';

/**
 * An answer saying the Xero connection itself is gone (the server's 401 XERO_AUTH_EXPIRED, or a token
 * refresh that failed) is not a failure to try again: the header moves to its reconnect state at once and
 * the message says "Reconnect to Xero" (issue 17 item 2).
 */
export const XERO_ACCESS_LOST_CODE = 'XERO_AUTH_EXPIRED' satisfies ErrorCode;
export const XERO_ACCESS_LOST_MESSAGE = {
  title: 'Xero Connection Lost',
  description:
    'Ledgerlink can no longer reach your Xero organisation. Reconnect to Xero to carry on; nothing more was sent.',
} as const;

type Listener = () => void;
const listeners = new Set<Listener>();

export function onXeroAccessLost(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function reportXeroAccessLost(): void {
  for (const listener of listeners) listener();
}

/** True for an answer that says the Xero connection is gone (not the user's session). */
export function isXeroAccessLostAnswer(status: number, body: unknown): boolean {
  return status === 401 && errorCodeOf(body) === XERO_ACCESS_LOST_CODE;
}

/** For a thrown ApiError (read by shape, so the fetch wrapper can import this file). */
export function isXeroAccessLost(error: unknown): boolean {
  if (!(error instanceof Error) || !('status' in error) || !('body' in error)) return false;
  return typeof error.status === 'number' && isXeroAccessLostAnswer(error.status, error.body);
}
