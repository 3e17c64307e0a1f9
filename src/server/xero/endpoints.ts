/**
 * Where the Xero client sends its requests (Xero itself in live mode, the built-in sandbox in demo mode) and who
 * Ledgerlink is to it: the identity service (OAuth discovery), the API host and the app's credentials. The Xero
 * client takes these from whoever wires it (the server, demo mode, tests); it knows nothing of the app itself.
 */
export interface XeroEndpoints {
  issuer: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  /** Only for an http issuer on loopback (the sandbox); never for the real Xero. */
  allowInsecureRequests: boolean;
  /** The key Xero signs webhooks with; demo mode shares one with its sandbox. Default: XERO_WEBHOOK_KEY. */
  webhookKey?: string | undefined;
}
