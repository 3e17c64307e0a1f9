import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../db/schema/index';
import type { RegisteredRoute } from '../app';
import { TEST_ORIGIN } from '../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';

/**
 * One order of checks on every organisation-scoped route (docs/decisions/007-tenancy.md, issue 31 item 2): who
 * asks, then which organisation (403 for one the user may not use), then its feature (403), and only then the
 * input (400). A request naming another user's organisation, or one that does not exist, is refused the same
 * whatever its input, so it never learns whether its body, query or path was valid. The routes come from
 * Fastify's own route table: a route added later is swept without touching this file.
 */

/** Routes that work on the caller's own account, not on an organisation (as isolation.test.ts). */
const USER_SCOPED = [
  /^\/api\/(config|register|login|logout|user|user-organizations|feature-flags)$/,
  // The Today page: every organisation the caller may see, none named by the request (issue 47).
  /^\/api\/practice\/(today|events)$/,
  /^\/api\/docs/,
  /^\/api\/auth\//,
  /^\/api\/admin\//,
  /^\/api\/xero\/(connect|reconnect|callback|connection|connections\/refresh)$/,
  // Xero's deliveries: no session, trusted by their signature alone (docs/decisions/018-webhooks.md).
  /^\/api\/xero\/webhooks$/,
];

/**
 * Routes whose whole input is the organisation they act on: choosing the active one, disconnecting one. Their
 * one field is checked as the organisation is (400 for an id that is no id, else 403/404 when not the user's).
 */
const BODY_IS_THE_ORGANISATION = new Set([
  'POST /api/xero/set-active-organization',
  'POST /api/xero/disconnect',
]);

/** Not an organisation id (no such row): refused like another user's. */
const UNKNOWN_ORG = 2_000_000_000;
/** A text no route accepts: the input guard refuses control characters in every field (issue 16). */
const CONTROL = 'a\u0000b';

describe('the order of checks on organisation-scoped routes', () => {
  let t: XeroTestApp;
  let a: Awaited<ReturnType<typeof createConnectedUser>>;
  let orgA: number;
  let orgB: number;

  beforeAll(async () => {
    t = await createXeroTestApp();
    a = await createConnectedUser(t, 'order.a', {
      email: 'staff@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    const b = await createConnectedUser(t, 'order.b', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    orgA = a.orgs[0]?.organizationId ?? 0;
    orgB = b.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, orgA);
    await enableFeatures(t, orgB);
  }, 120_000);
  afterAll(() => t.close());

  const scopedRoutes = () =>
    t.parts.routeTable.filter(
      (r) =>
        r.url.startsWith('/api/') &&
        !USER_SCOPED.some((re) => re.test(r.url)) &&
        !BODY_IS_THE_ORGANISATION.has(`${r.method} ${r.url}`),
    );
  const isWrite = (route: RegisteredRoute) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method);
  const pathOf = (route: RegisteredRoute, param = '00000000-0000-0000-0000-000000000001') =>
    route.url.replace(/:[A-Za-z]+/g, encodeURIComponent(param));

  /** Each bad input a request can carry on this route, sent on the organisation `org` names. */
  function badRequests(route: RegisteredRoute, org: number) {
    const query = `org=${org}`;
    const requests: Array<{ what: string; url: string; payload?: unknown }> = [
      // Every route reads its query string: a control character in any parameter is refused by the input guard.
      {
        what: 'a control character in the query',
        url: `${pathOf(route)}?${query}&note=${encodeURIComponent(CONTROL)}`,
      },
    ];
    if (route.url.includes('/:'))
      requests.push({ what: 'a path parameter that is no id', url: `${pathOf(route, CONTROL)}?${query}` });
    if (isWrite(route)) {
      // The organisation named in the body, the body invalid beside it.
      requests.push({
        what: 'the organisation in the body beside a bad field',
        url: pathOf(route),
        payload: { organizationId: org, reference: CONTROL },
      });
      if (route.schema.body)
        requests.push({
          what: 'a body of the wrong shape',
          url: `${pathOf(route)}?${query}`,
          payload: [1, 2],
        });
    }
    return requests;
  }

  async function send(request: { url: string; payload?: unknown }, route: RegisteredRoute) {
    const res = await t.app.inject({
      method: route.method as 'GET',
      url: request.url,
      headers: {
        origin: TEST_ORIGIN,
        cookie: a.cookie,
        accept: 'application/json, text/event-stream',
        'idempotency-key': `order-${Math.random().toString(36).slice(2)}`,
        ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.payload === undefined ? {} : { payload: JSON.stringify(request.payload) }),
    });
    const body = res.headers['content-type']?.toString().includes('json')
      ? (res.json() as { code?: string; message?: string })
      : {};
    return { status: res.statusCode, code: body.code, message: body.message };
  }

  it('declares its organisation on every organisation-scoped route, so the tenancy hook resolves it first', () => {
    const scoped = scopedRoutes();
    expect(scoped.length).toBeGreaterThan(30);
    expect(scoped.filter((r) => !r.tenant).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it("answers another user's organisation, and one that does not exist, with the same 403 whatever the input", async () => {
    const wrong: string[] = [];
    for (const route of scopedRoutes()) {
      for (const org of [orgB, UNKNOWN_ORG]) {
        for (const request of badRequests(route, org)) {
          const res = await send(request, route);
          if (res.status !== 403 || res.message !== 'You do not have access to this organization')
            wrong.push(
              `${route.method} ${route.url}, org ${org}, ${request.what} → ${res.status} ${res.message}`,
            );
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it("answers a feature switched off with its 403 whatever the input, and the user's own organisation with 400", async () => {
    const wrong: string[] = [];
    let refused = 0;
    for (const route of scopedRoutes()) {
      for (const request of badRequests(route, orgA)) {
        const res = await send(request, route);
        refused += 1;
        if (res.status !== 400 || res.code !== 'VALIDATION_ERROR')
          wrong.push(
            `${route.method} ${route.url}, own organisation, ${request.what} → ${res.status} ${res.message}`,
          );
      }
    }
    expect(refused).toBeGreaterThan(60);
    await t.database.db
      .update(organizations)
      .set({
        featurePayInvoices: false,
        featureAddInvoices: false,
        featureCisBills: false,
        featureStockJournal: false,
      })
      .where(eq(organizations.id, orgA));
    try {
      for (const route of scopedRoutes()) {
        if (route.tenant === 'organization') continue;
        for (const request of badRequests(route, orgA)) {
          const res = await send(request, route);
          if (res.status !== 403 || res.code !== 'FEATURE_DISABLED')
            wrong.push(
              `${route.method} ${route.url}, feature off, ${request.what} → ${res.status} ${res.message}`,
            );
        }
      }
    } finally {
      await enableFeatures(t, orgA);
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it('refuses an organisation id that is no id with 400 before anything else, and two that differ', async () => {
    const route = { method: 'POST', url: '/api/xero/payments', schema: {} } as RegisteredRoute;
    expect(await send({ url: `/api/xero/payments?org=abc`, payload: [1] }, route)).toMatchObject({
      status: 400,
      message: 'Invalid organization ID',
    });
    expect(
      await send(
        { url: `/api/xero/payments?org=${orgA}`, payload: { organizationId: orgB, amount: CONTROL } },
        route,
      ),
    ).toMatchObject({ status: 400, message: 'The request names two different organizations' });
  });

  it('refuses an organisation named in brackets (?org[]=) rather than serving the active one (issue 44)', async () => {
    const list = { method: 'GET', url: '/api/xero/invoices', schema: {} } as RegisteredRoute;
    for (const query of [
      `org[]=${orgA}`,
      `org[0]=${orgA}`,
      `organizationId[]=${orgA}`,
      `org[]=${orgB}`,
      `org=${orgA}&org[]=${orgA}`,
    ])
      expect(await send({ url: `/api/xero/invoices?${query}` }, list), query).toMatchObject({
        status: 400,
        message: 'Invalid organization ID',
      });
    // The plain spelling still works.
    expect((await send({ url: `/api/xero/invoices?org=${orgA}` }, list)).status).toBe(200);
  });
});
