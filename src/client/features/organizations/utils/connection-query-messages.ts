import type { ToastInput } from '@/client/lib/toast';

interface Params {
  reason: string | null;
  message: string | null;
}

/**
 * The `error` values the server's OAuth callback sends back to /organizations, with their toasts
 * (docs/product/shell.md §8 "Query-string errors on /organizations"). Title "Connection Error" unless noted.
 */
export const CONNECTION_QUERY_ERRORS: Record<string, { title?: string; describe: (p: Params) => string }> = {
  authentication_cancelled: {
    title: 'Authentication Cancelled',
    describe: () =>
      `The Xero authentication process was cancelled. You can try connecting again when you're ready.`,
  },
  unauthorized: { describe: () => `You need to be logged in to connect to Xero` },
  missing_code: { describe: () => 'Authorization code is missing' },
  no_tenants: { describe: () => `No organizations found in your Xero account` },
  xero_connection_failed: { describe: () => `Failed to establish connection with Xero` },
  oauth_error: { describe: ({ reason }) => `Xero reported an authorization error: ${reason || 'unknown'}` },
  invalid_token: { describe: () => 'The authentication tokens were invalid. Please try connecting again.' },
  token_expired: {
    describe: () => `Your authentication with Xero has expired. Please try connecting again.`,
  },
  invalid_grant: {
    describe: () => 'The authorization was invalid or has expired. Please try connecting again.',
  },
  token_exchange_failed: {
    describe: () =>
      `There was a problem exchanging the authorization code for Xero tokens. Please try connecting again.`,
  },
  invalid_client: {
    describe: () =>
      'The client credentials (Client ID and Client Secret) are invalid. Please check API keys.',
  },
  invalid_request: {
    describe: () => `The authorization request to Xero was invalid. Please try connecting again.`,
  },
  token_read_failed: {
    describe: () => `The tokens received from Xero could not be read. Please try connecting again.`,
  },
  missing_token_set: { describe: () => `Xero did not return any tokens. Please try connecting again.` },
  missing_access_token: {
    describe: () => `Xero did not return an access token. Please try connecting again.`,
  },
  missing_refresh_token: {
    describe: () => `Xero did not return a refresh token. Please try connecting again.`,
  },
  missing_expiry: {
    describe: () => `Xero did not say when the tokens expire. Please try connecting again.`,
  },
  tenant_update_failed: {
    describe: ({ message }) =>
      `Failed to update your Xero organizations${message ? `: ${message}` : '. Please try again.'}`,
  },
  unexpected_error: { describe: () => 'An unexpected error occurred. Please try again later.' },
};

export function getConnectionErrorToast(code: string, params: Params): ToastInput {
  const entry = CONNECTION_QUERY_ERRORS[code];
  if (!entry)
    return { title: 'Connection Error', description: `Failed to connect to Xero`, variant: 'destructive' };
  return {
    title: entry.title ?? 'Connection Error',
    description: entry.describe(params),
    variant: 'destructive',
  };
}

export const CONNECTED_TOAST: ToastInput = { title: `Connected to Xero`, variant: 'success' };
