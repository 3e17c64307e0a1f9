import type { ToastInput } from '@/client/lib/toast';

/**
 * The /auth toast for an `error` query value after Sign in with Xero (docs/product/shell.md §8 "On /auth").
 */
export function getAuthErrorToast(code: string, reason: string | null): ToastInput {
  const title = 'Authentication Failed';
  if (code.includes('oauth_error')) {
    return {
      title,
      description: `Xero returned an error: ${reason || code.replace(/^oauth_error[:_]?/, '') || 'unknown'}`,
      variant: 'destructive',
    };
  }
  const descriptions: Record<string, string> = {
    missing_code: `The sign-in with Xero was cancelled or interrupted. Please try again.`,
    auth_configuration: `There is a configuration issue with the Xero integration. Please try again later.`,
    authentication_failed: `Authentication with Xero failed. Please try again.`,
    missing_token: `No authentication token was received from Xero. Please try again.`,
  };
  return {
    title,
    description: descriptions[code] ?? `Sign-in with Xero did not complete. Please try again.`,
    variant: 'destructive',
  };
}

/** Warnings last 6 s (docs/product/shell.md §9). */
export const AUTH_WARNING_DURATION_MS = 6000;

/** The /auth toast for a `warning` query value: no_tenants or connection_issue. */
export function getAuthWarningToast(code: string): ToastInput | null {
  const descriptions: Record<string, string> = {
    no_tenants: `You are signed in, but no Xero organisation was connected. You can connect one from the Organizations page.`,
    connection_issue: `You are signed in, but there was a problem connecting your Xero organisations. You can reconnect from the Organizations page.`,
  };
  const description = descriptions[code];
  if (!description) return null;
  return {
    title: `Xero Connection Warning`,
    description,
    variant: 'warning',
    duration: AUTH_WARNING_DURATION_MS,
  };
}
