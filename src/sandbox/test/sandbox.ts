/**
 * Helpers for tests that need a running sandbox and a connected token quickly (auto-consent + a
 * plain code exchange). The full openid-client flow is exercised in identity.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { startSandbox, type Sandbox, type SandboxOptions } from '../sandbox';

export const TEST_CLIENT = {
  clientId: 'test-client',
  clientSecret: 'test-secret',
  redirectUris: ['http://localhost:5000/api/xero/callback', 'http://localhost:5000/api/auth/xero/callback'],
};
export const FULL_SCOPES =
  'openid profile email offline_access accounting.invoices accounting.payments accounting.manualjournals accounting.settings accounting.contacts accounting.attachments';

export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, dataDir: null, clients: [TEST_CLIENT], ...options });
}

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  id_token?: string;
  expires_in: number;
  scope: string;
}

export function basicAuth(id = TEST_CLIENT.clientId, secret = TEST_CLIENT.clientSecret): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** Authorize through auto-consent and exchange the code; returns the tokens and the connected tenants. */
export async function connect(
  sandbox: Sandbox,
  opts: { email?: string; tenants?: 'all' | string[]; scope?: string } = {},
): Promise<{ tokens: TokenSet; tenants: { tenantId: string; tenantName: string; id: string }[] }> {
  sandbox.setAutoConsent({ email: opts.email ?? 'owner@demoshop.example', tenants: opts.tenants ?? 'all' });
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: TEST_CLIENT.clientId,
    redirect_uri: TEST_CLIENT.redirectUris[0] ?? '',
    scope: opts.scope ?? FULL_SCOPES,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const auth = await fetch(`${sandbox.url}/identity/connect/authorize?${params}`, { redirect: 'manual' });
  sandbox.setAutoConsent(null);
  const location = auth.headers.get('location');
  if (!location) throw new Error(`no redirect from authorize (${auth.status})`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code: ${location}`);
  const tokenRes = await fetch(`${sandbox.url}/connect/token`, {
    method: 'POST',
    headers: { authorization: basicAuth(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: TEST_CLIENT.redirectUris[0] ?? '',
      code_verifier: verifier,
    }),
  });
  const tokens = (await tokenRes.json()) as TokenSet;
  const conns = (await (
    await fetch(`${sandbox.url}/connections`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
  ).json()) as {
    tenantId: string;
    tenantName: string;
    id: string;
  }[];
  return { tokens, tenants: conns };
}

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Call the Accounting API as a client would (Accept: application/json). */
export async function api<T = Record<string, unknown>>(
  sandbox: Sandbox,
  token: string,
  tenantId: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer<T>> {
  const res = await fetch(`${sandbox.url}/api.xro/2.0${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'xero-tenant-id': tenantId,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (404 text, attachments)
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function tenantByName(tenants: { tenantId: string; tenantName: string }[], name: string): string {
  const t = tenants.find((x) => x.tenantName === name);
  if (!t) throw new Error(`tenant ${name} not connected`);
  return t.tenantId;
}
