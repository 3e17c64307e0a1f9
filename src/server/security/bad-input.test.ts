import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  fc.constantFrom('x'.repeat(20_000), '__proto__', 'constructor', "'; DROP TABLE users; --", '<script>alert(1)</script>', '../../etc/passwd', '\u0000'),
  fc.array(fc.integer(), { maxLength: 5 }),
);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom('amount', 'cashAmount', 'totalAmount', 'date', 'organizationId', 'invoices', 'id', 'username', 'password', 'email', 'isAdmin', 'approve', 'invoiceId', 'accountId', 'featureCisBills'), nasty),
  fc.constant({ __proto__: { isAdmin: true }, constructor: { prototype: { isAdmin: true } } }),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "amount": 1}')),
  nasty,
);

const LEAKS = [/at .+\.(ts|js):\d+/, /node_modules/, /\bselect\b.+\bfrom\b/i, /\binsert into\b/i, /syntax error at or near/i, /drizzle/i];

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
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && !/callback|logout|^\/api\/auth\/xero$/.test(r.url));
    const writesBefore = t.sandbox.ledger().writes.length;
    const problems: string[] = [];
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(body, fc.string({ maxLength: 30 }), fc.constantFrom('x', '-1', '0', '1.5', '99999999999', '%00', 'a'.repeat(300)), async (payload, query, param) => {
          const url = `${route.url.replace(/:[A-Za-z]+/g, encodeURIComponent(param))}?refresh=${encodeURIComponent(query)}&org=${encodeURIComponent(query)}&search=${encodeURIComponent(query)}`;
          const res = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: { origin: TEST_ORIGIN, cookie, 'content-type': 'application/json', 'idempotency-key': query || 'k', 'x-default-bill-account-id': query },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: JSON.stringify(payload) }),
          });
          if (res.statusCode >= 500) problems.push(`${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
          if (LEAKS.some((re) => re.test(res.body))) problems.push(`${route.method} ${route.url} leaked internals: ${res.body.slice(0, 200)}`);
          if (res.statusCode >= 400 && res.headers['content-type']?.toString().includes('json')) {
            const message = (res.json() as { message?: unknown }).message;
            if (typeof message !== 'string' || message.length === 0) problems.push(`${route.method} ${route.url} → ${res.statusCode} without a message`);
          }
        }),
        { numRuns: 12, seed: 42 },
      );
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  }, 300_000);
});
