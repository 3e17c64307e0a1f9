import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, xeroTokens } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { as, register, sessionCookie } from '../../test/session';
import { usernameSchema } from '../../../shared/admin';
import {
  connectXero,
  createConnectedUser,
  createXeroTestApp,
  oauthBindingCookie,
  type XeroTestApp,
} from '../../test/xero';

describe('connecting Xero and choosing an organisation', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
  });
  afterAll(() => t.close());

  it('links every organisation picked in the consent and makes one active', async () => {
    expect(owner.orgs.map((o) => o.tenantName)).toEqual(['Demo Builders Ltd', 'Demo Shop Ltd']);
    const status = (await owner.call('GET', '/api/xero/connection')).json();
    expect(status).toMatchObject({
      connected: true,
      tenantName: 'Demo Builders Ltd',
      defaultTaxStatus: 'Tax inclusive',
      defaultStockJournalMarginRate: 1.35,
      defaultStockJournalPostingStatus: 'draft',
      defaultCashAccountId: '',
      featurePayInvoices: false,
      featureCisBills: false,
    });
    expect(Date.parse(status.tokenExpiry) - Date.now()).toBeGreaterThan(25 * 60_000);
    const orgs = (await owner.call('GET', '/api/user-organizations')).json();
    expect(orgs.filter((o: { isActive: boolean }) => o.isActive)).toHaveLength(1);
    expect(
      orgs.every((o: { connected: boolean; hasValidToken: boolean }) => o.connected && o.hasValidToken),
    ).toBe(true);
  });

  it('answers the status serialised once while nothing changes, and a switched feature or a new Settings default at the next request (issue 32)', async () => {
    const first = await owner.call('GET', '/api/xero/connection');
    const again = await owner.call('GET', '/api/xero/connection');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-store');
    expect(again.body).toBe(first.body);
    const active = first.json() as { organizationId: number; featureCisBills: boolean };
    expect(active.featureCisBills).toBe(false);

    const on = await owner.call('PATCH', `/api/admin/organizations/${active.organizationId}/features`, {
      featureCisBills: true,
    });
    expect(on.statusCode).toBe(200);
    expect((await owner.call('GET', '/api/xero/connection')).json()).toMatchObject({ featureCisBills: true });

    const saved = await owner.call('PATCH', '/api/xero/settings', {
      organizationId: active.organizationId,
      defaultTaxStatus: 'Tax exclusive',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await owner.call('GET', '/api/xero/connection')).json()).toMatchObject({
      featureCisBills: true,
      defaultTaxStatus: 'Tax exclusive',
    });
    const off = await owner.call('PATCH', `/api/admin/organizations/${active.organizationId}/features`, {
      featureCisBills: false,
    });
    expect(off.statusCode).toBe(200);
    const settled = await owner.call('GET', '/api/xero/connection');
    expect(settled.json()).toMatchObject({ featureCisBills: false, defaultTaxStatus: 'Tax exclusive' });
    expect((await owner.call('GET', '/api/xero/connection')).body).toBe(settled.body);
  });

  it('switches the active organisation with the validation messages of the spec', async () => {
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    const ok = await owner.call('POST', '/api/xero/set-active-organization', {
      organizationId: shop?.organizationId,
    });
    expect(ok.json()).toMatchObject({ success: true, tenantName: 'Demo Shop Ltd' });
    expect((await owner.call('GET', '/api/xero/connection')).json().tenantName).toBe('Demo Shop Ltd');
    const asString = await owner.call('POST', '/api/xero/set-active-organization', {
      organizationId: String(shop?.organizationId),
    });
    expect(asString.statusCode).toBe(200);
    for (const bad of ['', 'abc', -1, 1.5]) {
      const res = await owner.call('POST', '/api/xero/set-active-organization', { organizationId: bad });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('Invalid organization ID');
    }
    const missing = await owner.call('POST', '/api/xero/set-active-organization', { organizationId: 99999 });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Organization with ID 99999 not found');
  });

  it("never lets a user see or touch another user's organisation", async () => {
    const stranger = await createConnectedUser(t, 'stranger', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    const theirs = stranger.orgs[0]?.organizationId ?? 0;
    const ownerOnly = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
    const strangerView = (await stranger.call('GET', '/api/user-organizations')).json();
    expect(strangerView.map((o: { tenantName: string }) => o.tenantName)).toEqual(['Demo Builders Ltd']);
    const res = await stranger.call('POST', '/api/xero/set-active-organization', {
      organizationId: ownerOnly,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe(`Organization with ID ${ownerOnly} not found`);
    const disconnect = await stranger.call('POST', '/api/xero/disconnect', { organizationId: ownerOnly });
    expect(disconnect.statusCode).toBe(404);
    expect(theirs).toBeGreaterThan(0);
  });

  it('stores no token in plain text', async () => {
    const stored = await t.parts.tokens.read(owner.user.id);
    expect(stored?.accessToken.length).toBeGreaterThan(20);
    const [row] = await t.database.db.select().from(xeroTokens).where(eq(xeroTokens.userId, owner.user.id));
    const everything = JSON.stringify(row);
    expect(everything).not.toContain(stored?.accessToken ?? 'x');
    expect(everything).not.toContain(stored?.refreshToken ?? 'x');
    expect(row?.accessTokenEnc).toMatch(/^v1\./);
  });

  it('refreshes an expiring token once for 50 requests arriving together', async () => {
    await t.database.db
      .update(xeroTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(xeroTokens.userId, owner.user.id));
    const before = t.sandbox.ledger().refreshCount;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => owner.call('GET', '/api/xero/connection')),
    );
    expect(answers.every((a) => a.json().connected === true)).toBe(true);
    expect(t.sandbox.ledger().refreshCount - before).toBe(1);
  });

  it('renews a token with 8 minutes left when the status is read, so a healthy idle connection is never amber (issue 17 item 6)', async () => {
    await t.database.db
      .update(xeroTokens)
      .set({ expiresAt: new Date(Date.now() + 8 * 60_000) })
      .where(eq(xeroTokens.userId, owner.user.id));
    const before = t.sandbox.ledger().refreshCount;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => owner.call('GET', '/api/xero/connection')),
    );
    expect(t.sandbox.ledger().refreshCount - before).toBe(1);
    for (const answer of answers) {
      expect(answer.json()).toMatchObject({ connected: true });
      expect(answer.json().error).toBeUndefined();
      // Well clear of the 5-minute amber threshold.
      expect(Date.parse(answer.json().tokenExpiry) - Date.now()).toBeGreaterThan(20 * 60_000);
    }
    // A token with plenty left is not renewed again.
    await owner.call('GET', '/api/xero/connection');
    expect(t.sandbox.ledger().refreshCount - before).toBe(1);
  });

  it('refreshes once across two app instances sharing one database', async () => {
    const second = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    try {
      await t.database.db
        .update(xeroTokens)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(xeroTokens.userId, owner.user.id));
      const before = t.sandbox.ledger().refreshCount;
      const viaSecond = as(second.app, owner.cookie);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2 === 0 ? owner.call('GET', '/api/xero/connection') : viaSecond('GET', '/api/xero/connection'),
        ),
      );
      expect(answers.every((a) => a.json().connected === true)).toBe(true);
      expect(t.sandbox.ledger().refreshCount - before).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('turns a revoked connection into "reconnection required" without retrying in a loop', async () => {
    const user = await createConnectedUser(t, 'revoked.user', { email: 'staff@demoshop.example' });
    t.sandbox.revokeTokens('staff@demoshop.example');
    await t.database.db
      .update(xeroTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(xeroTokens.userId, user.user.id));
    const first = (await user.call('GET', '/api/xero/connection')).json();
    expect(first).toEqual({ connected: false, error: 'Token refresh failed', lostReason: 'revoked' });
    const refreshes = t.sandbox.ledger().refreshCount;
    const again = (await user.call('GET', '/api/xero/connection')).json();
    expect(again.error).toBe('Token refresh failed');
    expect(t.sandbox.ledger().refreshCount).toBe(refreshes);
    // Reconnecting through the consent brings it back.
    expect(await connectXero(t.app, t.sandbox, user.cookie, { email: 'staff@demoshop.example' })).toBe(
      '/organizations?connected=true',
    );
    expect((await user.call('GET', '/api/xero/connection')).json().connected).toBe(true);
  });

  it('disconnects an organisation at Xero and here', async () => {
    const user = await createConnectedUser(t, 'leaver', { email: 'leaver@example.com' });
    const shop = user.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    const res = await user.call('POST', '/api/xero/disconnect', { organizationId: shop?.organizationId });
    expect(res.json()).toEqual({ success: true });
    const orgs = (await user.call('GET', '/api/user-organizations')).json();
    expect(orgs.find((o: { tenantName: string }) => o.tenantName === 'Demo Shop Ltd')?.connected).toBe(false);
    const denied = await user.call('POST', '/api/xero/set-active-organization', {
      organizationId: shop?.organizationId,
    });
    expect(denied.statusCode).toBe(400);
    expect(denied.json().message).toBe('Organization "Demo Shop Ltd" is not connected to Xero');
    // A page working on the disconnected organisation learns it from the code, not from the message.
    const read = await user.call('GET', `/api/xero/vat-rates?organizationId=${shop?.organizationId}`);
    expect(read.statusCode).toBe(403);
    expect(read.json()).toEqual({
      message: 'Organization "Demo Shop Ltd" is not connected to Xero',
      code: 'NOT_CONNECTED',
    });
  });

  it('shows an organisation disconnected in Xero as not connected once the connections are read again (issue 33 item 4)', async () => {
    const user = await createConnectedUser(t, 'xero.leaver', { email: 'xero.leaver@example.com' });
    const shop = user.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('Demo Shop not connected');
    const nothingYet = await user.call('POST', '/api/xero/connections/refresh');
    expect(nothingYet.json()).toEqual({ disconnectedInXero: [] });

    // A person disconnects Ledgerlink from Demo Shop in Xero's own web app.
    expect(t.sandbox.disconnectTenant(shop.tenantId, 'xero.leaver@example.com')).toBe(1);
    const connections = t.sandbox.ledger().identity.connections ?? 0;
    const res = await user.call('POST', '/api/xero/connections/refresh');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ disconnectedInXero: ['Demo Shop Ltd'] });
    expect(t.sandbox.ledger().identity.connections).toBe(connections + 1);
    const orgs = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      connected: boolean;
      isActive: boolean;
    }>;
    expect(orgs.find((o) => o.tenantName === 'Demo Shop Ltd')).toMatchObject({ connected: false });
    expect(orgs.find((o) => o.tenantName === 'Demo Builders Ltd')).toMatchObject({
      connected: true,
      isActive: true,
    });
    // Said once: a second read finds nothing new.
    expect((await user.call('POST', '/api/xero/connections/refresh')).json()).toEqual({
      disconnectedInXero: [],
    });
    const logged = (await t.database.db.select().from(auditLog)).filter(
      (r) => r.action === 'xero.disconnected-in-xero',
    );
    expect(logged.map((r) => [r.organizationId, r.target])).toEqual([[shop.organizationId, 'Demo Shop Ltd']]);
  });

  it('reads nothing from Xero for a user who never connected', async () => {
    const { cookie } = await register(t.app, 'never.connected');
    const connections = t.sandbox.ledger().identity.connections ?? 0;
    const res = await as(t.app, cookie)('POST', '/api/xero/connections/refresh');
    expect(res.json()).toEqual({ disconnectedInXero: [] });
    expect(t.sandbox.ledger().identity.connections ?? 0).toBe(connections);
  });

  it('costs Xero: connect = 1 code exchange + 1 GET /connections; status, list and switch = 0; disconnect = 1 DELETE', async () => {
    const { cookie } = await register(t.app, 'cost.user');
    const call = as(t.app, cookie);
    const snapshot = () => {
      const l = t.sandbox.ledger();
      return {
        api: l.totals.all,
        code: l.token.authorizationCode,
        refresh: l.refreshCount,
        connections: l.identity.connections ?? 0,
        deletes: l.identity.connectionsDelete ?? 0,
      };
    };
    const diff = (a: ReturnType<typeof snapshot>, b: ReturnType<typeof snapshot>) => ({
      api: b.api - a.api,
      code: b.code - a.code,
      refresh: b.refresh - a.refresh,
      connections: b.connections - a.connections,
      deletes: b.deletes - a.deletes,
    });
    const none = { api: 0, code: 0, refresh: 0, connections: 0, deletes: 0 };

    let before = snapshot();
    expect(await connectXero(t.app, t.sandbox, cookie, { email: 'cost@example.com' })).toBe(
      '/organizations?connected=true',
    );
    expect(diff(before, snapshot())).toEqual({ ...none, code: 1, connections: 1 });

    before = snapshot();
    const orgs = (await call('GET', '/api/user-organizations')).json() as Array<{
      organizationId: number;
      isActive: boolean;
    }>;
    await call('GET', '/api/xero/connection');
    const other = orgs.find((o) => !o.isActive);
    expect(
      (await call('POST', '/api/xero/set-active-organization', { organizationId: other?.organizationId }))
        .statusCode,
    ).toBe(200);
    await call('GET', '/api/xero/connection');
    expect(diff(before, snapshot())).toEqual(none);

    before = snapshot();
    expect(
      (await call('POST', '/api/xero/disconnect', { organizationId: other?.organizationId })).statusCode,
    ).toBe(200);
    expect(diff(before, snapshot())).toEqual({ ...none, deletes: 1 });
  });

  it('reports each failure of the callback with the spec query-string codes', async () => {
    const { cookie } = await register(t.app, 'callback.user');
    const get = (url: string, withCookie = true) =>
      t.app.inject({ url, headers: withCookie ? { cookie } : {} });
    expect((await get('/api/xero/callback?error=access_denied&state=x')).headers.location).toBe(
      '/xero-cancel',
    );
    expect((await get('/api/xero/callback?error=server_error&state=x')).headers.location).toBe(
      '/organizations?error=oauth_error&reason=server_error',
    );
    expect((await get('/api/xero/callback?state=x')).headers.location).toBe(
      '/organizations?error=missing_code',
    );
    expect((await get('/api/xero/callback?code=abc&state=unknown')).headers.location).toBe(
      '/organizations?error=invalid_request',
    );
    expect((await get('/api/xero/callback?code=abc&state=x', false)).headers.location).toBe(
      '/organizations?error=unauthorized',
    );
  });
});

describe('Sign in with Xero', () => {
  let t: XeroTestApp;
  beforeAll(async () => {
    t = await createXeroTestApp();
  });
  afterAll(() => t.close());

  /** Starts Sign in with Xero in one browser and finishes the consent at the sandbox: the callback path, and the browser's binding cookie. */
  async function startSignIn(email: string, cookie?: string) {
    const start = await t.app.inject({ url: '/api/auth/xero', headers: cookie ? { cookie } : {} });
    expect(start.statusCode).toBe(302);
    const authorizeUrl = String(start.headers.location);
    expect(authorizeUrl).toContain('code_challenge_method=S256');
    expect(authorizeUrl).toContain('nonce=');
    const binding = oauthBindingCookie(start);
    t.sandbox.setAutoConsent({ email, tenants: 'all' });
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    t.sandbox.setAutoConsent(null);
    const callback = new URL(String(consent.headers.get('location')));
    return { callbackPath: `${callback.pathname}${callback.search}`, binding };
  }

  async function signIn(email: string, cookie?: string) {
    const { callbackPath, binding } = await startSignIn(email, cookie);
    const jar = [cookie, binding].filter(Boolean).join('; ');
    return t.app.inject({ url: callbackPath, headers: jar ? { cookie: jar } : {} });
  }

  it('binds the flow to the browser that started it: a callback link finished elsewhere signs no one in', async () => {
    const start = await t.app.inject({ url: '/api/auth/xero' });
    const setCookie = String(start.headers['set-cookie']);
    expect(setCookie).toMatch(/^ll_oauth=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toMatch(/Max-Age=900/);
    // The attacker finishes their own consent and sends the callback link to a victim, whose browser never started it.
    const attacker = await startSignIn('attacker@demoshop.example');
    const victim = await t.app.inject({ url: attacker.callbackPath });
    expect(victim.headers.location).toBe('/auth?error=authentication_failed');
    expect(String(victim.headers['set-cookie'] ?? '')).not.toMatch(/ll_session=[^;]/);
    // A browser with a binding of its own, for another flow, fares no better.
    const other = await startSignIn('owner@demoshop.example');
    const attacker2 = await startSignIn('attacker@demoshop.example');
    const mixed = await t.app.inject({ url: attacker2.callbackPath, headers: { cookie: other.binding } });
    expect(mixed.headers.location).toBe('/auth?error=authentication_failed');
    expect(String(mixed.headers['set-cookie'] ?? '')).not.toMatch(/ll_session=[^;]/);
    // The browser that started it signs in.
    const own = await t.app.inject({ url: other.callbackPath, headers: { cookie: other.binding } });
    expect(own.headers.location).toBe('/auth?xero_callback=true');
  });

  it('binds connect and reconnect to the browser that started them: a callback without it connects nothing', async () => {
    const local = await register(t.app, 'bound.person');
    for (const route of ['/api/xero/connect', '/api/xero/reconnect']) {
      const start = await as(t.app, local.cookie)('GET', route);
      expect(String(start.headers['set-cookie'])).toMatch(/^ll_oauth=.+HttpOnly.+SameSite=Lax/);
      t.sandbox.setAutoConsent({ email: 'owner@demoshop.example', tenants: 'all' });
      const consent = await fetch(start.json().url as string, { redirect: 'manual' });
      t.sandbox.setAutoConsent(null);
      const callback = new URL(String(consent.headers.get('location')));
      const res = await t.app.inject({
        url: `${callback.pathname}${callback.search}`,
        headers: { cookie: local.cookie },
      });
      expect(res.headers.location, route).toBe('/organizations?error=invalid_request');
      expect((await as(t.app, local.cookie)('GET', '/api/user-organizations')).json(), route).toEqual([]);
    }
  });

  it('derives a username that keeps the username rule from any Xero email, and a unique one', async () => {
    const hostile = '"><svg/onload=alert(9)>@e.co';
    const first = (await as(t.app, sessionCookie(await signIn(hostile)))('GET', '/api/user')).json();
    expect(usernameSchema.safeParse(first.username).success).toBe(true);
    expect(first.username).not.toMatch(/[<>"/]/);
    expect(first.email).toBe(hostile);
    const long = `${'a'.repeat(70)}@example.com`;
    const second = (await as(t.app, sessionCookie(await signIn(long)))('GET', '/api/user')).json();
    expect(usernameSchema.safeParse(second.username).success).toBe(true);
    const third = (
      await as(t.app, sessionCookie(await signIn(`${'a'.repeat(70)}@example.org`)))('GET', '/api/user')
    ).json();
    expect(usernameSchema.safeParse(third.username).success).toBe(true);
    expect(third.username).not.toBe(second.username);
  });

  it('creates the user, connects the organisations and signs them in', async () => {
    const res = await signIn('owner@demoshop.example');
    expect(res.headers.location).toBe('/auth?xero_callback=true');
    const cookie = sessionCookie(res);
    const me = (await as(t.app, cookie)('GET', '/api/auth/current-user')).json();
    expect(me).toMatchObject({
      username: 'owner@demoshop.example',
      email: 'owner@demoshop.example',
      isXeroUser: true,
      isAdmin: true,
    });
    const orgs = (await as(t.app, cookie)('GET', '/api/user-organizations')).json();
    expect(orgs).toHaveLength(2);
    const again = await signIn('owner@demoshop.example');
    expect((await as(t.app, sessionCookie(again))('GET', '/api/user')).json().id).toBe(me.id);
  });

  it('links Xero to the signed-in local account instead of creating another user', async () => {
    const local = await register(t.app, 'local.person');
    const res = await signIn('bookkeeper@demobuilders.example', local.cookie);
    const me = (await as(t.app, sessionCookie(res))('GET', '/api/user')).json();
    expect(me).toMatchObject({ id: local.user.id, username: 'local.person', isXeroUser: true });
  });

  it('lands on /auth with the spec error codes', async () => {
    const get = (url: string) => t.app.inject({ url, headers: { origin: TEST_ORIGIN } });
    expect((await get('/api/auth/xero/callback?state=x')).headers.location).toBe('/auth?error=missing_code');
    expect((await get('/api/auth/xero/callback?code=a&state=nope')).headers.location).toBe(
      '/auth?error=authentication_failed',
    );
    expect((await get('/api/auth/xero/callback?error=access_denied')).headers.location).toBe('/xero-cancel');
    expect((await get('/api/auth/xero/callback?error=temporarily_unavailable')).headers.location).toBe(
      '/auth?error=oauth_error&reason=temporarily_unavailable',
    );
  });
});
