import { count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { users } from '../../db/schema/index';

export function createUsersRepository(db: Db) {
  return {
    async findByUsername(username: string) {
      const rows = await db
        .select()
        .from(users)
        .where(sql`lower(${users.username}) = ${username.trim().toLowerCase()}`)
        .limit(1);
      return rows[0] ?? null;
    },
    async findById(id: number) {
      const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return rows[0] ?? null;
    },
    async findByXeroUserId(xeroUserId: string) {
      const rows = await db.select().from(users).where(eq(users.xeroUserId, xeroUserId)).limit(1);
      return rows[0] ?? null;
    },
    async count(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(users);
      return row?.n ?? 0;
    },
    /**
     * Inserts a user (null when the username is taken); the first user ever becomes an administrator,
     * decided inside the INSERT itself rather than by a separate count.
     */
    async create(values: {
      username: string;
      email: string | null;
      passwordHash: string | null;
      xeroUserId?: string | null;
      isAdmin?: boolean;
    }) {
      const rows = await db
        .insert(users)
        .values({
          username: values.username,
          email: values.email,
          passwordHash: values.passwordHash,
          xeroUserId: values.xeroUserId ?? null,
          isAdmin: values.isAdmin === true ? true : sql`not exists (select 1 from ${users})`,
        })
        .onConflictDoNothing()
        .returning();
      return rows[0] ?? null;
    },
    async linkXero(userId: number, xeroUserId: string) {
      await db.update(users).set({ xeroUserId, updatedAt: new Date() }).where(eq(users.id, userId));
      announceLocalChange(db, `u:${userId}`);
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
