/**
 * The activity log answers each line in words, naming accounts and contacts from Ledgerlink's copy of Xero, and
 * the CSV keeps the raw columns at its end (issue 45 item 3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, organizations, xeroAccounts, xeroContacts } from '../../db/schema/index';
import { createTestApp, type TestApp } from '../../test/app';
import { as, register } from '../../test/session';

const CASH = '7d2e8c1a-0f5b-4e4c-9a51-2c7f3b6d9e10';
const HUGHES = '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d';

describe('the activity log in words (issue 45 item 3)', () => {
  let t: TestApp;
  let admin: ReturnType<typeof as>;
  let orgId = 0;
  let otherOrgId = 0;

  beforeAll(async () => {
    t = await createTestApp();
    const boss = await register(t.app, 'boss', 'Sturdy-Ledger-Pass-1');
    admin = as(t.app, boss.cookie);
    const db = t.database.db;
    const [shop, builders] = await db
      .insert(organizations)
      .values([
        { tenantId: 'tenant-shop', tenantName: 'Demo Shop Ltd' },
        { tenantId: 'tenant-builders', tenantName: 'Demo Builders Ltd' },
      ])
      .returning();
    orgId = shop?.id ?? 0;
    otherOrgId = builders?.id ?? 0;
    await db.insert(xeroAccounts).values([
      { organizationId: orgId, accountId: CASH, code: '090', name: 'Cash', type: 'BANK', status: 'ACTIVE' },
      // The same id in another organisation names nothing here.
      {
        organizationId: otherOrgId,
        accountId: HUGHES,
        code: '999',
        name: 'Wrong Org',
        type: 'BANK',
        status: 'ACTIVE',
      },
    ]);
    await db
      .insert(xeroContacts)
      .values({ organizationId: orgId, contactId: HUGHES, name: 'Hughes Groundworks Ltd', status: 'ACTIVE' });
    await db.insert(auditLog).values([
      {
        userId: boss.user.id,
        username: 'boss',
        organizationId: orgId,
        action: 'settings.update',
        target: 'Demo Shop Ltd',
        result: 'success',
        detail: { before: { defaultCashAccountId: null }, after: { defaultCashAccountId: CASH } },
      },
      {
        userId: boss.user.id,
        username: 'boss',
        organizationId: orgId,
        action: 'bill.create',
        target: '3327',
        result: 'success',
        detail: {
          contactId: HUGHES,
          reference: '3327',
          date: '2026-11-20',
          status: 'DRAFT',
          amountPence: 100000,
        },
      },
    ]);
  });
  afterAll(() => t.close());

  it('answers each line in words, with names from the cache of its own organisation', async () => {
    const lines = (await admin('GET', `/api/admin/audit?organizationId=${orgId}`)).json() as Array<{
      action: string;
      description: string;
    }>;
    expect(lines.map((l) => l.description)).toEqual([
      'Created draft bill 3327 for Hughes Groundworks Ltd: £1,000.00 gross, dated 20 Nov 2026',
      'Changed the cash account from none to Cash (090)',
    ]);
    const everything = (await admin('GET', '/api/admin/audit')).json() as Array<{
      action: string;
      description: string;
    }>;
    expect(everything.find((l) => l.action === 'user.register')?.description).toBe(
      'Created a Ledgerlink account (the first one, so an administrator)',
    );
  });

  it('the CSV says what happened first and keeps the raw columns at its end', async () => {
    const csv = (await admin('GET', `/api/admin/audit.csv?organizationId=${orgId}`)).body.split('\r\n');
    expect(csv[0]).toBe(
      '"When (UTC)","User","Organization","What happened","Result","Action","Target","Detail","IP address","Organization ID","Target ID"',
    );
    expect(csv[2]).toContain(
      '"boss","Demo Shop Ltd","Changed the cash account from none to Cash (090)","success","settings.update","Demo Shop Ltd","{',
    );
    // The raw detail as recorded, ids and all, for whoever needs it.
    expect(csv[2]).toContain(`""defaultCashAccountId"":""${CASH}""`);
  });
});
