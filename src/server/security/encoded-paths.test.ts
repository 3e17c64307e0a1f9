import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../app';
import { TEST_ORIGIN } from '../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';
import { WEBHOOK_PATH } from '../modules/xero-webhooks/webhooks.routes';

/**
 * Percent-encoded paths (issue 28 item 6). The router decodes a path before it matches, so `/%61pi/logout` runs
 * the `/api/logout` route; every check that guards the API (the same-origin rule, the input guard, no-store,
 * rate limits) must see it as `/api/logout` too. The routes come from Fastify's own table, so a route added
 * later is swept without touching this file.
 */

const FOREIGN = 'https://evil.example';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `/api/…` with its first letter escaped, the form of the attack report. */
const escapeFirst = (path: string) => path.replace(/^\/api\//, '/%61pi/');
/** Every character but the slashes escaped, lower-case hex. */
const escapeAll = (path: string) =>
  path
    .split('/')
    .map((segment) => [...segment].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''))
    .join('/');
const ENCODINGS = [escapeFirst, escapeAll];

/** A concrete path of a route pattern: every parameter `1`, a wildcard `index.html`. */
const concrete = (route: RegisteredRoute) =>
  route.url.replace(/:[A-Za-z]+/g, '1').replace(/\*$/, 'index.html');

/**
 * Tables an instance writes on its own clock, whatever the requests: its heartbeat (ledger_instances). They say
 * the server is alive, not what a user did.
 */
const HOUSEKEEPING_TABLES = new Set(['ledger_instances']);

/** Every row of every table, hashed per table: "changes nothing" means this is the same afterwards. */
async function fingerprintDatabase(t: XeroTestApp): Promise<Record<string, string>> {
  const listed = await t.database.db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const tables = (
    (listed as unknown as { rows?: Array<{ table_name: string }> }).rows ??
    (listed as unknown as Array<{ table_name: string }>)
  ).map((r) => r.table_name);
  const prints: Record<string, string> = {};
  for (const table of tables.filter((name) => !HOUSEKEEPING_TABLES.has(name))) {
    const found = await t.database.db.execute(
      sql`select count(*)::int as n, coalesce(md5(string_agg(row_to_json(x)::text, '|' order by row_to_json(x)::text)), '') as h from ${sql.identifier(table)} x`,
    );
    const row = ((found as unknown as { rows?: Array<{ n: number; h: string }> }).rows ??
      (found as unknown as Array<{ n: number; h: string }>))[0];
    prints[table] = `${row?.n ?? 0}:${row?.h ?? ''}`;
  }
  return prints;
}

describe('percent-encoded paths are the paths they decode to', () => {
  let t: XeroTestApp;
  let cookie: string;
  let routes: RegisteredRoute[];
  beforeAll(async () => {
    t = await createXeroTestApp();
    const user = await createConnectedUser(t, 'encoded.paths', { tenants: ['Demo Shop Ltd'] });
    cookie = user.cookie;
    for (const org of user.orgs) await enableFeatures(t, org.organizationId);
    routes = t.parts.routeTable.filter((r) => r.url.startsWith('/api/'));
  }, 120_000);
  afterAll(() => t.close());

  it('refuses every state-changing route requested cross-site with its path encoded, and changes nothing', async () => {
    const changing = routes.filter((r) => STATE_CHANGING.has(r.method));
    expect(changing.length).toBeGreaterThan(30);
    const before = await fingerprintDatabase(t);
    const writesBefore = t.sandbox.ledger().writes.length;
    const letThrough: string[] = [];
    let tried = 0;
    for (const route of changing) {
      for (const encode of ENCODINGS) {
        const url = encode(concrete(route));
        // A cross-site HTML form sent as text/plain (a body Fastify parses, so it reaches the route: the attack
        // of the report), and a request carrying only a foreign Referer.
        for (const headers of [
          { origin: FOREIGN, 'content-type': 'text/plain' },
          { referer: `${FOREIGN}/page`, 'content-type': 'application/json' },
        ]) {
          tried += 1;
          const res = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: { ...headers, cookie, 'idempotency-key': `encoded-${tried}` },
            payload: headers['content-type'].includes('json') ? '{}' : 'a=1',
          });
          // Xero's webhook deliveries are trusted by their signature instead of an origin: refused unsigned.
          const refused =
            route.url === WEBHOOK_PATH
              ? res.statusCode >= 400 && res.statusCode < 500
              : res.statusCode === 403 && res.json().message === 'Cross-origin request refused';
          if (!refused)
            letThrough.push(`${route.method} ${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
    }
    expect(letThrough).toEqual([]);
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
    expect(await fingerprintDatabase(t)).toEqual(before);
    // Still signed in: the encoded logout of the attack report did not end the session.
    const me = await t.app.inject({ url: '/api/user', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    console.warn(
      `encoded paths: ${changing.length} state-changing routes, ${tried} cross-site requests refused`,
    );
  }, 300_000);

  it('reaches the route itself with an encoded path (so the sweep above tests the routes, not a 404)', async () => {
    const unmatched: string[] = [];
    for (const route of routes.filter((r) => STATE_CHANGING.has(r.method))) {
      // Signed out and from the app's own origin: each route answers in its own words (401, 400…), not "Not found".
      const url = escapeAll(concrete(route));
      const res = await t.app.inject({
        method: route.method as 'POST',
        url,
        headers: { origin: TEST_ORIGIN, 'content-type': 'application/json' },
        payload: '{}',
      });
      if (res.statusCode === 404 && String(res.json().message).startsWith('Not found:'))
        unmatched.push(`${route.method} ${url}`);
    }
    expect(unmatched).toEqual([]);
    // The attack report's request from the app itself does sign out: the encoded path is the logout route.
    const own = await createConnectedUser(t, 'encoded.logout', { tenants: ['Demo Shop Ltd'] });
    const out = await t.app.inject({
      method: 'POST',
      url: '/%61pi/logout',
      headers: { origin: TEST_ORIGIN, cookie: own.cookie },
    });
    expect(out.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user', headers: { cookie: own.cookie } })).statusCode).toBe(401);
  }, 120_000);

  it('applies the input guard to every route with its path encoded', async () => {
    const missed: string[] = [];
    // Xero's webhook route reads its raw body in its content-type parser and answers there (unsigned, or not
    // set up) before any guard runs, with or without encoding: its own suite covers it.
    for (const route of routes.filter((r) => r.url !== WEBHOOK_PATH)) {
      for (const encode of ENCODINGS) {
        // A NUL in a query parameter no route declares: only the guard can refuse it.
        const url = `${encode(concrete(route))}?note=a%00b`;
        const withBody = route.method !== 'GET' && route.method !== 'DELETE';
        const res = await t.app.inject({
          method: route.method as 'POST',
          url,
          headers: {
            origin: TEST_ORIGIN,
            cookie,
            ...(withBody ? { 'content-type': 'application/json' } : {}),
          },
          ...(withBody ? { payload: '{}' } : {}),
        });
        if (res.statusCode !== 400 || !String(res.json().message).startsWith('Invalid querystring.note'))
          missed.push(`${route.method} ${url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(missed).toEqual([]);
    // A NUL in a body field a route does not declare, on the encoded sign-in.
    const login = await t.app.inject({
      method: 'POST',
      url: '/%61pi/login',
      headers: { origin: TEST_ORIGIN },
      payload: { username: 'encoded.paths', password: 'Sturdy-Ledger-Pass-1', note: 'a\u0000b' },
    });
    expect(login.statusCode).toBe(400);
    expect(login.json().message).toMatch(/^Invalid body\.note/);
  }, 300_000);

  it('keeps every encoded API answer out of caches, as the plain path is', async () => {
    const differ: string[] = [];
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const plain = await t.app.inject({ url: concrete(route) });
      for (const encode of ENCODINGS) {
        const url = encode(concrete(route));
        const res = await t.app.inject({ url });
        const header = res.headers['cache-control'];
        if (!header || header !== plain.headers['cache-control'])
          differ.push(`GET ${url} → ${res.statusCode} cache-control ${String(header)}`);
      }
    }
    expect(differ).toEqual([]);
    // A private answer read through an encoded path: the signed-in user's own details.
    const me = await t.app.inject({ url: '/%61pi/user', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().username).toBe('encoded.paths');
    expect(me.headers['cache-control']).toBe('no-store');
    // An unknown encoded API path is the API's JSON 404, kept out of caches, not the web app's page.
    const unknown = await t.app.inject({ url: '/%61pi/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'Not found: GET /api/nothing-here', code: 'NOT_FOUND' });
    expect(unknown.headers['cache-control']).toBe('no-store');
  }, 300_000);

  it('counts encoded and plain requests against the same rate limit', async () => {
    // Registration allows 20 an hour per address; half of them through an encoded path.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: i % 2 === 0 ? '/%61pi/register' : '/api/register',
        headers: { origin: TEST_ORIGIN },
        remoteAddress: '203.0.113.9',
        payload: { username: `encoded.limit.${i}`, password: 'Sturdy-Ledger-Pass-1' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true);
    expect(statuses[20]).toBe(429);
    const encoded = await t.app.inject({
      method: 'POST',
      url: escapeAll('/api/register'),
      headers: { origin: TEST_ORIGIN },
      remoteAddress: '203.0.113.9',
      payload: { username: 'encoded.limit.extra', password: 'Sturdy-Ledger-Pass-1' },
    });
    expect(encoded.statusCode).toBe(429);
  }, 120_000);
});
