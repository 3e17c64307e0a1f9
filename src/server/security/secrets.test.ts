import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ORIGIN } from '../test/app';
import { as, login } from '../test/session';
import { connectXero, createXeroTestApp, enableFeatures, TEST_CLIENT, type XeroTestApp } from '../test/xero';

/**
 * Secrets (issue 11): with canary passwords and real tokens in play, none of them appears in a log line,
 * an API answer, and the database holds no token in plain text. The built JavaScript is checked by
 * e2e/shipped-code.spec.ts, after the build that step makes.
 */
const CANARY_PASSWORD = 'Canary-Pass-7731-Zebra';
const CANARY_WRONG = 'Canary-Wrong-9917-Yak';

describe('secrets never leak', () => {
  let t: XeroTestApp;
  const logs: string[] = [];
  const answers: string[] = [];
  let cookie = '';

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    t = await createXeroTestApp({ logger: { level: 'trace', stream }, env: { LOG_LEVEL: 'trace' } });
    const record = async (res: { body: string; headers: Record<string, unknown> }) => {
      answers.push(res.body, JSON.stringify(res.headers));
      return res;
    };
    const reg = await record(
      await t.app.inject({
        method: 'POST',
        url: '/api/register',
        headers: { origin: TEST_ORIGIN },
        payload: { username: 'canary', password: CANARY_PASSWORD },
      }),
    );
    cookie = String(reg.headers['set-cookie']).split(';')[0] ?? '';
    await record(await login(t.app, 'canary', CANARY_WRONG));
    await record(await login(t.app, 'canary', CANARY_PASSWORD));
    await connectXero(t.app, t.sandbox, cookie);
    const call = as(t.app, cookie);
    for (const url of [
      '/api/auth/current-user',
      '/api/xero/connection',
      '/api/user-organizations',
      '/api/xero/connect',
      '/api/admin/users',
      '/api/admin/audit',
    ]) {
      await record(await call('GET', url));
    }
    // A failing Xero call (revoked token) and a refresh, to exercise the error paths' logging too.
    t.sandbox.expireTokens();
    await record(await call('GET', '/api/xero/connection'));
  }, 120_000);
  afterAll(() => t.close());

  async function secrets(): Promise<string[]> {
    const rows = await t.database.db.execute(sql`select user_id from xero_tokens`);
    const list = [CANARY_PASSWORD, CANARY_WRONG, TEST_CLIENT.clientSecret];
    const ids = (
      (rows as unknown as { rows?: Array<{ user_id: number }> }).rows ??
      (rows as unknown as Array<{ user_id: number }>)
    ).map((r) => r.user_id);
    for (const id of ids) {
      const stored = await t.parts.tokens.read(id);
      if (stored) list.push(stored.accessToken, ...(stored.refreshToken ? [stored.refreshToken] : []));
    }
    return list;
  }

  it('keeps passwords, tokens and the client secret out of every log line', async () => {
    expect(logs.length).toBeGreaterThan(5);
    const all = logs.join('\n');
    for (const secret of await secrets()) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/ll_session=/);
  });

  it('keeps them out of every API answer', async () => {
    const all = answers.join('\n');
    for (const secret of await secrets()) expect(all).not.toContain(secret);
    expect(all).not.toContain('$argon2');
  });

  it('keeps them out of the database in plain text', async () => {
    const dump = await t.database.db.execute(
      sql`select row_to_json(x)::text as row from (select * from xero_tokens) x union all select row_to_json(u)::text from (select * from users) u union all select row_to_json(s)::text from (select * from sessions) s union all select row_to_json(a)::text from (select * from audit_log) a`,
    );
    const text = JSON.stringify(dump);
    for (const secret of await secrets()) expect(text).not.toContain(secret);
  });

  it('keeps every private API answer out of caches: no-store, or private, no-cache for the ETag-validated lists', async () => {
    // A fresh sign-in: the token expiry above left this user's Xero connection needing a reconnect.
    const fresh = await login(t.app, 'canary', CANARY_PASSWORD);
    const session = String(fresh.headers['set-cookie']).split(';')[0] ?? '';
    await connectXero(t.app, t.sandbox, session);
    const call = as(t.app, session);
    const orgs = (await call('GET', '/api/user-organizations')).json() as Array<{ organizationId: number }>;
    for (const org of orgs) await enableFeatures(t, org.organizationId);
    const cacheable: string[] = [];
    const reads = t.parts.routeTable.filter(
      (r) =>
        r.method === 'GET' &&
        r.url.startsWith('/api/') &&
        !r.url.startsWith('/api/docs') &&
        !r.url.includes(':') &&
        !/callback|^\/api\/auth\/xero$/.test(r.url),
    );
    for (const route of reads) {
      const res = await call('GET', route.url);
      const header = String(res.headers['cache-control']);
      if (header !== 'no-store' && !(header === 'private, no-cache' && res.headers.etag))
        cacheable.push(`${route.url} (${res.statusCode}): ${header}`);
    }
    expect(reads.length).toBeGreaterThan(30);
    expect(cacheable).toEqual([]);
    // The TOTP secret of a set-up in progress, and an error answer.
    expect((await call('POST', '/api/auth/mfa/setup', {})).headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ method: 'GET', url: '/api/user' })).headers['cache-control']).toBe(
      'no-store',
    );
    // An invoice's attachment: after sign-out the browser must not open it from its cache.
    const invoices = (await call('GET', '/api/xero/invoices')).json() as Array<{
      invoiceId: string;
      attachments: unknown[];
    }>;
    const withFile = invoices.find((i) => i.attachments.length > 0);
    const list = await call('GET', `/api/xero/invoices/${withFile?.invoiceId}/attachments`);
    expect(list.headers['cache-control']).toBe('no-store');
    const file = (list.json() as Array<{ url: string }>)[0];
    expect(file).toBeDefined();
    const content = await call('GET', file?.url ?? '');
    expect(content.statusCode).toBe(200);
    expect(content.headers['cache-control']).toBe('no-store');
    // Every private route through the whole app: past 30 s on CI's busiest lane (issue 46, load 17).
  }, 120_000);
});
