import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/app';
import { as, register } from '../../test/session';

describe('the admin API', () => {
  let t: TestApp;
  let admin: ReturnType<typeof as>;
  let user: ReturnType<typeof as>;
  let adminId: number;
  let userId: number;
  let orgId: number;

  beforeAll(async () => {
    t = await createTestApp();
    const a = await register(t.app, 'boss', 'Sturdy-Ledger-Pass-1', 'boss@example.com');
    const u = await register(t.app, 'clerk', 'Sturdy-Ledger-Pass-1');
    admin = as(t.app, a.cookie);
    user = as(t.app, u.cookie);
    adminId = a.user.id;
    userId = u.user.id;
    const [org] = await t.database.db.insert(organizations).values({ tenantId: 'tenant-a', tenantName: 'Demo Shop Ltd' }).returning();
    orgId = org?.id ?? 0;
  });
  afterAll(() => t.close());

  it('refuses every admin endpoint to a non-admin with 403', async () => {
    const calls: Array<[Parameters<typeof user>[0], string, unknown?]> = [
      ['GET', '/api/admin/organizations'],
      ['PATCH', `/api/admin/organizations/${orgId}/features`, { featureCisBills: true }],
      ['GET', '/api/admin/users'],
      ['PATCH', `/api/admin/users/${userId}`, { email: 'x@example.com' }],
      ['PATCH', `/api/admin/users/${userId}/admin`, { isAdmin: true }],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/audit.csv'],
    ];
    for (const [method, url, body] of calls) {
      const res = await user(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toBe('Administrator access required');
    }
  });

  it('toggles one feature at a time for an organisation', async () => {
    const res = await admin('PATCH', `/api/admin/organizations/${orgId}/features`, { featureCisBills: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: orgId,
      tenantName: 'Demo Shop Ltd',
      featurePayInvoices: false,
      featureAddInvoices: false,
      featureCisBills: true,
      featureStockJournal: false,
    });
    const two = await admin('PATCH', `/api/admin/organizations/${orgId}/features`, { featureCisBills: false, featurePayInvoices: true });
    expect(two.statusCode).toBe(400);
    const missing = await admin('PATCH', '/api/admin/organizations/99999/features', { featurePayInvoices: true });
    expect(missing.statusCode).toBe(404);
    const list = await admin('GET', '/api/admin/organizations');
    expect(list.json()).toHaveLength(1);
  });

  it('edits users with the email rule and keeps usernames unique', async () => {
    const bad = await admin('PATCH', `/api/admin/users/${userId}`, { email: 'not-an-email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Please enter a valid email address');
    const ok = await admin('PATCH', `/api/admin/users/${userId}`, { email: 'clerk@example.com', username: 'clerk.two' });
    expect(ok.json()).toMatchObject({ id: userId, username: 'clerk.two', email: 'clerk@example.com', isAdmin: false, isXeroUser: false });
    const cleared = await admin('PATCH', `/api/admin/users/${userId}`, { email: '' });
    expect(cleared.json().email).toBeNull();
    const clash = await admin('PATCH', `/api/admin/users/${userId}`, { username: 'BOSS' });
    expect(clash.statusCode).toBe(409);
    const empty = await admin('PATCH', `/api/admin/users/${userId}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe('No changes to save');
  });

  it('never lets the last administrator lose admin rights', async () => {
    const self = await admin('PATCH', `/api/admin/users/${adminId}/admin`, { isAdmin: false });
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toContain('At least one administrator must remain');
    expect((await admin('PATCH', `/api/admin/users/${userId}/admin`, { isAdmin: true })).json().isAdmin).toBe(true);
    expect((await admin('PATCH', `/api/admin/users/${adminId}/admin`, { isAdmin: false })).json().isAdmin).toBe(false);
  });

  it('records admin actions in the activity log, exportable as CSV', async () => {
    const ordinary = as(t.app, (await register(t.app, 'auditor', 'Sturdy-Ledger-Pass-1')).cookie);
    // `boss` handed admin rights to clerk.two above, so read the log as clerk.two.
    const clerk = await t.app.inject({ method: 'POST', url: '/api/login', headers: { origin: 'http://localhost:5000' }, payload: { username: 'clerk.two', password: 'Sturdy-Ledger-Pass-1' } });
    const cookie = String(clerk.headers['set-cookie']).split(';')[0] ?? '';
    const log = await as(t.app, cookie)('GET', '/api/admin/audit?action=admin.');
    expect(log.statusCode).toBe(200);
    const actions = (log.json() as Array<{ action: string }>).map((e) => e.action);
    expect(actions).toContain('admin.features');
    expect(actions).toContain('admin.user.admin');
    const csv = await as(t.app, cookie)('GET', '/api/admin/audit.csv');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[0]).toBe('"When (UTC)","User","Organization ID","Action","Target","Result","Detail","IP address"');
    expect(csv.body).toContain('"admin.features"');
    expect((await ordinary('GET', '/api/admin/audit')).statusCode).toBe(403);
  });
});

describe('the audit log', () => {
  it('is append-only in the database itself', async () => {
    const t = await createTestApp();
    try {
      await register(t.app, 'someone', 'Sturdy-Ledger-Pass-1');
      const { auditLog } = await import('../../db/schema/index.ts');
      await expect(t.database.db.update(auditLog).set({ action: 'tampered' })).rejects.toThrow();
      await expect(t.database.db.delete(auditLog)).rejects.toThrow();
      expect((await t.database.db.select().from(auditLog)).map((r) => r.action)).toContain('user.register');
    } finally {
      await t.close();
    }
  });
});
