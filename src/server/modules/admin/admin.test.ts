import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, organizations, xeroInvoices } from '../../db/schema/index';
import { createTestApp, type TestApp } from '../../test/app';
import { as, register } from '../../test/session';
import type { WriteKind } from '../../ledger/index';

/** A kind of write only these tests know, with the finder they register. */
const TEST_KIND = 'review.test' as WriteKind;

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
    const [org] = await t.database.db
      .insert(organizations)
      .values({ tenantId: 'tenant-a', tenantName: 'Demo Shop Ltd' })
      .returning();
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
    const two = await admin('PATCH', `/api/admin/organizations/${orgId}/features`, {
      featureCisBills: false,
      featurePayInvoices: true,
    });
    expect(two.statusCode).toBe(400);
    const missing = await admin('PATCH', '/api/admin/organizations/99999/features', {
      featurePayInvoices: true,
    });
    expect(missing.statusCode).toBe(404);
    const list = await admin('GET', '/api/admin/organizations');
    expect(list.json()).toHaveLength(1);
  });

  it('edits users with the email rule and keeps usernames unique', async () => {
    const bad = await admin('PATCH', `/api/admin/users/${userId}`, { email: 'not-an-email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Please enter a valid email address');
    const ok = await admin('PATCH', `/api/admin/users/${userId}`, {
      email: 'clerk@example.com',
      username: 'clerk.two',
    });
    expect(ok.json()).toMatchObject({
      id: userId,
      username: 'clerk.two',
      email: 'clerk@example.com',
      isAdmin: false,
      isXeroUser: false,
    });
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
    expect((await admin('PATCH', `/api/admin/users/${userId}/admin`, { isAdmin: true })).json().isAdmin).toBe(
      true,
    );
    expect(
      (await admin('PATCH', `/api/admin/users/${adminId}/admin`, { isAdmin: false })).json().isAdmin,
    ).toBe(false);
  });

  it('records admin actions in the activity log, exportable as CSV', async () => {
    const ordinary = as(t.app, (await register(t.app, 'auditor', 'Sturdy-Ledger-Pass-1')).cookie);
    // `boss` handed admin rights to clerk.two above, so read the log as clerk.two.
    const clerk = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { origin: 'http://localhost:5000' },
      payload: { username: 'clerk.two', password: 'Sturdy-Ledger-Pass-1' },
    });
    const cookie = String(clerk.headers['set-cookie']).split(';')[0] ?? '';
    const log = await as(t.app, cookie)('GET', '/api/admin/audit?action=admin.');
    expect(log.statusCode).toBe(200);
    const actions = (log.json() as Array<{ action: string }>).map((e) => e.action);
    expect(actions).toContain('admin.features');
    expect(actions).toContain('admin.user.admin');
    const csv = await as(t.app, cookie)('GET', '/api/admin/audit.csv');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[0]).toBe(
      '"When (UTC)","User","Organization","What happened","Result","Action","Target","Detail","IP address","Organization ID","Target ID"',
    );
    expect(csv.body).toContain('"admin.features"');
    expect((await ordinary('GET', '/api/admin/audit')).statusCode).toBe(403);
  });

  it('names the organisation and the invoice by its number, in the log and its CSV, from what the log and the cache hold (issue 33 item 8)', async () => {
    const db = t.database.db;
    await db.insert(xeroInvoices).values({
      organizationId: orgId,
      invoiceId: '6f1c2d1e-0000-4000-8000-00000000aaaa',
      type: 'ACCREC',
      invoiceNumber: 'INV-0042',
      status: 'AUTHORISED',
    });
    await db.insert(auditLog).values([
      // A line that recorded the number, and one that holds only the invoice's id (the cache knows its number).
      {
        userId: adminId,
        username: 'boss',
        organizationId: orgId,
        action: 'payment.create',
        target: '6f1c2d1e-0000-4000-8000-00000000bbbb',
        result: 'success',
        detail: { invoiceNumber: 'INV-0037', amountPence: 1000 },
      },
      {
        userId: adminId,
        username: 'boss',
        organizationId: orgId,
        action: 'payment.delete',
        target: '6f1c2d1e-0000-4000-8000-00000000aaaa',
        result: 'success',
      },
    ]);
    // `boss` handed admin rights to clerk.two above, so read the log as clerk.two.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { origin: 'http://localhost:5000' },
      payload: { username: 'clerk.two', password: 'Sturdy-Ledger-Pass-1' },
    });
    const reader = as(t.app, String(login.headers['set-cookie']).split(';')[0] ?? '');
    const lines = (await reader('GET', '/api/admin/audit?action=payment.')).json() as Array<{
      action: string;
      organizationName: string | null;
      targetLabel: string | null;
    }>;
    expect(lines.map((l) => [l.action, l.organizationName, l.targetLabel])).toEqual([
      ['payment.delete', 'Demo Shop Ltd', 'INV-0042'],
      ['payment.create', 'Demo Shop Ltd', 'INV-0037'],
    ]);
    const csv = (await reader('GET', '/api/admin/audit.csv?action=payment.')).body.split('\r\n');
    expect(csv[1]).toContain(
      '"boss","Demo Shop Ltd","Payment: delete","success","payment.delete","INV-0042"',
    );
    expect(csv[1]).toContain(`"${orgId}","6f1c2d1e-0000-4000-8000-00000000aaaa"`);
    expect(csv[2]).toContain(
      '"Demo Shop Ltd","Paid £10.00 on invoice INV-0037 from an account","success","payment.create","INV-0037"',
    );
  });
});

describe('the audit log', () => {
  it('is append-only in the database itself', async () => {
    const t = await createTestApp();
    try {
      await register(t.app, 'someone', 'Sturdy-Ledger-Pass-1');
      const { auditLog } = await import('../../db/schema/index');
      await expect(t.database.db.update(auditLog).set({ action: 'tampered' })).rejects.toThrow();
      await expect(t.database.db.delete(auditLog)).rejects.toThrow();
      expect((await t.database.db.select().from(auditLog)).map((r) => r.action)).toContain('user.register');
    } finally {
      await t.close();
    }
  });
});

describe('writes that need a person', () => {
  let t: TestApp;
  let admin: ReturnType<typeof as>;
  let user: ReturnType<typeof as>;
  let orgId: number;
  let clerkId: number;
  /** What the test finder answers for the next look-up. */
  let xeroAnswer: 'found' | 'missing' | 'down' = 'missing';

  async function reviewWrite(key: string, kind: string = TEST_KIND) {
    const { xeroWrites } = await import('../../db/schema/index');
    const [row] = await t.database.db
      .insert(xeroWrites)
      .values({
        organizationId: orgId,
        userId: clerkId,
        // A kind of the test's own (its finder below), or one with no finder: not one of WRITE_KINDS.
        kind: kind as WriteKind,
        idempotencyKey: key,
        fingerprint: `fp-${key}`,
        targetId: `INV-${key}`,
        amountPence: 12_345,
        request: { invoice: `INV-${key}`, amount: '123.45' },
        audit: { action: 'payment.create', username: 'clerk', target: `INV-${key}` },
        state: 'needs_review',
        error: 'Outcome unknown: please check this in Xero.',
      })
      .returning();
    return row?.id ?? 0;
  }

  async function auditLines(action: string, writeId: number) {
    const { auditLog } = await import('../../db/schema/index');
    const rows = await t.database.db.select().from(auditLog);
    return rows.filter(
      (r) => r.action === action && (r.detail as { writeId?: number } | null)?.writeId === writeId,
    );
  }

  beforeAll(async () => {
    t = await createTestApp();
    const a = await register(t.app, 'boss', 'Sturdy-Ledger-Pass-1');
    const u = await register(t.app, 'clerk', 'Sturdy-Ledger-Pass-1');
    admin = as(t.app, a.cookie);
    user = as(t.app, u.cookie);
    clerkId = u.user.id;
    const [org] = await t.database.db
      .insert(organizations)
      .values({ tenantId: 'tenant-r', tenantName: 'Review Shop Ltd' })
      .returning();
    orgId = org?.id ?? 0;
    t.parts.ledger.registerFinder(
      TEST_KIND,
      async () => {
        if (xeroAnswer === 'down') throw new Error('Xero is not answering');
        return xeroAnswer === 'found' ? { xeroId: 'PAY-IN-XERO', response: {} } : null;
      },
      'find',
    );
  });
  afterAll(() => t.close());

  it('is for administrators only (403 for others) and validates ids', async () => {
    const id = await reviewWrite('forbidden');
    for (const [method, url, body] of [
      ['GET', '/api/admin/writes/review'],
      ['GET', `/api/admin/writes/${id}`],
      ['POST', `/api/admin/writes/${id}/settle`, { action: 'cancel' }],
    ] as Array<[Parameters<typeof user>[0], string, unknown?]>) {
      const res = await user(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await admin('GET', '/api/admin/writes/abc')).statusCode).toBe(400);
    expect((await admin('GET', '/api/admin/writes/99999999999')).statusCode).toBe(400);
    expect((await admin('GET', '/api/admin/writes/999999')).statusCode).toBe(404);
    expect((await admin('POST', `/api/admin/writes/${id}/settle`, { action: 'resend' })).statusCode).toBe(
      400,
    );
    // A kind no feature can send again: refused in words, and the write stays held.
    const retry = await admin('POST', `/api/admin/writes/${id}/settle`, { action: 'retry' });
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toMatchObject({
      message:
        'Ledgerlink cannot send this kind of change again from here: cancel it and redo it on its screen.',
    });
    expect((await t.parts.ledger.findById(id))?.state).toBe('needs_review');
  });

  it('lists what Ledgerlink knows and looks Xero up when an item is opened', async () => {
    const id = await reviewWrite('listed');
    const list = await admin('GET', '/api/admin/writes/review');
    expect(list.statusCode).toBe(200);
    expect((list.json() as Array<{ id: number }>).find((w) => w.id === id)).toMatchObject({
      organizationName: 'Review Shop Ltd',
      kind: 'review.test',
      amountPence: 12_345,
      targetId: 'INV-listed',
      username: 'clerk',
      summary: 'payment.create',
      error: 'Outcome unknown: please check this in Xero.',
      state: 'needs_review',
    });
    xeroAnswer = 'found';
    expect((await admin('GET', `/api/admin/writes/${id}`)).json().xero).toEqual({
      status: 'found',
      xeroId: 'PAY-IN-XERO',
    });
    xeroAnswer = 'missing';
    expect((await admin('GET', `/api/admin/writes/${id}`)).json().xero).toEqual({ status: 'missing' });
    xeroAnswer = 'down';
    expect((await admin('GET', `/api/admin/writes/${id}`)).json().xero).toEqual({
      status: 'unavailable',
      message: 'Xero is not answering',
    });
    const other = await reviewWrite('nofinder', 'kind.without.finder');
    expect((await admin('GET', `/api/admin/writes/${other}`)).json().xero.status).toBe('unavailable');
    // Looking up never settles the write.
    expect((await t.parts.ledger.findById(id))?.state).toBe('needs_review');
  });

  it('marks a write done with one audit line, and a second settle is a 409', async () => {
    const id = await reviewWrite('done');
    const res = await admin('POST', `/api/admin/writes/${id}/settle`, {
      action: 'done',
      xeroId: 'PAY-FOUND',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, state: 'confirmed' });
    expect(await t.parts.ledger.findById(id)).toMatchObject({
      state: 'confirmed',
      xeroId: 'PAY-FOUND',
    });
    const lines = await auditLines('admin.write.settle', id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ username: 'boss', result: 'success' });
    expect(lines[0]?.detail).toMatchObject({
      before: { state: 'needs_review' },
      after: { state: 'confirmed', xeroId: 'PAY-FOUND' },
    });
    expect(await auditLines('payment.create', id)).toHaveLength(1);

    const again = await admin('POST', `/api/admin/writes/${id}/settle`, { action: 'cancel' });
    expect(again.statusCode).toBe(409);
    expect(await auditLines('admin.write.settle', id)).toHaveLength(1);
    expect(await auditLines('payment.create', id)).toHaveLength(1);
    expect((await t.parts.ledger.findById(id))?.state).toBe('confirmed');
    expect((await admin('GET', `/api/admin/writes/${id}`)).statusCode).toBe(404);
  });

  it('cancels a write as failed, cancelled by an administrator, with one audit line', async () => {
    const id = await reviewWrite('cancel');
    const res = await admin('POST', `/api/admin/writes/${id}/settle`, { action: 'cancel' });
    expect(res.statusCode).toBe(200);
    expect(await t.parts.ledger.findById(id)).toMatchObject({
      state: 'failed',
      error: 'cancelled by an administrator',
    });
    const lines = await auditLines('admin.write.settle', id);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.detail).toMatchObject({
      before: { state: 'needs_review' },
      after: { state: 'failed', error: 'cancelled by an administrator' },
    });
    const own = await auditLines('payment.create', id);
    expect(own).toHaveLength(1);
    expect(own[0]?.result).toBe('failure');
    expect((await admin('POST', `/api/admin/writes/${id}/settle`, { action: 'done' })).statusCode).toBe(409);
    expect(
      (await admin('GET', '/api/admin/writes/review')).json().map((w: { id: number }) => w.id),
    ).not.toContain(id);
  });
});
