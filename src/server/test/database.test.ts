import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { users } from '../db/schema/index';
import { createTestDatabase, snapshotDatabase, type TestDatabase } from './database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/** Every row of every table of the app, as text, table by table. */
async function everything(): Promise<string[]> {
  const run = async (text: string) =>
    database.pglite
      ? (await database.pglite.query<Record<string, unknown>>(text)).rows
      : ((await database.pool?.query(text))?.rows as Array<Record<string, unknown>>);
  const tables = await run(
    `select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname not in ('pg_catalog', 'information_schema', 'drizzle') order by 1`,
  );
  const all: string[] = [];
  for (const { name } of tables) {
    const [row] = await run(
      `select coalesce(json_agg(t order by t::text), '[]')::text as rows from ${String(name)} t`,
    );
    all.push(`${String(name)} ${String(row?.rows)}`);
  }
  return all;
}

it('puts a database back as it was when the snapshot was taken: its rows, and the ids it hands out next', async () => {
  const add = async (username: string) =>
    (
      await database.db
        .insert(users)
        .values({ username, email: `${username}@example.com` })
        .returning()
    )[0]?.id;
  await add('ada');
  const restore = await snapshotDatabase(database);
  const taken = await everything();
  const nextId = await add('grace');
  await add('edsger');
  expect(await everything()).not.toEqual(taken);

  await restore();
  expect(await everything()).toEqual(taken);
  expect(await add('barbara')).toBe(nextId);
  expect((await database.db.select().from(users).orderBy(asc(users.id))).map((u) => u.username)).toEqual([
    'ada',
    'barbara',
  ]);
});
