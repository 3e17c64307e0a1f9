import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RegisteredRoute } from '../app';
import { TEST_ORIGIN } from '../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';

/**
 * Bad input on every route (issue 11): property-based bodies, query strings and headers — wrong types,
 * huge numbers, negative and 3-decimal money, long strings, prototype-pollution keys — must get a 4xx with
 * a clear message, never a 5xx, never a stack trace or SQL, and must change nothing in Xero.
 */
const nasty = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.constantFrom(1e308, -1e308, 12.345, -0.01, 0.005, 99_999_999_999.99, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 50 }),
  fc.constantFrom(
    'x'.repeat(20_000),
    '__proto__',
    'constructor',
    "'; DROP TABLE users; --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '\u0000',
  ),
  fc.constantFrom(
    'a\u0000b',
    '\u0001\u001b[2J',
    '\u007f',
    '\u0085',
    '\ud800',
    'x\udc00y',
    2_147_483_648,
    4_294_967_296,
    9_223_372_036_854_775_808,
    '2147483648',
    '18446744073709551616',
  ),
  fc.array(fc.integer(), { maxLength: 5 }),
);
const body = fc.oneof(
  fc.dictionary(
    fc.constantFrom(
      'amount',
      'cashAmount',
      'totalAmount',
      'date',
      'organizationId',
      'invoices',
      'id',
      'username',
      'password',
      'email',
      'isAdmin',
      'approve',
      'invoiceId',
      'accountId',
      'featureCisBills',
      'userId',
      'search',
      'action',
    ),
    nasty,
  ),
  fc.constant({ __proto__: { isAdmin: true }, constructor: { prototype: { isAdmin: true } } }),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "amount": 1}')),
  nasty,
);

/** Texts the database refuses or mangles: NUL and other control characters, lone UTF-16 surrogates. */
const BAD_TEXTS = ['\u0000', 'a\u0000b', '\u0001', '\u001b[31m', '\u007f', '\u0085', '\ud800', 'x\udc00y'];
/** Ids beyond a 32-bit and a 64-bit integer, either sign, as text (a query string) and as JSON numbers. */
const SURROGATE = /[\ud800-\udfff]/;
const BIG_IDS = ['2147483648', '-2147483649', '4294967296', '9223372036854775808', '18446744073709551616'];
const BIG_ID_NUMBERS = [2_147_483_648, 4_294_967_296, 9_223_372_036_854_775_808, 1e19];

/** The top-level properties a route's zod schema declares for its body, query string or parameters, with their JSON types. */
function declaredProperties(schema: unknown): Record<string, string> {
  if (!schema || typeof schema !== 'object' || !('_zod' in schema)) return {};
  const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const found: Record<string, string> = {};
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const n = node as {
      properties?: Record<string, { type?: unknown; anyOf?: Array<{ type?: unknown }> }>;
      anyOf?: unknown[];
      oneOf?: unknown[];
      allOf?: unknown[];
    };
    for (const [key, prop] of Object.entries(n.properties ?? {})) {
      const type = prop.type ?? prop.anyOf?.map((p) => p.type).find(Boolean) ?? 'string';
      found[key] ??= Array.isArray(type) ? String(type[0]) : String(type);
    }
    for (const child of [...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.allOf ?? [])]) visit(child);
  };
  visit(json);
  return found;
}

/** Percent-encoding, with a lone surrogate sent as the bytes a careless encoder makes of it (CESU-8). */
function encode(value: string): string {
  return [...value]
    .map((ch) =>
      /[\ud800-\udfff]/.test(ch)
        ? `%${[0xe0 | (ch.charCodeAt(0) >> 12), 0x80 | ((ch.charCodeAt(0) >> 6) & 0x3f), 0x80 | (ch.charCodeAt(0) & 0x3f)].map((b) => b.toString(16).toUpperCase()).join('%')}`
        : encodeURIComponent(ch),
    )
    .join('');
}

/** A body with every declared field filled with something of its type, so one bad field is what a request tries. */
function plausibleBody(route: RegisteredRoute): Record<string, unknown> {
  const sample: Record<string, unknown> = {
    string: 'abc',
    number: 1,
    integer: 1,
    boolean: true,
    array: [],
    object: {},
  };
  return Object.fromEntries(
    Object.entries(declaredProperties(route.schema.body)).map(([key, type]) => [key, sample[type] ?? 'abc']),
  );
}

const LEAKS = [
  /at .+\.(ts|js):\d+/,
  /node_modules/,
  /\bselect\b.+\bfrom\b/i,
  /\binsert into\b/i,
  /syntax error at or near/i,
  /drizzle/i,
];

describe('bad input on every route', () => {
  let t: XeroTestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createXeroTestApp();
    const user = await createConnectedUser(t, 'fuzz.user', { tenants: ['Demo Shop Ltd'] });
    cookie = user.cookie;
    for (const org of user.orgs) await enableFeatures(t, org.organizationId);
  }, 120_000);
  afterAll(() => t.close());

  it('answers 4xx with a message, never 5xx or internals, and writes nothing to Xero', async () => {
    // Logout would end the fuzzing session; the OAuth redirects are covered by their own tests.
    const routes = t.parts.routeTable.filter(
      (r) => r.url.startsWith('/api/') && !/callback|logout|^\/api\/auth\/xero$/.test(r.url),
    );
    const writesBefore = t.sandbox.ledger().writes.length;
    const problems: string[] = [];
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(
          body,
          fc.string({ maxLength: 30 }),
          fc.constantFrom('x', '-1', '0', '1.5', '99999999999', '%00', 'a'.repeat(300)),
          async (payload, query, param) => {
            const url = `${route.url.replace(/:[A-Za-z]+/g, encodeURIComponent(param))}?refresh=${encodeURIComponent(query)}&org=${encodeURIComponent(query)}&search=${encodeURIComponent(query)}`;
            const res = await t.app.inject({
              method: route.method as 'POST',
              url,
              headers: {
                origin: TEST_ORIGIN,
                cookie,
                'content-type': 'application/json',
                'idempotency-key': query || 'k',
                'x-default-bill-account-id': query,
              },
              ...(route.method === 'GET' || route.method === 'DELETE'
                ? {}
                : { payload: JSON.stringify(payload) }),
            });
            if (res.statusCode >= 500)
              problems.push(`${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
            if (LEAKS.some((re) => re.test(res.body)))
              problems.push(`${route.method} ${route.url} leaked internals: ${res.body.slice(0, 200)}`);
            if (res.statusCode >= 400 && res.headers['content-type']?.toString().includes('json')) {
              const message = (res.json() as { message?: unknown }).message;
              if (typeof message !== 'string' || message.length === 0)
                problems.push(`${route.method} ${route.url} → ${res.statusCode} without a message`);
            }
          },
        ),
        { numRuns: 12, seed: 42 },
      );
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  }, 300_000);

  it('refuses control characters, lone surrogates and out-of-range ids in every query parameter, body field and path parameter with a 400', async () => {
    const routes = t.parts.routeTable.filter(
      (r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs') && !/logout/.test(r.url),
    );
    const writesBefore = t.sandbox.ledger().writes.length;
    const serverErrors: string[] = [];
    const accepted: string[] = [];
    let tried = 0;
    // `mustRefuse` false: a lone surrogate in a URL reaches the server as U+FFFD (its bytes are not UTF-8), a plain character.
    const send = async (
      route: RegisteredRoute,
      what: string,
      url: string,
      payload: unknown,
      mustRefuse = true,
    ) => {
      tried += 1;
      const res = await t.app.inject({
        method: route.method as 'POST',
        url,
        headers: {
          origin: TEST_ORIGIN,
          cookie,
          'content-type': 'application/json',
          'idempotency-key': `bad-input-${tried}`,
        },
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      });
      const key = `${route.method} ${route.url} ${what}`;
      if (res.statusCode >= 500) serverErrors.push(`${key} → ${res.statusCode} ${res.body.slice(0, 160)}`);
      else if (mustRefuse && res.statusCode < 400 && !/callback|^\/api\/auth\/xero$/.test(route.url))
        accepted.push(`${key} → ${res.statusCode}`);
      else if (res.statusCode >= 400 && typeof (res.json() as { message?: unknown }).message !== 'string')
        serverErrors.push(`${key} → ${res.statusCode} without a message`);
    };
    const withBody = (route: RegisteredRoute) => route.method !== 'GET' && route.method !== 'DELETE';
    const path = (route: RegisteredRoute, value = '1') => route.url.replace(/:[A-Za-z]+/g, encode(value));
    for (const route of routes) {
      const base = withBody(route) ? plausibleBody(route) : undefined;
      // Every query parameter the route declares, and the organisation selectors every route reads.
      const queryKeys = new Set([
        ...Object.keys(declaredProperties(route.schema.querystring)),
        'org',
        'organizationId',
      ]);
      for (const key of queryKeys) {
        for (const value of [...BAD_TEXTS, ...(/(^id$|^org$|Id$)/.test(key) ? BIG_IDS : [])]) {
          await send(
            route,
            `?${key}=${JSON.stringify(value)}`,
            `${path(route)}?${key}=${encode(value)}`,
            base,
            !SURROGATE.test(value),
          );
        }
      }
      // Every body field, one at a time, the rest plausible.
      if (base) {
        for (const key of Object.keys(base)) {
          const values: unknown[] = [
            ...BAD_TEXTS,
            ...(/(^id$|Id$)/.test(key) ? [...BIG_IDS, ...BIG_ID_NUMBERS] : []),
          ];
          for (const value of values)
            await send(route, `body.${key}=${JSON.stringify(value)}`, path(route), { ...base, [key]: value });
        }
      }
      // Every path parameter.
      if (route.url.includes('/:')) {
        for (const value of [...BAD_TEXTS, ...BIG_IDS])
          await send(
            route,
            `path ${JSON.stringify(value)}`,
            path(route, value),
            base,
            !SURROGATE.test(value),
          );
      }
    }
    // The requests of the attack report (issue 16), by hand, whatever the route table says.
    const adminPatch = t.parts.routeTable.find(
      (r) => r.method === 'PATCH' && r.url === '/api/admin/users/:userId',
    ) as RegisteredRoute;
    for (const [route, what, url, payload] of [
      [
        { method: 'POST', url: '/api/login' },
        'NUL username',
        '/api/login',
        { username: 'a\u0000', password: 'whatever-1' },
      ],
      [
        { method: 'POST', url: '/api/register' },
        'NUL username',
        '/api/register',
        { username: 'new\u0000user', password: 'Sturdy-Ledger-Pass-1' },
      ],
      [adminPatch, 'NUL email', '/api/admin/users/1', { email: 'a\u0000@b.co' }],
      [{ method: 'GET', url: '/api/admin/audit' }, 'NUL action', '/api/admin/audit?action=%00', undefined],
      [
        { method: 'GET', url: '/api/admin/audit' },
        'big userId',
        '/api/admin/audit?userId=2147483648',
        undefined,
      ],
      [
        { method: 'GET', url: '/api/admin/audit.csv' },
        'big organizationId',
        '/api/admin/audit.csv?organizationId=2147483648',
        undefined,
      ],
      [
        { method: 'GET', url: '/api/xero/contacts' },
        'NUL search',
        '/api/xero/contacts?search=%00',
        undefined,
      ],
      [
        { method: 'GET', url: '/api/xero/draft-invoices' },
        'big organizationId',
        '/api/xero/draft-invoices?organizationId=2147483648',
        undefined,
      ],
      [
        { method: 'PATCH', url: '/api/xero/settings' },
        'big organizationId',
        '/api/xero/settings',
        { organizationId: 2_147_483_648 },
      ],
      [
        { method: 'POST', url: '/api/xero/draft-invoices/update' },
        'big organizationId',
        '/api/xero/draft-invoices/update',
        { organizationId: '2147483648', invoices: [] },
      ],
    ] as Array<[RegisteredRoute, string, string, unknown]>) {
      const before = serverErrors.length + accepted.length;
      await send(route, what, url, payload);
      expect(serverErrors.length + accepted.length, `${route.method} ${url} ${what}`).toBe(before);
    }
    // A path parameter far beyond its length: the app's own { message, code }, not Fastify's body.
    const long = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${'9'.repeat(5000)}`,
      headers: { origin: TEST_ORIGIN, cookie },
      payload: { isAdmin: false },
    });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ message: 'The address is too long', code: 'URI_TOO_LONG' });

    console.warn(
      `bad input: ${routes.length} routes, ${tried} requests, ${serverErrors.length} answered 5xx, ${accepted.length} accepted`,
    );
    expect(serverErrors.slice(0, 20)).toEqual([]);
    expect(accepted.slice(0, 20)).toEqual([]);
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
  }, 300_000);
});
