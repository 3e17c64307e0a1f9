import { z } from 'zod';
import { eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { oauthRequests } from '../../db/schema/index.ts';

/** An authorisation older than this is refused at the callback. */
const MAX_AGE_MS = 15 * 60_000;

export type OAuthPurpose = 'signin' | 'connect' | 'reconnect';

/** State, PKCE verifier and nonce of each authorisation in flight, kept server-side and used once. */
export function createOAuthRequests(db: Db) {
  return {
    async create(values: { state: string; purpose: OAuthPurpose; userId: number | null; codeVerifier: string; nonce: string }) {
      await db.delete(oauthRequests).where(lt(oauthRequests.createdAt, new Date(Date.now() - MAX_AGE_MS)));
      await db.insert(oauthRequests).values(values);
    },
    /** Returns and deletes the request for this state, or null when unknown, used or stale. */
    async consume(state: string) {
      const rows = await db.delete(oauthRequests).where(eq(oauthRequests.state, state)).returning();
      const row = rows[0];
      if (!row || row.createdAt.getTime() < Date.now() - MAX_AGE_MS) return null;
      return row;
    },
  };
}
export type OAuthRequests = ReturnType<typeof createOAuthRequests>;

/** What Xero sends back to a redirect URI: a code and our state, or an OAuth error (RFC 6749 §4.1.2). */
export const oauthCallbackQuerySchema = z.object({
  code: z.string().max(2000).optional(),
  state: z.string().max(500).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(1000).optional(),
  scope: z.string().max(2000).optional(),
});
