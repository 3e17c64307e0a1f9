import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/database';
import { createPreparedStatement, readJsonRow, toSqlLiteral } from './prepared';
import { organizations, userOrganizations, users } from './schema/index';

describe('prepared statements', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.destroy());

  it('writes parameters as literals that cannot leave their quotes', () => {
    expect(toSqlLiteral("O'Brien")).toBe("'O''Brien'");
    expect(toSqlLiteral(['a', 'b"c', 'd\\e', "f'g"])).toBe(`'{"a","b\\"c","d\\\\e","f''g"}'`);
    expect(toSqlLiteral([1, 0, -1])).toBe("'{1,0,-1}'");
    expect(toSqlLiteral(null)).toBe('NULL');
    expect(() => toSqlLiteral(Number.NaN)).toThrow();
    expect(() => toSqlLiteral('a\0b')).toThrow();
    expect(() => toSqlLiteral({})).toThrow();
  });

  it('runs a statement again and again with its parameters, awkward text included', async () => {
    const statement = createPreparedStatement(
      database,
      'select x as value, o.ord::int as ord from unnest($1::text[]) with ordinality as o(x, ord) order by o.ord',
    );
    const awkward = ["it's", 'a "quote"', 'back\\slash', '{braces}', 'comma,here', "'; drop table users; --"];
    for (let i = 0; i < 3; i++) {
      const rows = await statement.run([awkward]);
      expect(rows.map((r) => r.value)).toEqual(awkward);
    }
    const [count] = await database.db.select({ n: sql<number>`count(*)::int` }).from(users);
    expect(count?.n).toBeGreaterThanOrEqual(0);
  });

  it('reads a row from row_to_json exactly as Drizzle reads it (dates, numeric scale, nulls)', async () => {
    const [org] = await database.db
      .insert(organizations)
      .values({
        tenantId: 'tenant-json-row',
        tenantName: "O'Brien & Sons",
        defaultStockJournalMarginRate: '1.30',
        rateMinuteRemaining: 42,
        rateUpdatedAt: new Date('2026-01-02T03:04:05.678Z'),
      })
      .returning();
    if (!org) throw new Error('no organisation');
    const [user] = await database.db.insert(users).values({ username: 'json-row-user' }).returning();
    if (!user) throw new Error('no user');
    await database.db
      .insert(userOrganizations)
      .values({ userId: user.id, organizationId: org.id, isActive: true });
    const statement = createPreparedStatement(
      database,
      'select row_to_json(o)::text as org, row_to_json(m)::text as membership from organizations o join user_organizations m on m.organization_id = o.id where o.id = $1::int',
    );
    const [row] = await statement.run([org.id]);
    const fromDrizzle = (
      await database.db.select().from(organizations).where(eq(organizations.id, org.id))
    )[0];
    const membership = (
      await database.db.select().from(userOrganizations).where(eq(userOrganizations.organizationId, org.id))
    )[0];
    expect(readJsonRow(organizations, JSON.parse(String(row?.org)) as Record<string, unknown>)).toEqual(
      fromDrizzle,
    );
    expect(
      readJsonRow(userOrganizations, JSON.parse(String(row?.membership)) as Record<string, unknown>),
    ).toEqual(membership);
    expect(fromDrizzle?.defaultStockJournalMarginRate).toBe('1.30');
  });
});
