import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/sandbox';
import { createTestApp, TEST_ORIGIN, type TestApp, type TestAppOptions } from './app';
import { as, register } from './session';

export const TEST_CLIENT = { clientId: 'ledgerlink-test', clientSecret: 'ledgerlink-test-secret' };

export interface XeroTestApp extends TestApp {
  sandbox: Sandbox;
}

/** The app wired to a real sandbox on an ephemeral loopback port, as in demo mode. */
export async function createXeroTestApp(
  options: TestAppOptions & { sandbox?: Partial<SandboxOptions>; sandboxInstance?: Sandbox } = {},
): Promise<XeroTestApp> {
  const sandbox =
    options.sandboxInstance ??
    (await startSandbox({
      port: 0,
      dataDir: null,
      clients: [
        {
          ...TEST_CLIENT,
          redirectUris: [`${TEST_ORIGIN}/api/xero/callback`, `${TEST_ORIGIN}/api/auth/xero/callback`],
        },
      ],
      ...options.sandbox,
    }));
  const t = await createTestApp({
    ...options,
    xero: { issuer: sandbox.url, apiUrl: sandbox.url, ...TEST_CLIENT, allowInsecureRequests: true },
    xeroHttp: { backoffMs: () => 5, ...options.xeroHttp },
  });
  return {
    ...t,
    sandbox,
    async close() {
      await t.close();
      if (!options.sandboxInstance) await sandbox.close();
    },
  };
}

/**
 * Connects Xero for a signed-in user the way the browser does: /api/xero/connect, the sandbox's
 * authorize endpoint (approved at once through auto-consent), then our callback. Returns where the
 * callback redirected to.
 */
export async function connectXero(
  app: FastifyInstance,
  sandbox: Sandbox,
  cookie: string,
  consent: { email?: string; tenants?: 'all' | string[] } = {},
): Promise<string> {
  const start = await as(app, cookie)('GET', '/api/xero/connect');
  if (start.statusCode !== 200) throw new Error(`connect failed: ${start.body}`);
  // The browser that started the flow finishes it: its OAuth binding cookie goes to the callback.
  const binding = oauthBindingCookie(start);
  sandbox.setAutoConsent({
    email: consent.email ?? 'owner@demoshop.example',
    tenants: consent.tenants ?? 'all',
  });
  const authorize = await fetch(start.json().url as string, { redirect: 'manual' });
  sandbox.setAutoConsent(null);
  const location = authorize.headers.get('location');
  if (!location) throw new Error(`sandbox did not redirect (${authorize.status}): ${await authorize.text()}`);
  const callback = new URL(location);
  const res = await app.inject({
    method: 'GET',
    url: `${callback.pathname}${callback.search}`,
    headers: { cookie: [cookie, binding].filter(Boolean).join('; ') },
  });
  return String(res.headers.location);
}

/** The `ll_oauth=…` pair an OAuth start sets (the browser binding of issue 16), or '' when there is none. */
export function oauthBindingCookie(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  const list = (Array.isArray(raw) ? raw : raw ? [raw] : []) as string[];
  return list.find((c) => c.startsWith('ll_oauth='))?.split(';')[0] ?? '';
}

/** A registered user with Xero connected (both demo organisations by default). */
export async function createConnectedUser(
  t: XeroTestApp,
  username: string,
  consent: { email?: string; tenants?: 'all' | string[] } = {},
) {
  const { cookie, user } = await register(t.app, username);
  const landed = await connectXero(t.app, t.sandbox, cookie, consent);
  if (landed !== '/organizations?connected=true') throw new Error(`connect landed on ${landed}`);
  const call = as(t.app, cookie);
  const orgs = (await call('GET', '/api/user-organizations')).json() as Array<{
    organizationId: number;
    tenantName: string;
    tenantId: string;
  }>;
  return { cookie, user, call, orgs };
}

/** Switches all four features on for an organisation (as an administrator would). */
export async function enableFeatures(t: TestApp, organizationId: number) {
  const { organizations } = await import('../db/schema/index');
  const { eq } = await import('drizzle-orm');
  await t.database.db
    .update(organizations)
    .set({
      featurePayInvoices: true,
      featureAddInvoices: true,
      featureCisBills: true,
      featureStockJournal: true,
    })
    .where(eq(organizations.id, organizationId));
}

/**
 * Until what earlier requests left running in the background has finished: the pass reading settled writes into
 * the cache, every read of Xero holding its lease (xero_sync_state), and the bytes read so far written to each
 * organisation's row (the egress meter writes every few seconds). A test that counts the Xero calls of one action,
 * or compares rows before and after one, waits for this first, so what it counts is that action's alone. Under load
 * an earlier test's reads finished inside the next test's window (isolation.test: B's egress; issue 46).
 */
export async function settleBackgroundWork(t: TestApp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await t.parts.catchUp.run();
  for (;;) {
    const result = await t.database.db.execute(
      sql`select count(*)::int as n from xero_sync_state where lease_until > now()`,
    );
    const held = ((result as unknown as { rows?: Array<{ n: number }> }).rows ??
      (result as unknown as Array<{ n: number }>))[0]?.n;
    if (held === 0) break;
    if (Date.now() > deadline)
      throw new Error(`${held} Xero reads still running after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await t.parts.egress.flush();
}
