import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/database';
import { organizations, xeroCacheVersions, xeroInvoices, xeroSyncState } from './schema/index';

/** Migration 0005: every change to an organisation's cached invoices moves its cache version on, in the same statement. */
describe('invoice cache version', () => {
  let database: TestDatabase;
  let orgA: number;
  let orgB: number;

  const versionOf = async (organizationId: number) =>
    (
      await database.db
        .select()
        .from(xeroCacheVersions)
        .where(eq(xeroCacheVersions.organizationId, organizationId))
    )[0]?.version ?? 0;
  const invoice = (organizationId: number, invoiceId: string) => ({
    organizationId,
    invoiceId,
    type: 'ACCREC',
    status: 'AUTHORISED',
    amountDuePence: 100,
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    const rows = await database.db
      .insert(organizations)
      .values([{ tenantId: 'version-a' }, { tenantId: 'version-b' }])
      .returning();
    orgA = rows[0]?.id ?? 0;
    orgB = rows[1]?.id ?? 0;
  });
  afterAll(() => database.destroy());

  it('moves on once per statement for each organisation the statement changed, and only for those', async () => {
    await database.db
      .insert(xeroInvoices)
      .values([invoice(orgA, 'a1'), invoice(orgA, 'a2'), invoice(orgB, 'b1')]);
    expect([await versionOf(orgA), await versionOf(orgB)]).toEqual([1, 1]);
    // An upsert that updates is one change.
    await database.db
      .insert(xeroInvoices)
      .values(invoice(orgA, 'a1'))
      .onConflictDoUpdate({
        target: [xeroInvoices.organizationId, xeroInvoices.invoiceId],
        set: { amountDuePence: 50 },
      });
    expect([await versionOf(orgA), await versionOf(orgB)]).toEqual([2, 1]);
    await database.db
      .update(xeroInvoices)
      .set({ amountDuePence: 0 })
      .where(eq(xeroInvoices.invoiceId, 'nothing-matches'));
    expect(await versionOf(orgA)).toBe(2);
    await database.db
      .update(xeroInvoices)
      .set({ amountDuePence: 0 })
      .where(eq(xeroInvoices.organizationId, orgB));
    await database.db.delete(xeroInvoices).where(eq(xeroInvoices.invoiceId, 'a2'));
    expect([await versionOf(orgA), await versionOf(orgB)]).toEqual([3, 2]);
  });

  it('moves on when a synced view is forgotten, not when its sync state is merely updated', async () => {
    await database.db
      .insert(xeroSyncState)
      .values({ organizationId: orgA, resource: 'invoices:contact:x', lastSyncAt: new Date() });
    const before = await versionOf(orgA);
    await database.db
      .update(xeroSyncState)
      .set({ leaseUntil: new Date() })
      .where(eq(xeroSyncState.organizationId, orgA));
    expect(await versionOf(orgA)).toBe(before);
    await database.db.delete(xeroSyncState).where(eq(xeroSyncState.organizationId, orgA));
    expect(await versionOf(orgA)).toBe(before + 1);
  });

  it('rolls back with the change it belongs to, and goes with its organisation', async () => {
    const before = await versionOf(orgB);
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(xeroInvoices).values(invoice(orgB, 'b-rolled-back'));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await versionOf(orgB)).toBe(before);
    await database.db.delete(organizations).where(eq(organizations.id, orgB));
    const [left] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(xeroCacheVersions)
      .where(eq(xeroCacheVersions.organizationId, orgB));
    expect(left?.n).toBe(0);
  });
});
