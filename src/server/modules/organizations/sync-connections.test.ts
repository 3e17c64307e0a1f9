import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import type { XeroTenantConnection } from '../../xero/xero-port';
import { createOrganizationsRepository } from './organizations.repository';

const SHOP: XeroTenantConnection = {
  connectionId: 'conn-shop',
  tenantId: 'tenant-shop',
  tenantName: 'Demo Shop Ltd',
  tenantType: 'ORGANISATION',
};
const BUILDERS: XeroTenantConnection = {
  connectionId: 'conn-builders',
  tenantId: 'tenant-builders',
  tenantName: 'Demo Builders Ltd',
  tenantType: 'ORGANISATION',
};

/**
 * The connections watch and a person's check read Xero's GET /connections for the same user side by side (issue
 * 45): the list read first may arrive last. It must not undo what was recorded after it was read.
 */
describe("a check's list of Xero connections that arrives after a newer change", () => {
  let database: TestDatabase;
  let repo: ReturnType<typeof createOrganizationsRepository>;
  let userId = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    repo = createOrganizationsRepository(database);
    const [user] = await database.db.insert(users).values({ username: 'watch.race' }).returning();
    userId = user!.id;
  });
  afterAll(() => database?.destroy());

  const connected = async () =>
    (await repo.listForUser(userId))
      .filter((m) => m.membership.connected)
      .map((m) => m.org.tenantName)
      .sort();

  it('does not bring back an organisation a newer check found removed in Xero', async () => {
    await repo.syncConnections(userId, [SHOP, BUILDERS], { missing: 'not-included', consented: true });
    // The watch asks Xero: both still listed. Demo Shop is then disconnected in Xero, and the person's check,
    // asked after, records it before the watch's answer is applied.
    const watchReadAt = new Date();
    const watchList = [SHOP, BUILDERS];
    await new Promise((r) => setTimeout(r, 5));
    const person = await repo.syncConnections(userId, [BUILDERS], { missing: 'removed', readAt: new Date() });
    expect(person.dropped.map((o) => o.tenantName)).toEqual(['Demo Shop Ltd']);
    const watch = await repo.syncConnections(userId, watchList, { missing: 'removed', readAt: watchReadAt });
    expect(watch.dropped).toEqual([]);
    expect(await connected()).toEqual(['Demo Builders Ltd']);
    const shop = (await repo.listForUser(userId)).find((m) => m.org.tenantName === 'Demo Shop Ltd');
    expect(shop?.membership.disconnectedReason).toBe('removed');
  });

  it('does not drop an organisation connected by a consent made after it was read', async () => {
    const watchReadAt = new Date();
    const watchList = [BUILDERS];
    await new Promise((r) => setTimeout(r, 5));
    // Connect on Demo Shop's card: the consent lists both.
    await repo.syncConnections(userId, [SHOP, BUILDERS], { missing: 'not-included', consented: true });
    const watch = await repo.syncConnections(userId, watchList, { missing: 'removed', readAt: watchReadAt });
    expect(watch.dropped).toEqual([]);
    expect(await connected()).toEqual(['Demo Builders Ltd', 'Demo Shop Ltd']);
    // The next round, with a list read after the consent, applies as ever.
    await new Promise((r) => setTimeout(r, 5));
    const next = await repo.syncConnections(userId, [SHOP], { missing: 'removed', readAt: new Date() });
    expect(next.dropped.map((o) => o.tenantName)).toEqual(['Demo Builders Ltd']);
  });
});
