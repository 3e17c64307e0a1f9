import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from './sandbox';
import {
  api,
  basicAuth,
  connect,
  FULL_SCOPES,
  startTestSandbox,
  TEST_CLIENT,
  tenantByName,
} from './test/sandbox';

const REDIRECT = TEST_CLIENT.redirectUris[0] ?? '';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

async function discover(basic = false): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(sandbox.url),
    TEST_CLIENT.clientId,
    TEST_CLIENT.clientSecret,
    basic
      ? oidc.ClientSecretBasic(TEST_CLIENT.clientSecret)
      : oidc.ClientSecretPost(TEST_CLIENT.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
}

function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]+)"`).exec(html);
  if (!m?.[1]) throw new Error(`no ${name} in page`);
  return m[1];
}

/** Click through the login and consent pages like a browser would; returns the callback URL. */
async function consentThroughPages(
  authUrl: URL,
  email: string,
  pick: (orgs: { id: string; name: string }[]) => string[],
  action = 'allow',
): Promise<URL> {
  const loginPage = await fetch(authUrl, { redirect: 'manual' });
  expect(loginPage.status).toBe(200);
  expect(loginPage.headers.get('content-type')).toContain('text/html');
  const loginHtml = await loginPage.text();
  expect(loginHtml).toContain('Log in to Xero');
  const request = hidden(loginHtml, 'request');
  const login = await fetch(`${sandbox.url}/identity/connect/authorize/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request, email }),
  });
  expect(login.status).toBe(303);
  const consent = await fetch(new URL(login.headers.get('location') ?? '', sandbox.url));
  const consentHtml = await consent.text();
  expect(consentHtml).toContain('wants to access your Xero data');
  const orgs = [
    ...consentHtml.matchAll(
      /name="tenants" value="([^"]+)"[^>]*>\s*<span class="org"[^>]*>[^<]*<\/span>\s*<span class="who"><strong>([^<]+)<\/strong>/g,
    ),
  ].map((m) => ({
    id: m[1] ?? '',
    name: (m[2] ?? '').replace('&amp;', '&'),
  }));
  const body = new URLSearchParams({ request, action });
  for (const id of pick(orgs)) body.append('tenants', id);
  const done = await fetch(`${sandbox.url}/identity/connect/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  expect(done.status).toBe(302);
  return new URL(done.headers.get('location') ?? '');
}

describe('OAuth 2 / OpenID Connect with openid-client', () => {
  it('publishes a discovery document whose endpoints all point at the sandbox', async () => {
    const config = await discover();
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(sandbox.url);
    expect(meta.authorization_endpoint).toBe(`${sandbox.url}/identity/connect/authorize`);
    expect(meta.token_endpoint).toBe(`${sandbox.url}/connect/token`);
    expect(meta.code_challenge_methods_supported).toContain('S256');
  });

  it('drives the whole flow: code + PKCE + state + nonce → tokens → connections → an Accounting call', async () => {
    const config = await discover(true);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: FULL_SCOPES,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await consentThroughPages(authUrl, 'owner@demoshop.example', (orgs) =>
      orgs.map((o) => o.id),
    );
    expect(callback.searchParams.get('state')).toBe(state);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(1800);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = tokens.claims();
    expect(claims?.aud).toBe(TEST_CLIENT.clientId);
    expect(claims?.iss).toBe(sandbox.url);
    expect(claims?.email).toBe('owner@demoshop.example');
    expect(claims?.given_name).toBe('Olivia');
    expect(claims?.family_name).toBe('Owner');
    expect(claims?.xero_userid).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims?.preferred_username).toBe('owner@demoshop.example');
    expect(claims?.sid).toBeTruthy();

    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims?.sub));
    expect(info.email).toBe('owner@demoshop.example');

    const accessClaims = JSON.parse(
      Buffer.from(tokens.access_token.split('.')[1] ?? '', 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(accessClaims.client_id).toBe(TEST_CLIENT.clientId);
    expect(accessClaims.scope).toContain('accounting.invoices');

    const connections = (await (
      await oidc.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${sandbox.url}/connections?authEventId=${String(accessClaims.authentication_event_id)}`),
        'GET',
      )
    ).json()) as { tenantId: string; tenantName: string; tenantType: string; authEventId: string }[];
    expect(connections.map((c) => c.tenantName).sort()).toEqual(['Demo Builders Ltd', 'Demo Shop Ltd']);
    expect(
      connections.every(
        (c) => c.tenantType === 'ORGANISATION' && c.authEventId === accessClaims.authentication_event_id,
      ),
    ).toBe(true);

    const shop = tenantByName(connections, 'Demo Shop Ltd');
    const org = await oidc.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${sandbox.url}/api.xro/2.0/Organisation`),
      'GET',
      undefined,
      new Headers({ 'xero-tenant-id': shop, accept: 'application/json' }),
    );
    expect(org.status).toBe(200);
    const body = (await org.json()) as { Organisations: { Name: string; OrganisationID: string }[] };
    expect(body.Organisations[0]?.Name).toBe('Demo Shop Ltd');
    expect(body.Organisations[0]?.OrganisationID).toBe(shop);

    // Refresh rotates the refresh token.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // Revocation removes every connection of the user to this app.
    await oidc.tokenRevocation(config, refreshed.refresh_token ?? '');
    const after = await fetch(`${sandbox.url}/connections`, {
      headers: { authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(after.status).toBe(401);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token ?? '')).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a new email signs in as a new sandbox user; ticking one organisation connects only that one', async () => {
    const config = await discover();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const authUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: FULL_SCOPES,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await consentThroughPages(authUrl, 'new.person@example.com', (orgs) =>
      orgs.filter((o) => o.name === 'Demo Builders Ltd').map((o) => o.id),
    );
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.claims()?.given_name).toBe('New');
    const conns = (await (
      await fetch(`${sandbox.url}/connections`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      })
    ).json()) as { tenantName: string }[];
    expect(conns.map((c) => c.tenantName)).toEqual(['Demo Builders Ltd']);
  });

  it('Cancel redirects back with error=access_denied and the state', async () => {
    const config = await discover();
    const authUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: FULL_SCOPES,
      state: 'abc',
    });
    const callback = await consentThroughPages(authUrl, 'owner@demoshop.example', () => [], 'cancel');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('abc');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('refuses an unknown client or an unregistered redirect URI with an error page, never a redirect', async () => {
    const unknown = await fetch(
      `${sandbox.url}/identity/connect/authorize?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=openid`,
      { redirect: 'manual' },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    expect(await unknown.text()).toContain('invalid_client');
    const badRedirect = await fetch(
      `${sandbox.url}/identity/connect/authorize?response_type=code&client_id=${TEST_CLIENT.clientId}&redirect_uri=${encodeURIComponent('http://evil.example/cb')}&scope=openid`,
      { redirect: 'manual' },
    );
    expect(badRedirect.status).toBe(400);
    expect(badRedirect.headers.get('location')).toBeNull();
    expect(await badRedirect.text()).toContain('Invalid redirect_uri');
  });

  it('answers invalid_client for a wrong secret and invalid_grant for a reused code or a wrong PKCE verifier', async () => {
    const wrong = await fetch(`${sandbox.url}/connect/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(TEST_CLIENT.clientId, 'wrong'),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=refresh_token&refresh_token=x',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid_client' });

    sandbox.setAutoConsent({ email: 'owner@demoshop.example', tenants: 'all' });
    const challenge = await oidc.calculatePKCECodeChallenge('a'.repeat(43));
    const res = await fetch(
      `${sandbox.url}/identity/connect/authorize?${new URLSearchParams({ response_type: 'code', client_id: TEST_CLIENT.clientId, redirect_uri: REDIRECT, scope: FULL_SCOPES, code_challenge: challenge, code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    );
    sandbox.setAutoConsent(null);
    const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const exchange = (verifier: string) =>
      fetch(`${sandbox.url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: TEST_CLIENT.clientId,
          client_secret: TEST_CLIENT.clientSecret,
        }),
      });
    const bad = await exchange('b'.repeat(43));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_grant');
    const good = await exchange('a'.repeat(43));
    expect(good.status).toBe(200);
    const reused = await exchange('a'.repeat(43));
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('expires codes after codeTtlSeconds', async () => {
    sandbox.setAutoConsent({ email: 'owner@demoshop.example', tenants: 'all' });
    const res = await fetch(
      `${sandbox.url}/identity/connect/authorize?${new URLSearchParams({ response_type: 'code', client_id: TEST_CLIENT.clientId, redirect_uri: REDIRECT, scope: FULL_SCOPES })}`,
      { redirect: 'manual' },
    );
    sandbox.setAutoConsent(null);
    const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
    sandbox.advanceClock(301);
    try {
      const late = await fetch(`${sandbox.url}/connect/token`, {
        method: 'POST',
        headers: { authorization: basicAuth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
      });
      expect(late.status).toBe(400);
    } finally {
      sandbox.setClockOffset(0);
    }
  });
});

describe('tokens over time (sandbox clock)', () => {
  const refresh = (token: string) =>
    fetch(`${sandbox.url}/connect/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
    });

  it('rotates refresh tokens; the previous one works during the grace period and gives invalid_grant after it', async () => {
    const { tokens } = await connect(sandbox);
    try {
      const first = await refresh(tokens.refresh_token);
      expect(first.status).toBe(200);
      const rotated = (await first.json()) as { refresh_token: string; access_token: string };
      expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
      sandbox.advanceClock(29 * 60);
      const again = await refresh(tokens.refresh_token);
      expect(again.status).toBe(200);
      sandbox.advanceClock(2 * 60);
      const late = await refresh(tokens.refresh_token);
      expect(late.status).toBe(400);
      expect(await late.json()).toEqual({ error: 'invalid_grant' });
      // The newest token still works.
      const latest = (await again.json()) as { refresh_token: string };
      expect((await refresh(latest.refresh_token)).status).toBe(200);
      const ledger = sandbox.ledger();
      expect(ledger.refreshCount).toBeGreaterThanOrEqual(4);
      expect(ledger.token.refreshFailed).toBeGreaterThanOrEqual(1);
    } finally {
      sandbox.setClockOffset(0);
    }
  });

  it('access tokens expire after accessTokenTtlSeconds with a TokenExpired 401', async () => {
    const { tokens, tenants } = await connect(sandbox);
    const shop = tenantByName(tenants, 'Demo Shop Ltd');
    try {
      expect((await api(sandbox, tokens.access_token, shop, 'GET', '/Organisation')).status).toBe(200);
      sandbox.advanceClock(1801);
      const expired = await api<{ Status: number; Detail: string; Title: string }>(
        sandbox,
        tokens.access_token,
        shop,
        'GET',
        '/Organisation',
      );
      expect(expired.status).toBe(401);
      expect(expired.body.Title).toBe('Unauthorized');
      expect(expired.body.Detail).toMatch(/^TokenExpired: token expired at /);
      const renewed = (await (await refresh(tokens.refresh_token)).json()) as { access_token: string };
      expect((await api(sandbox, renewed.access_token, shop, 'GET', '/Organisation')).status).toBe(200);
    } finally {
      sandbox.setClockOffset(0);
    }
  });
});

describe('connections, tenants and scopes', () => {
  it('403 for a tenant the token does not cover; DELETE /connections/{id} disconnects one organisation', async () => {
    const { tokens, tenants } = await connect(sandbox, { email: 'staff@demoshop.example' });
    expect(tenants.map((t) => t.tenantName)).toEqual(['Demo Shop Ltd']);
    const builders = sandbox.info().orgs.find((o) => o.name === 'Demo Builders Ltd')?.tenantId ?? '';
    const forbidden = await api<{ Status: number; Detail: string }>(
      sandbox,
      tokens.access_token,
      builders,
      'GET',
      '/Organisation',
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.Detail).toBe('AuthenticationUnsuccessful');
    const missing = await fetch(`${sandbox.url}/api.xro/2.0/Organisation`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' },
    });
    expect(missing.status).toBe(403);

    const shopConn = tenants[0];
    const del = await fetch(`${sandbox.url}/Connections/${shopConn?.id ?? ''}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(del.status).toBe(204);
    expect(
      (await api(sandbox, tokens.access_token, shopConn?.tenantId ?? '', 'GET', '/Organisation')).status,
    ).toBe(403);
    const unknown = await fetch(`${sandbox.url}/connections/${shopConn?.id ?? ''}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('checks scopes per endpoint and accepts both the broad and the granular vocabulary', async () => {
    const broad = await connect(sandbox, {
      scope:
        'openid offline_access accounting.transactions accounting.settings.read accounting.contacts.read',
    });
    const shop = tenantByName(broad.tenants, 'Demo Shop Ltd');
    expect(
      (await api(sandbox, broad.tokens.access_token, shop, 'GET', '/Invoices?page=1&pageSize=1')).status,
    ).toBe(200);
    expect((await api(sandbox, broad.tokens.access_token, shop, 'GET', '/ManualJournals')).status).toBe(200);
    expect((await api(sandbox, broad.tokens.access_token, shop, 'GET', '/Payments?page=1')).status).toBe(200);
    expect((await api(sandbox, broad.tokens.access_token, shop, 'GET', '/Accounts')).status).toBe(200);
    const noAttachments = await api<{ Detail: string }>(
      sandbox,
      broad.tokens.access_token,
      shop,
      'GET',
      '/Invoices/00000000-0000-4000-8000-000000000000/Attachments',
    );
    expect(noAttachments.status).toBe(401);
    expect(noAttachments.body.Detail).toBe('AuthorizationUnsuccessful');

    const narrow = await connect(sandbox, {
      scope: 'openid offline_access accounting.invoices.read accounting.settings',
    });
    const t = tenantByName(narrow.tenants, 'Demo Shop Ltd');
    expect(
      (await api(sandbox, narrow.tokens.access_token, t, 'GET', '/Invoices?page=1&pageSize=1')).status,
    ).toBe(200);
    expect((await api(sandbox, narrow.tokens.access_token, t, 'GET', '/Payments')).status).toBe(401);
    expect(
      (await api(sandbox, narrow.tokens.access_token, t, 'PUT', '/Invoices', { Invoices: [] })).status,
    ).toBe(401);
    // CIS settings need accounting.settings, not contacts.
    const contactId = sandbox.state.orgs[0]?.contacts[0]?.ContactID ?? '';
    expect(
      (await api(sandbox, narrow.tokens.access_token, t, 'GET', `/Contacts/${contactId}/CISSettings`)).status,
    ).toBe(200);
    expect((await api(sandbox, narrow.tokens.access_token, t, 'GET', `/Contacts/${contactId}`)).status).toBe(
      401,
    );
  });

  it('refuses requests without a valid bearer token with Xero’s 401 problem body', async () => {
    const res = await fetch(`${sandbox.url}/api.xro/2.0/Invoices`, {
      headers: { authorization: 'Bearer nonsense', accept: 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      Title: 'Unauthorized',
      Status: 401,
      Detail: 'AuthenticationUnsuccessful',
    });
  });
});
