import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, organizations, xeroInvoices } from '../db/schema/index';
import { TEST_ORIGIN } from '../test/app';
import { register } from '../test/session';
import {
  createConnectedUser,
  createXeroTestApp,
  enableFeatures,
  settleBackgroundWork,
  type XeroTestApp,
} from '../test/xero';

/**
 * The tenant isolation matrix (issue 11): every registered /api route × {anonymous, user A, user B, admin}
 * × {A's organisation, B's organisation, a feature switched off}. The route list comes from Fastify's own
 * route table, so a route added later is covered without touching this file.
 */

/** Routes anyone may call signed out. */
const PUBLIC = new Set([
  'GET /api/config',
  'POST /api/register',
  'POST /api/login',
  'POST /api/auth/login',
  'POST /api/logout',
  'POST /api/auth/logout',
  'GET /api/auth/xero',
  'GET /api/auth/xero/callback',
  'GET /api/xero/callback',
  'GET /api/auth/dev-credentials',
]);

/** Routes that are not part of a feature, so they answer with the feature flags off. */
const NOT_FEATURE_GATED = [
  /^\/api\/(config|register|login|logout|user|user-organizations|feature-flags)$/,
  // The Today page: every organisation the caller may see, none named by the request (issue 47).
  /^\/api\/practice\/(today|events)$/,
  /^\/api\/docs/,
  /^\/api\/auth\//,
  /^\/api\/admin\//,
  /^\/api\/xero\/(connect|reconnect|callback|connection|connections\/refresh|set-active-organization|disconnect)$/,
  /^\/api\/xero\/settings/,
  /^\/api\/xero\/(sales-accounts|vat-rates|bill-accounts|asset-accounts|cost-accounts|contact-groups|contacts)$/,
  /^\/api\/xero\/bank-accounts/,
  /^\/api\/xero\/data\/cleanup$/,
];

/**
 * Routes that work on the caller's own account, not on an organisation a request names: every other /api
 * route is organisation-scoped and must refuse another tenant's organisation with 403 or 404.
 */
const USER_SCOPED = [
  /^\/api\/(config|register|login|logout|user|user-organizations|feature-flags)$/,
  // The Today page: every organisation the caller may see, none named by the request (issue 47).
  /^\/api\/practice\/(today|events)$/,
  /^\/api\/docs/,
  /^\/api\/auth\//,
  /^\/api\/admin\//,
  /^\/api\/xero\/(connect|reconnect|callback|connection|connections\/refresh)$/,
];

/** Tables of per-organisation rows that a request of another tenant could change (the audit log only grows). */
async function fingerprintOrganization(
  t: XeroTestApp,
  organizationId: number,
): Promise<Record<string, string>> {
  // An earlier test's reads of B's data, still settling, are not something A changed; a read of B's data
  // started by A's requests would still show, as egress counted after this.
  await settleBackgroundWork(t);
  const result = await t.database.db.execute(
    sql`select table_name from information_schema.columns where table_schema = 'public' and column_name = 'organization_id' and table_name <> 'audit_log' order by table_name`,
  );
  const rows = (
    (result as unknown as { rows?: Array<{ table_name: string }> }).rows ??
    (result as unknown as Array<{ table_name: string }>)
  ).map((r) => r.table_name);
  const prints: Record<string, string> = {};
  for (const table of rows) {
    const found = await t.database.db.execute(
      sql`select count(*)::int as n, coalesce(md5(string_agg(row_to_json(x)::text, '|' order by row_to_json(x)::text)), '') as h from ${sql.identifier(table)} x where organization_id = ${organizationId}`,
    );
    const row = ((found as unknown as { rows?: Array<{ n: number; h: string }> }).rows ??
      (found as unknown as Array<{ n: number; h: string }>))[0];
    prints[table] = `${row?.n ?? 0}:${row?.h ?? ''}`;
  }
  const org = await t.database.db.execute(
    sql`select row_to_json(o)::text as r from organizations o where id = ${organizationId}`,
  );
  prints.organizations = JSON.stringify(org);
  return prints;
}

interface Caller {
  name: string;
  cookie: string | null;
}

describe('tenant isolation', () => {
  let t: XeroTestApp;
  let admin: Caller;
  let a: Awaited<ReturnType<typeof createConnectedUser>>;
  let b: Awaited<ReturnType<typeof createConnectedUser>>;
  let orgA: { organizationId: number; tenantId: string; tenantName: string };
  let orgB: { organizationId: number; tenantId: string; tenantName: string };
  let bInvoiceId = 'no-invoice';

  beforeAll(async () => {
    t = await createXeroTestApp();
    admin = { name: 'admin', cookie: (await register(t.app, 'matrix.admin')).cookie };
    a = await createConnectedUser(t, 'matrix.a', {
      email: 'staff@demoshop.example',
      tenants: ['Demo Shop Ltd'],
    });
    b = await createConnectedUser(t, 'matrix.b', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    orgA = a.orgs[0] as typeof orgA;
    orgB = b.orgs[0] as typeof orgB;
    await enableFeatures(t, orgA.organizationId);
    await enableFeatures(t, orgB.organizationId);
    // Give B some cached data worth stealing.
    await t.parts.sync.syncInvoices(
      { organizationId: orgB.organizationId, tenantId: orgB.tenantId, userId: b.user.id },
      { key: 'bills-draft' },
    );
    const [row] = await t.database.db
      .select()
      .from(xeroInvoices)
      .where(eq(xeroInvoices.organizationId, orgB.organizationId))
      .limit(1);
    bInvoiceId = row?.invoiceId ?? bInvoiceId;
  }, 120_000);
  afterAll(() => t.close());

  const apiRoutes = () => t.parts.routeTable.filter((r) => r.url.startsWith('/api/'));
  /** For signed-in callers: logout would end the caller's session mid-matrix (it has its own tests). */
  const signedInRoutes = () => apiRoutes().filter((r) => !r.url.endsWith('/logout'));

  function buildRequest(route: { method: string; url: string }, targetOrg: number, userId: number) {
    const path = route.url
      .replace(/:orgId\b/g, String(targetOrg))
      .replace(/:organizationId\b/g, String(targetOrg))
      .replace(/:userId\b/g, String(userId))
      .replace(/:[A-Za-z]+/g, bInvoiceId);
    const url = `${path}?org=${targetOrg}&organizationId=${targetOrg}`;
    const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)
      ? { organizationId: targetOrg }
      : undefined;
    return { url, body };
  }

  async function call(
    caller: Caller,
    route: { method: string; url: string },
    targetOrg: number,
    userId: number,
  ) {
    const { url, body } = buildRequest(route, targetOrg, userId);
    return t.app.inject({
      method: route.method as 'GET',
      url,
      headers: { origin: TEST_ORIGIN, ...(caller.cookie ? { cookie: caller.cookie } : {}) },
      ...(body ? { payload: body } : {}),
    });
  }

  it('has a schema on every route', () => {
    const missing = apiRoutes().filter(
      (r) =>
        !r.schema.hide &&
        !r.url.startsWith('/api/docs') &&
        !r.schema.body &&
        !r.schema.querystring &&
        !r.schema.params &&
        !r.schema.response,
    );
    expect(missing.map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('answers anonymous callers with 401 everywhere but the public routes', async () => {
    const leaks: string[] = [];
    for (const route of apiRoutes()) {
      const key = `${route.method} ${route.url}`;
      const res = await call({ name: 'anonymous', cookie: null }, route, orgA.organizationId, a.user.id);
      expect(res.statusCode, key).toBeLessThan(500);
      const isPublic = PUBLIC.has(key) || route.url.startsWith('/api/docs');
      if (!isPublic && res.statusCode < 400) leaks.push(`${key} → ${res.statusCode}`);
      if (res.body.includes(orgA.tenantId) || res.body.includes(orgB.tenantId))
        leaks.push(`${key} leaked a tenant`);
    }
    expect(leaks).toEqual([]);
  });

  it("never lets one user reach the other user's organisation: 0 cross-organisation successes", async () => {
    const ledgerBefore = t.sandbox.ledger().writes.length;
    const successes: string[] = [];
    const pairs: Array<[Caller, typeof orgA, number]> = [
      [{ name: 'A', cookie: a.cookie }, orgB, b.user.id],
      [{ name: 'B', cookie: b.cookie }, orgA, a.user.id],
      [admin, orgA, a.user.id],
      [admin, orgB, b.user.id],
    ];
    for (const [caller, target, otherUser] of pairs) {
      for (const route of signedInRoutes()) {
        if (caller === admin && route.url.startsWith('/api/admin/')) continue;
        const res = await call(caller, route, target.organizationId, otherUser);
        const key = `${caller.name} → ${target.tenantName}: ${route.method} ${route.url} (${res.statusCode})`;
        expect(res.statusCode, key).toBeLessThan(500);
        const leaked =
          res.body.includes(target.tenantId) ||
          res.body.includes(target.tenantName) ||
          (target === orgB && res.body.includes(bInvoiceId));
        if (leaked) successes.push(key);
      }
    }
    expect(successes).toEqual([]);
    expect(t.sandbox.ledger().writes.length).toBe(ledgerBefore);
  });

  it('refuses every feature route with 403 when the organisation has the feature switched off', async () => {
    await t.database.db
      .update(organizations)
      .set({
        featurePayInvoices: false,
        featureAddInvoices: false,
        featureCisBills: false,
        featureStockJournal: false,
      })
      .where(eq(organizations.id, orgA.organizationId));
    const served: string[] = [];
    for (const route of signedInRoutes()) {
      if (NOT_FEATURE_GATED.some((re) => re.test(route.url))) continue;
      const res = await call({ name: 'A', cookie: a.cookie }, route, orgA.organizationId, a.user.id);
      const key = `${route.method} ${route.url} → ${res.statusCode}`;
      if (res.statusCode < 400) served.push(key);
      if (route.method === 'GET' && res.statusCode !== 403 && res.statusCode !== 400)
        served.push(`${key} (expected 403)`);
    }
    expect(served).toEqual([]);
    await enableFeatures(t, orgA.organizationId);
  });

  it("refuses every organisation-scoped route on another tenant's organisation with 403 or 404, and changes none of its rows", async () => {
    const before = await fingerprintOrganization(t, orgB.organizationId);
    expect(Object.keys(before).length).toBeGreaterThan(5);
    expect(Object.values(before).some((p) => !p.startsWith('0:'))).toBe(true);
    const ledgerBefore = t.sandbox.ledger().writes.length;
    const wrong: string[] = [];
    const statuses: Record<string, number> = {};
    const scoped = signedInRoutes().filter((r) => !USER_SCOPED.some((re) => re.test(r.url)));
    for (const route of scoped) {
      const res = await call({ name: 'A', cookie: a.cookie }, route, orgB.organizationId, b.user.id);
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      // 400: the request was refused before it named an organisation (its body is not one the route takes).
      const refused =
        res.statusCode === 403 ||
        res.statusCode === 404 ||
        (res.statusCode === 400 && (res.json() as { code?: string }).code === 'VALIDATION_ERROR');
      if (!refused) wrong.push(`${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    console.warn(
      `isolation: ${scoped.length} organisation-scoped routes called by A on B's organisation: ${JSON.stringify(statuses)}`,
    );
    expect(scoped.length).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
    expect(await fingerprintOrganization(t, orgB.organizationId)).toEqual(before);
    expect(t.sandbox.ledger().writes.length).toBe(ledgerBefore);
  });

  it('reads the organisation from ?organizationId= or the body alone on every route, and refuses two that differ (issue 28)', async () => {
    const before = await fingerprintOrganization(t, orgB.organizationId);
    const beforeA = await fingerprintOrganization(t, orgA.organizationId);
    const ledgerBefore = t.sandbox.ledger().writes.length;
    const wrong: string[] = [];
    const scoped = signedInRoutes().filter((r) => !USER_SCOPED.some((re) => re.test(r.url)));
    const refusedOrNamed = (res: { statusCode: number; json(): unknown }) =>
      res.statusCode === 403 ||
      res.statusCode === 404 ||
      (res.statusCode === 400 && (res.json() as { code?: string }).code === 'VALIDATION_ERROR');
    for (const route of scoped) {
      const path = buildRequest(route, orgB.organizationId, b.user.id).url.split('?')[0] ?? '';
      const isWrite = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method);
      // A names B's organisation one way only: a route that ignored it would act on A's active organisation.
      const ways: Array<{ what: string; url: string; payload?: Record<string, unknown> }> = [
        { what: '?organizationId=', url: `${path}?organizationId=${orgB.organizationId}` },
        ...(isWrite
          ? [{ what: 'body organizationId', url: path, payload: { organizationId: orgB.organizationId } }]
          : []),
      ];
      for (const way of ways) {
        const res = await t.app.inject({
          method: route.method as 'GET',
          url: way.url,
          headers: { origin: TEST_ORIGIN, cookie: a.cookie },
          ...(way.payload ? { payload: way.payload } : isWrite ? { payload: {} } : {}),
        });
        if (!refusedOrNamed(res))
          wrong.push(
            `${route.method} ${way.url} (${way.what}) → ${res.statusCode} ${res.body.slice(0, 100)}`,
          );
      }
      // Two different organisations named at once: refused, never one of them picked.
      const both = await t.app.inject({
        method: route.method as 'GET',
        url: `${path}?org=${orgA.organizationId}&organizationId=${orgB.organizationId}`,
        headers: { origin: TEST_ORIGIN, cookie: a.cookie },
        ...(isWrite ? { payload: {} } : {}),
      });
      if (both.statusCode !== 400 && both.statusCode !== 404)
        wrong.push(`${route.method} ${path} naming two organisations → ${both.statusCode}`);
    }
    expect(wrong).toEqual([]);
    expect(await fingerprintOrganization(t, orgB.organizationId)).toEqual(before);
    expect(await fingerprintOrganization(t, orgA.organizationId)).toEqual(beforeA);
    expect(t.sandbox.ledger().writes.length).toBe(ledgerBefore);

    // A user of both organisations, working on Demo Shop, names Demo Builders with ?organizationId=: the answer
    // and the clean-up are Demo Builders', exactly as with ?org=.
    const both = await createConnectedUser(t, 'matrix.both', { tenants: 'all' });
    const shop = both.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
    const builders = both.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    expect(
      (await both.call('POST', '/api/xero/set-active-organization', { organizationId: shop })).statusCode,
    ).toBe(200);
    for (const list of ['sales-accounts', 'cost-accounts', 'contact-groups', 'settings/bank-accounts']) {
      const named = await both.call('GET', `/api/xero/${list}?organizationId=${builders}`);
      const viaOrg = await both.call('GET', `/api/xero/${list}?org=${builders}`);
      const active = await both.call('GET', `/api/xero/${list}`);
      expect(named.statusCode, list).toBe(200);
      expect(named.json(), list).toEqual(viaOrg.json());
      expect(named.json(), list).not.toEqual(active.json());
    }
    const cleanup = await both.call('POST', `/api/xero/data/cleanup?organizationId=${builders}`);
    expect(cleanup.statusCode).toBe(200);
    const audited = await t.database.db
      .select({ organizationId: auditLog.organizationId })
      .from(auditLog)
      .where(and(eq(auditLog.userId, both.user.id), eq(auditLog.action, 'settings.cleanup.data')));
    expect(audited).toEqual([{ organizationId: builders }]);
    // With its feature switched off there, a feature route named this way is refused with the feature's 403.
    await t.database.db
      .update(organizations)
      .set({ featureCisBills: false })
      .where(eq(organizations.id, builders));
    const off = await both.call('GET', `/api/xero/draft-bills?organizationId=${builders}`);
    expect(off.statusCode).toBe(403);
    expect(off.json().code).toBe('FEATURE_DISABLED');
  }, 300_000);
});
