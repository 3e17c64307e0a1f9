/**
 * A full contact sync and a webhook's by-id read store contacts through one rule: the newest copy wins,
 * whichever read stores last (a full sync paging while a person's change was read by id must not put the
 * older copy back).
 */
import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations, xeroContacts } from '../../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import { storeContact } from './reference-data';

describe('storeContact', () => {
  let database: TestDatabase;
  let organizationId = 0;
  beforeAll(async () => {
    database = await createTestDatabase();
    const [org] = await database.db
      .insert(organizations)
      .values({ tenantId: crypto.randomUUID(), tenantName: 'Demo Shop Ltd' })
      .returning({ id: organizations.id });
    organizationId = org!.id;
  });
  afterAll(() => database.destroy());

  const contact = (name: string, updated: string) => ({
    organizationId,
    contactId: 'c1',
    name,
    status: 'ACTIVE',
    updatedUtc: new Date(updated),
    syncedAt: new Date(),
  });
  const nameNow = async () =>
    (
      await database.db
        .select({ name: xeroContacts.name })
        .from(xeroContacts)
        .where(and(eq(xeroContacts.organizationId, organizationId), eq(xeroContacts.contactId, 'c1')))
    )[0]?.name;

  it('keeps the newer copy when an older one arrives later, and takes a newer one', async () => {
    await storeContact(database.db, contact('Meadow Farm Shop (renamed)', '2026-11-27T10:00:00Z'));
    await storeContact(database.db, contact('Meadow Farm Shop', '2026-11-27T09:00:00Z'));
    expect(await nameNow()).toBe('Meadow Farm Shop (renamed)');
    await storeContact(database.db, contact('Meadow Farm Shop Ltd', '2026-11-27T11:00:00Z'));
    expect(await nameNow()).toBe('Meadow Farm Shop Ltd');
  });
});
