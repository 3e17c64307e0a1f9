import crypto from 'node:crypto';
import path from 'node:path';
import type { XeroEndpoints } from './app';
import type { AppConfig } from './config/env';

export const DEMO_CLIENT_ID = 'ledgerlink-demo';

/** Xero's redirect URIs for this app: one for connecting organisations, one for Sign in with Xero. */
export function redirectUris(appUrl: string): { connect: string; signin: string } {
  return { connect: `${appUrl}/api/xero/callback`, signin: `${appUrl}/api/auth/xero/callback` };
}

/**
 * Demo mode: start the built-in Xero sandbox on loopback and register this app with it. The server's Xero
 * client then talks to it exactly as it would to Xero; only the base URLs differ.
 */
export async function startDemoSandbox(config: AppConfig) {
  const { startSandbox } = await import('../sandbox/sandbox');
  const clientSecret = crypto.randomBytes(24).toString('base64url');
  const uris = redirectUris(config.appUrl);
  // Accept the loopback spellings of the app's address too, as a developer may open either.
  const alternates = [config.appUrl, `http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`];
  const redirects = [...new Set(alternates.flatMap((origin) => Object.values(redirectUris(origin))))];
  const sandbox = await startSandbox({
    host: '127.0.0.1',
    port: config.sandbox.port,
    dataDir: path.join(config.dataDir, 'sandbox'),
    seed: config.sandbox.seed,
    scale: config.sandbox.scale,
    clients: [{ clientId: DEMO_CLIENT_ID, clientSecret, redirectUris: [uris.connect, uris.signin, ...redirects] }],
  });
  const endpoints: XeroEndpoints = {
    issuer: sandbox.url,
    apiUrl: sandbox.url,
    clientId: DEMO_CLIENT_ID,
    clientSecret,
    scopes: config.xero.scopes,
    allowInsecureRequests: true,
  };
  return { url: sandbox.url, endpoints, close: () => sandbox.close(), sandbox };
}
