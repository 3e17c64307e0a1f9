import { apiPaths } from '@/client/config/paths';
import { api, getMessage, isApiError } from './api-client';
import { lazySchema } from './lazy-schema';
import { readStorage, removeStorage, SESSION_KEYS, writeStorage } from './storage';
import { toast } from './toast';
import { sleep } from './utils';

/**
 * Authorisation with Xero (docs/product/shell.md §4): idle → in progress (session flag + timestamp) →
 * redirect to the provider URL. A missing URL or an error clears the flag and shows an error toast. An
 * attempt older than 30 minutes is cleared on load; leaving the page while in progress (other than by our own
 * redirect) marks the attempt interrupted.
 */
export const STALE_AUTH_ATTEMPT_MS = 30 * 60 * 1000;
export const CONNECT_REDIRECT_DELAY_MS = 100;
export const RECONNECT_PRE_DELAY_MS = 100;
export const RECONNECT_REDIRECT_DELAY_MS = 500;
export const AUTH_STATE_INTERRUPTED = 'interrupted';

export type AuthorizationMode = 'connect' | 'reconnect';

let redirecting = false;

export function isAuthorizationInProgress(): boolean {
  return readStorage('session', SESSION_KEYS.authInProgress) === 'true';
}

export function markAuthorizationInProgress(mode: AuthorizationMode): void {
  writeStorage('session', SESSION_KEYS.authInProgress, 'true');
  writeStorage('session', SESSION_KEYS.authTimestamp, String(Date.now()));
  if (mode === 'reconnect') writeStorage('session', SESSION_KEYS.reconnecting, 'true');
  else removeStorage('session', SESSION_KEYS.reconnecting);
}

export function clearAuthorizationInProgress(): void {
  removeStorage('session', SESSION_KEYS.authInProgress);
  removeStorage('session', SESSION_KEYS.authTimestamp);
  removeStorage('session', SESSION_KEYS.reconnecting);
}

/** Clears every auth-in-progress marker (the cancel page). */
export function clearAuthorizationMarkers(): void {
  clearAuthorizationInProgress();
  removeStorage('session', SESSION_KEYS.cancelUrl);
  removeStorage('session', SESSION_KEYS.returnUrl);
}

/** On load: an attempt older than 30 minutes is stale and cleared. Returns true when it cleared one. */
export function clearStaleAuthorization(now: number = Date.now()): boolean {
  if (!isAuthorizationInProgress()) return false;
  const started = Number(readStorage('session', SESSION_KEYS.authTimestamp));
  if (Number.isFinite(started) && started > 0 && now - started <= STALE_AUTH_ATTEMPT_MS) return false;
  clearAuthorizationInProgress();
  return true;
}

/** Call once at start: leaving the page while in progress marks the attempt interrupted. */
export function watchAuthorizationInterruptions(): () => void {
  const onLeave = () => {
    if (!redirecting && isAuthorizationInProgress()) {
      writeStorage('session', SESSION_KEYS.lastAuthState, AUTH_STATE_INTERRUPTED);
    }
  };
  window.addEventListener('pagehide', onLeave);
  return () => window.removeEventListener('pagehide', onLeave);
}

/** Browser navigation; replaced in tests. */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
  reload(): void {
    window.location.reload();
  },
};

function rememberUrls(cancelUrl: string | undefined): void {
  if (cancelUrl) writeStorage('session', SESSION_KEYS.cancelUrl, cancelUrl);
  writeStorage('session', SESSION_KEYS.returnUrl, window.location.pathname + window.location.search);
}

/** Sends the browser to the provider; a failure gives the "Redirect Failed" toast. */
export function redirectToProvider(url: string): boolean {
  try {
    redirecting = true;
    browser.assign(url);
    return true;
  } catch {
    redirecting = false;
    clearAuthorizationInProgress();
    toast({
      title: 'Redirect Failed',
      description: `Could not redirect to Xero. Please try again.`,
      variant: 'destructive',
    });
    return false;
  }
}

function announceRedirect(): void {
  toast({
    title: `Redirecting to Xero`,
    description: `You'll be redirected to Xero for authorization...`,
    variant: 'info',
  });
}

interface AuthUrl {
  url?: string;
  cancelUrl?: string;
}

function readAuthUrl(value: unknown): AuthUrl | null {
  if (!value || typeof value !== 'object' || Object.keys(value).length === 0) return null;
  const record = value as Record<string, unknown>;
  return {
    ...(typeof record.url === 'string' && record.url !== '' ? { url: record.url } : {}),
    ...(typeof record.cancelUrl === 'string' ? { cancelUrl: record.cancelUrl } : {}),
  };
}

/**
 * GET /api/xero/connect then redirect after 100 ms. Returns false when it did not redirect. Connect on an
 * organisation's card names it (`organizationId`), so the return can say when Xero's consent left it out
 * (issue 45 item 1).
 */
export async function connectToXero(options: { organizationId?: number } = {}): Promise<boolean> {
  markAuthorizationInProgress('connect');
  let answer: AuthUrl | null;
  try {
    const path =
      options.organizationId === undefined
        ? apiPaths.xeroConnect
        : `${apiPaths.xeroConnect}?organizationId=${encodeURIComponent(options.organizationId)}`;
    answer = readAuthUrl(await api.get(path));
  } catch (error) {
    clearAuthorizationInProgress();
    console.warn('Failed to start Xero connection process', error);
    toast({
      title: 'Connection Error',
      description: `An error occurred while connecting to Xero. Please try again.`,
      variant: 'destructive',
    });
    return false;
  }
  if (!answer?.url) {
    clearAuthorizationInProgress();
    toast({
      title: 'Connection Error',
      description: `Failed to generate Xero connection URL`,
      variant: 'destructive',
    });
    return false;
  }
  rememberUrls(answer.cancelUrl);
  announceRedirect();
  await sleep(CONNECT_REDIRECT_DELAY_MS);
  return redirectToProvider(answer.url);
}

/**
 * Reconnect: check the user is signed in, 100 ms pre-delay, GET /api/xero/reconnect, then redirect after
 * 500 ms. Returns false when it did not redirect.
 */
export async function reconnectToXero(): Promise<boolean> {
  let signedIn = false;
  try {
    signedIn = (await api.getOrNull(apiPaths.user, { schema: lazySchema('currentUserSchema') })) !== null;
  } catch {
    signedIn = false;
  }
  if (!signedIn) {
    toast({
      title: 'Reconnection Error',
      description: `Please log in again before reconnecting to Xero`,
      variant: 'destructive',
    });
    return false;
  }
  markAuthorizationInProgress('reconnect');
  await sleep(RECONNECT_PRE_DELAY_MS);
  let answer: AuthUrl | null;
  try {
    const raw: unknown = await api.get(apiPaths.xeroReconnect);
    if (raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
      throw new Error('Invalid response from Xero reconnect endpoint');
    }
    answer = readAuthUrl(raw);
  } catch (error) {
    clearAuthorizationInProgress();
    const unauthenticated = isApiError(error) && error.status === 401;
    console.warn('Failed to reconnect to Xero:', getMessage(error, 'Failed to reconnect to Xero'));
    toast({
      title: 'Reconnection Error',
      description: unauthenticated
        ? 'Authentication required. Please log in again.'
        : 'An error occurred while reconnecting to Xero. Please try again.',
      variant: 'destructive',
    });
    return false;
  }
  if (!answer) {
    clearAuthorizationInProgress();
    toast({
      title: 'Reconnection Failed',
      description: 'Received empty response from server',
      variant: 'destructive',
    });
    return false;
  }
  if (!answer.url) {
    clearAuthorizationInProgress();
    toast({
      title: 'Reconnection Error',
      description: `Failed to generate Xero reconnection URL`,
      variant: 'destructive',
    });
    return false;
  }
  rememberUrls(answer.cancelUrl);
  announceRedirect();
  await sleep(RECONNECT_REDIRECT_DELAY_MS);
  return redirectToProvider(answer.url);
}

/** Test helper. */
export function resetAuthorizationState(): void {
  redirecting = false;
}
