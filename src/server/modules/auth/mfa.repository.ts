import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { mfaTotpSteps, sessions, users } from '../../db/schema/index';

/** Drizzle queries of two-step sign-in: the user's key and recovery codes, the last time step, pending sessions. */
export function createMfaRepository(db: Db) {
  return {
    async findUser(userId: number) {
      const rows = await db
        .select({
          id: users.id,
          username: users.username,
          email: users.email,
          isAdmin: users.isAdmin,
          xeroUserId: users.xeroUserId,
          passwordHash: users.passwordHash,
          mfaSecretEnc: users.mfaSecretEnc,
          mfaEnabled: users.mfaEnabled,
          mfaRecoveryCodes: users.mfaRecoveryCodes,
        })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1);
      return rows[0] ?? null;
    },

    /** A new key waiting to be confirmed; refused (false) once two-step sign-in is on. */
    async saveNewSecret(userId: number, secretEnc: string): Promise<boolean> {
      const rows = await db
        .update(users)
        .set({ mfaSecretEnc: secretEnc, mfaRecoveryCodes: [], updatedAt: new Date() })
        .where(and(eq(users.id, userId), eq(users.mfaEnabled, false)))
        .returning({ id: users.id });
      await db.delete(mfaTotpSteps).where(eq(mfaTotpSteps.userId, userId));
      return rows.length === 1;
    },

    /** Turns it on with the key it was confirmed with; false when another request got there first. */
    async enable(userId: number, secretEnc: string, recoveryHashes: string[]): Promise<boolean> {
      const rows = await db
        .update(users)
        .set({ mfaEnabled: true, mfaRecoveryCodes: recoveryHashes, updatedAt: new Date() })
        .where(and(eq(users.id, userId), eq(users.mfaEnabled, false), eq(users.mfaSecretEnc, secretEnc)))
        .returning({ id: users.id });
      announceLocalChange(db, `u:${userId}`);
      return rows.length === 1;
    },

    async disable(userId: number): Promise<void> {
      await db
        .update(users)
        .set({ mfaEnabled: false, mfaSecretEnc: null, mfaRecoveryCodes: [], updatedAt: new Date() })
        .where(eq(users.id, userId));
      announceLocalChange(db, `u:${userId}`);
      await db.delete(mfaTotpSteps).where(eq(mfaTotpSteps.userId, userId));
    },

    /**
     * Swaps the recovery-code list only if it is still the one we read, so two requests racing with the same
     * code cannot both use it.
     */
    async replaceRecoveryCodes(userId: number, expected: string[], next: string[]): Promise<boolean> {
      const rows = await db
        .update(users)
        .set({ mfaRecoveryCodes: next, updatedAt: new Date() })
        .where(and(eq(users.id, userId), sql`${users.mfaRecoveryCodes} = ${JSON.stringify(expected)}::jsonb`))
        .returning({ id: users.id });
      return rows.length === 1;
    },

    async getLastTimeStep(userId: number): Promise<number | null> {
      const rows = await db
        .select({ step: mfaTotpSteps.lastTimeStep })
        .from(mfaTotpSteps)
        .where(eq(mfaTotpSteps.userId, userId));
      return rows[0]?.step ?? null;
    },

    /** Records a used time step; false when that step (or a later one) was already used: a replay. */
    async advanceTimeStep(userId: number, step: number): Promise<boolean> {
      const rows = await db
        .insert(mfaTotpSteps)
        .values({ userId, lastTimeStep: step })
        .onConflictDoUpdate({
          target: mfaTotpSteps.userId,
          set: { lastTimeStep: step, updatedAt: new Date() },
          setWhere: sql`${mfaTotpSteps.lastTimeStep} < ${step}`,
        })
        .returning({ userId: mfaTotpSteps.userId });
      return rows.length === 1;
    },

    /** A session waiting for its second step lives minutes, not the hours of a signed-in one. */
    async limitSessionLifetime(sessionId: string, expiresAt: Date): Promise<void> {
      await db.update(sessions).set({ expiresAt }).where(eq(sessions.id, sessionId));
      announceLocalChange(db, `s:${sessionId}`);
    },
  };
}
export type MfaRepository = ReturnType<typeof createMfaRepository>;
